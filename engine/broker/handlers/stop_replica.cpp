// StopReplica (from the controller): the partitions stop here, and are deleted with their files
// when their topic is deleted. Refused as LeaderAndIsr is (handlers/leader_and_isr.cpp): on a
// client listener, with a stale broker epoch, from a stale controller.
#include "engine/broker/request_handler.h"
#include "engine/protocol/stop_replica.h"

namespace gregor::broker {

namespace {
constexpr int16_t kStopReplicaVersionPartitionStatesMin = 3;
}  // namespace

void handle_stop_replica(HandlerContext& ctx, const Request& req, protocol::StopReplicaRequest request) {
  if (refuse_controller_request_on_client_listener<protocol::StopReplicaResponse>(ctx, req, "StopReplica")) return;
  if (ctx.controller.defer_until_registered(request.broker_epoch, "StopReplica", [&ctx, req, request]() mutable {
        handle_stop_replica(ctx, req, std::move(request));
      }))
    return;
  if (ctx.controller.is_broker_epoch_stale(request.broker_epoch)) {
    protocol::StopReplicaResponse resp;
    resp.error_code = ErrorCode::STALE_BROKER_EPOCH;
    emit_stale_broker_epoch(ctx, "StopReplica", request.broker_epoch);
    return ctx.channel.respond(req, resp);
  }
  if (!ctx.replicas.accept_controller_epoch(request.controller_epoch)) {
    protocol::StopReplicaResponse resp;
    resp.error_code = ErrorCode::STALE_CONTROLLER_EPOCH;
    return ctx.channel.respond(req, resp);
  }
  protocol::StopReplicaResponse resp;
  if (req.header.api_version < kStopReplicaVersionPartitionStatesMin) {
    resp = ctx.replicas.stop_replicas(request);
  } else {
    // v3+ (KIP-570): each partition with its leader epoch and its own delete flag. A partition led
    // in a newer epoch than the request's is FENCED_LEADER_EPOCH (-1: no epoch, -2: the topic is
    // being deleted: never fenced).
    protocol::StopReplicaRequest stop[2];  // [0] keep the files, [1] delete them
    for (const auto& ts : request.topic_states)
      for (const auto& ps : ts.partition_states) {
        const Partition* p = ctx.replicas.partition(TopicPartition{ts.topic_name, ps.partition_index});
        if (p && ps.leader_epoch >= 0 && LeaderEpoch{ps.leader_epoch} < p->leader_epoch()) {
          resp.partition_errors.push_back({ts.topic_name, ps.partition_index, ErrorCode::FENCED_LEADER_EPOCH});
          continue;
        }
        auto& into = stop[ps.delete_partition ? 1 : 0];
        into.delete_partitions = ps.delete_partition;
        if (into.topics.empty() || into.topics.back().name != ts.topic_name) into.topics.push_back({ts.topic_name, {}});
        into.topics.back().partition_indexes.push_back(ps.partition_index);
      }
    for (const auto& s : stop) {
      if (s.topics.empty()) continue;
      for (auto& e : ctx.replicas.stop_replicas(s).partition_errors) resp.partition_errors.push_back(std::move(e));
    }
  }
  ctx.groups.on_partitions_changed();
  ctx.txns.on_partitions_changed();  // load or unload __transaction_state partitions
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
