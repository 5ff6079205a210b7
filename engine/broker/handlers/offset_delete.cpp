// OffsetDelete: the group coordinator deletes the group's offsets of the partitions named
// (engine/group/group_coordinator.h). With an authorizer (Kafka's rules): Delete on the group (else
// GROUP_AUTHORIZATION_FAILED), and Read on each topic (else its partitions
// TOPIC_AUTHORIZATION_FAILED; the others are deleted).
#include "engine/broker/request_handler.h"
#include "engine/protocol/offset_delete.h"

namespace gregor::broker {

void handle_offset_delete(HandlerContext& ctx, const Request& req, protocol::OffsetDeleteRequest request) {
  using Response = protocol::OffsetDeleteResponse;
  if (!authorize(ctx, req, AclOperation::kDelete, AclResourceType::kGroup, request.group_id)) {
    Response denied;
    denied.error_code = ErrorCode::GROUP_AUTHORIZATION_FAILED;
    return ctx.channel.respond(req, denied);
  }
  std::vector<Response::OffsetDeleteResponseTopic> refused;
  std::vector<protocol::OffsetDeleteRequest::OffsetDeleteRequestTopic> allowed;
  for (auto& t : request.topics) {
    if (authorize(ctx, req, AclOperation::kRead, AclResourceType::kTopic, t.name)) {
      allowed.push_back(std::move(t));
      continue;
    }
    Response::OffsetDeleteResponseTopic rt;
    rt.name = t.name;
    for (const auto& p : t.partitions) rt.partitions.push_back({p.partition_index, ErrorCode::TOPIC_AUTHORIZATION_FAILED});
    refused.push_back(std::move(rt));
  }
  request.topics = std::move(allowed);
  ctx.groups.offset_delete(request, [&ctx, req, refused](const Response& resp) {
    Response merged = resp;
    for (const auto& t : refused) merged.topics.push_back(t);
    ctx.channel.respond(req, merged);
  });
}

}  // namespace gregor::broker
