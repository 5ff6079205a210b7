// TxnOffsetCommit: a transactional producer's offsets for a group, stored in __consumer_offsets and
// pending until its transaction ends (engine/group/group_txn_offsets.cpp). ACLs as Kafka's
// KafkaApis: Write on the TransactionalId (else every partition TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
// then Read on the group (GROUP_AUTHORIZATION_FAILED), then Read on each topic (that topic's
// partitions TOPIC_AUTHORIZATION_FAILED; the others are committed).
#include <map>

#include "engine/broker/request_handler.h"
#include "engine/protocol/txn_offset_commit.h"

namespace gregor::broker {

namespace {

using Response = protocol::TxnOffsetCommitResponse;

void add_failed(Response& resp, const protocol::TxnOffsetCommitRequest::TxnOffsetCommitRequestTopic& t, ErrorCode e) {
  Response::TxnOffsetCommitResponseTopic rt;
  rt.name = t.name;
  for (const auto& p : t.partitions) rt.partitions.push_back({p.partition_index, e});
  resp.topics.push_back(std::move(rt));
}

}  // namespace

void handle_txn_offset_commit(HandlerContext& ctx, const Request& req, protocol::TxnOffsetCommitRequest request) {
  ErrorCode denied = ErrorCode::NONE;
  if (!authorize(ctx, req, AclOperation::kWrite, AclResourceType::kTransactionalId, request.transactional_id))
    denied = ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
  else if (!authorize(ctx, req, AclOperation::kRead, AclResourceType::kGroup, request.group_id))
    denied = ErrorCode::GROUP_AUTHORIZATION_FAILED;
  Response failed;
  if (denied != ErrorCode::NONE) {
    for (const auto& t : request.topics) add_failed(failed, t, denied);
    return ctx.channel.respond(req, failed);
  }
  protocol::TxnOffsetCommitRequest allowed = request;
  allowed.topics.clear();
  std::map<std::string, bool> readable;  // asked once per topic, as Kafka's filterByAuthorized
  for (const auto& t : request.topics) {
    if (!readable.count(t.name))
      readable[t.name] = authorize(ctx, req, AclOperation::kRead, AclResourceType::kTopic, t.name);
    if (readable[t.name])
      allowed.topics.push_back(t);
    else
      add_failed(failed, t, ErrorCode::TOPIC_AUTHORIZATION_FAILED);
  }
  if (allowed.topics.empty() && !request.topics.empty()) return ctx.channel.respond(req, failed);
  ctx.groups.txn_offset_commit(allowed, req.header.api_version, [&ctx, req, failed](const Response& r) {
    Response out = failed;
    out.throttle_time_ms = r.throttle_time_ms;
    for (const auto& t : r.topics) out.topics.push_back(t);
    ctx.channel.respond(req, out);
  });
}

}  // namespace gregor::broker
