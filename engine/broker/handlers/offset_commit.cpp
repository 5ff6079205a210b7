// OffsetCommit: answered once the offsets are replicated in __consumer_offsets. With an
// authorizer (Kafka's rules): Read on the group (else every partition GROUP_AUTHORIZATION_FAILED),
// and Read on each topic (else its partitions TOPIC_AUTHORIZATION_FAILED; the others are committed).
#include "engine/broker/request_handler.h"
#include "engine/protocol/offset_commit.h"

namespace gregor::broker {

void handle_offset_commit(HandlerContext& ctx, const Request& req, protocol::OffsetCommitRequest request) {
  using Response = protocol::OffsetCommitResponse;
  const bool group_allowed = authorize(ctx, req, AclOperation::kRead, AclResourceType::kGroup, request.group_id);
  Response refused;
  std::vector<protocol::OffsetCommitRequest::OffsetCommitRequestTopic> allowed;
  for (auto& t : request.topics) {
    ErrorCode code = ErrorCode::NONE;
    if (!group_allowed) {
      code = ErrorCode::GROUP_AUTHORIZATION_FAILED;
    } else if (!authorize(ctx, req, AclOperation::kRead, AclResourceType::kTopic, t.name)) {
      code = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
    }
    if (code == ErrorCode::NONE) {
      allowed.push_back(std::move(t));
      continue;
    }
    Response::OffsetCommitResponseTopic rt;
    rt.name = t.name;
    for (const auto& p : t.partitions) rt.partitions.push_back({p.partition_index, code});
    refused.topics.push_back(std::move(rt));
  }
  request.topics = std::move(allowed);
  if (refused.topics.empty()) return ctx.groups.offset_commit(request, ctx.channel.responder<Response>(req));
  if (request.topics.empty()) return ctx.channel.respond(req, refused);
  auto respond = ctx.channel.responder<Response>(req);
  ctx.groups.offset_commit(request, [respond, refused](const Response& r) {
    Response merged = r;
    for (const auto& t : refused.topics) merged.topics.push_back(t);
    respond(merged);
  });
}

}  // namespace gregor::broker
