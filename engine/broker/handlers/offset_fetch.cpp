// OffsetFetch: a group's committed offsets. With an authorizer (Kafka's rules): Describe on the
// group (else GROUP_AUTHORIZATION_FAILED), and Describe on each topic: a named topic the principal
// may not describe is answered TOPIC_AUTHORIZATION_FAILED, and a request for all of the group's
// offsets leaves such topics out.
#include "engine/broker/request_handler.h"
#include "engine/protocol/offset_fetch.h"

namespace gregor::broker {

namespace {

// Applies the topic rule to one group's answer (v0-7's or v8+'s topic list).
template <typename Topics>
void filter_topics(HandlerContext& ctx, const Request& req, bool named, Topics& topics) {
  Topics kept;
  for (auto& t : topics) {
    if (!authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kTopic, t.name, named)) {
      if (!named) continue;
      for (auto& p : t.partitions) {
        p.committed_offset = -1;
        p.committed_leader_epoch = -1;
        p.metadata = "";
        p.error_code = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
      }
    }
    kept.push_back(std::move(t));
  }
  topics = std::move(kept);
}

}  // namespace

void handle_offset_fetch(HandlerContext& ctx, const Request& req, protocol::OffsetFetchRequest request) {
  const int16_t version = req.header.api_version;
  auto allowed = [&](const std::string& group) {
    return authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kGroup, group);
  };
  constexpr int16_t kGroupsVersionMin = 8;   // v8+: several groups, each with its own error
  constexpr int16_t kTopLevelErrorMin = 2;   // v2-7: a top-level error code
  if (version < kGroupsVersionMin && !allowed(request.group_id)) {
    protocol::OffsetFetchResponse denied;
    if (version >= kTopLevelErrorMin) {
      denied.error_code = ErrorCode::GROUP_AUTHORIZATION_FAILED;
    } else if (request.topics) {
      for (const auto& t : *request.topics) {
        protocol::OffsetFetchResponse::OffsetFetchResponseTopic rt;
        rt.name = t.name;
        for (int32_t index : t.partition_indexes) {
          protocol::OffsetFetchResponse::OffsetFetchResponsePartition p;
          p.partition_index = index;
          p.committed_offset = -1;
          p.metadata = "";
          p.error_code = ErrorCode::GROUP_AUTHORIZATION_FAILED;
          rt.partitions.push_back(std::move(p));
        }
        denied.topics.push_back(std::move(rt));
      }
    }
    return ctx.channel.respond(req, denied);
  }
  protocol::OffsetFetchResponse resp = ctx.groups.offset_fetch(request, version);
  if (!ctx.authorizer.enabled()) return ctx.channel.respond(req, resp);
  if (version < kGroupsVersionMin) {
    filter_topics(ctx, req, request.topics.has_value(), resp.topics);
    return ctx.channel.respond(req, resp);
  }
  for (auto& g : resp.groups) {
    bool named = false;
    for (const auto& rg : request.groups)
      if (rg.group_id == g.group_id) named = rg.topics.has_value();
    if (!allowed(g.group_id)) {
      g.topics.clear();
      g.error_code = ErrorCode::GROUP_AUTHORIZATION_FAILED;
      continue;
    }
    filter_topics(ctx, req, named, g.topics);
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
