// DeleteGroups: the group coordinator deletes each empty group with its offsets
// (engine/group/group_coordinator.h); the answer lists one result per group asked.
#include "engine/broker/request_handler.h"
#include "engine/protocol/delete_groups.h"

namespace gregor::broker {

void handle_delete_groups(HandlerContext& ctx, const Request& req, protocol::DeleteGroupsRequest request) {
  // Kafka's rule: Delete on each group; the others are answered GROUP_AUTHORIZATION_FAILED.
  std::vector<std::string> allowed;
  std::vector<std::string> denied;
  for (const auto& g : request.groups_names)
    (authorize(ctx, req, AclOperation::kDelete, AclResourceType::kGroup, g) ? allowed : denied).push_back(g);
  ctx.groups.delete_groups(allowed, [&ctx, req, denied](std::vector<std::pair<std::string, ErrorCode>> results) {
    protocol::DeleteGroupsResponse resp;
    for (const auto& g : denied) resp.results.push_back({g, ErrorCode::GROUP_AUTHORIZATION_FAILED});
    for (auto& [id, code] : results) resp.results.push_back({id, code});
    ctx.channel.respond(req, resp);
  });
}

}  // namespace gregor::broker
