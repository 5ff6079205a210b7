// DeleteGroups: the group coordinator deletes each empty group with its offsets
// (engine/group/group_coordinator.h); the answer lists one result per group asked.
#include "engine/broker/request_handler.h"
#include "engine/protocol/delete_groups.h"

namespace gregor::broker {

void handle_delete_groups(HandlerContext& ctx, const Request& req, protocol::DeleteGroupsRequest request) {
  ctx.groups.delete_groups(request.groups_names, [&ctx, req](std::vector<std::pair<std::string, ErrorCode>> results) {
    protocol::DeleteGroupsResponse resp;
    for (auto& [id, code] : results) resp.results.push_back({id, code});
    ctx.channel.respond(req, resp);
  });
}

}  // namespace gregor::broker
