// WriteTxnMarkers (from a transaction coordinator): for each marker, a COMMIT or ABORT control
// batch is appended to each named partition this broker leads (Partition::append_txn_marker), and
// the request is answered once every marker is replicated to the ISR (as a Produce with acks=all,
// in the produce purgatory) or failed. Per partition: UNKNOWN_TOPIC_OR_PARTITION,
// NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS(_AFTER_APPEND), INVALID_PRODUCER_EPOCH (an epoch older
// than the partition's for that producer), TRANSACTION_COORDINATOR_FENCED (a coordinator epoch older
// than the last marker's), KAFKA_STORAGE_ERROR, REQUEST_TIMED_OUT. A marker that is committed is
// reported to ReplicaManager's transaction marker listener (the group coordinator) before the
// answer. An inter-broker request: on a client listener every partition is
// CLUSTER_AUTHORIZATION_FAILED and nothing is written, as for the controller's requests; likewise
// with an authorizer when the principal lacks ClusterAction on the cluster.
#include <algorithm>

#include "engine/broker/request_handler.h"
#include "engine/protocol/write_txn_markers.h"

namespace gregor::broker {

namespace {

// How long a marker waits for the ISR: Kafka appends markers with request.timeout.ms (30000).
constexpr int64_t kMarkerReplicationTimeoutMs = 30000;

using Response = protocol::WriteTxnMarkersResponse;

class DelayedTxnMarkers final : public DelayedOperation {
 public:
  struct Wait {
    size_t marker_index;
    size_t topic_index;
    size_t partition_index;
    TopicPartition tp;
    Offset required;
    int64_t producer_id;
    int16_t producer_epoch;
    bool committed;
    bool done = false;
  };
  DelayedTxnMarkers(HandlerContext& ctx, Request req) : ctx_(ctx), req_(std::move(req)) {}

  Response response;
  std::vector<Wait> waits;

  bool try_complete(bool expired) override {
    bool all_done = true;
    for (auto& w : waits) {
      if (w.done) continue;
      Partition* p = ctx_.replicas.partition(w.tp);
      ErrorCode code = p ? p->check_enough_replicas_reach(w.required) : ErrorCode::NOT_LEADER_OR_FOLLOWER;
      if (code == ErrorCode::REQUEST_TIMED_OUT && !expired) {
        all_done = false;
        continue;
      }
      w.done = true;
      response.markers[w.marker_index].topics[w.topic_index].partitions[w.partition_index].error_code = code;
      if (code == ErrorCode::NONE) ctx_.replicas.on_txn_marker_committed(w.tp, w.producer_id, w.producer_epoch, w.committed);
    }
    if (!all_done) return false;
    ctx_.channel.respond(req_, response);
    return true;
  }

 private:
  HandlerContext& ctx_;
  Request req_;
};

}  // namespace

void handle_write_txn_markers(HandlerContext& ctx, const Request& req, protocol::WriteTxnMarkersRequest request) {
  const std::string listener = ctx.rt.listener_name(req.from);
  bool refused = !ctx.config.serves_controller_requests(listener);
  if (refused)
    ctx.rt.emit(ev::ControllerRequestRefused{.api = "WriteTxnMarkers", .listener = listener});
  else
    refused = !authorize_cluster(ctx, req, AclOperation::kClusterAction);
  auto d = std::make_unique<DelayedTxnMarkers>(ctx, req);
  for (const auto& m : request.markers) {
    Response::WritableTxnMarkerResult mr;
    mr.producer_id = m.producer_id;
    for (const auto& t : m.topics) {
      Response::WritableTxnMarkerTopicResult tr;
      tr.name = t.name;
      for (int32_t index : t.partition_indexes) {
        Response::WritableTxnMarkerPartitionResult pr;
        pr.partition_index = index;
        const TopicPartition tp{t.name, index};
        Partition* p = ctx.replicas.partition(tp);
        if (refused) {
          pr.error_code = ErrorCode::CLUSTER_AUTHORIZATION_FAILED;
        } else if (!p) {
          pr.error_code =
              ctx.metadata.partition(tp) ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
        } else if (ctx.replicas.log_dir_offline()) {
          pr.error_code = ErrorCode::KAFKA_STORAGE_ERROR;
        } else {
          MarkerAppend a = p->append_txn_marker(m.producer_id, m.producer_epoch, m.transaction_result,
                                                m.coordinator_epoch, ctx.rt.now());
          pr.error_code = a.error;
          if (a.error == ErrorCode::NONE)
            d->waits.push_back({d->response.markers.size(), mr.topics.size(), tr.partitions.size(), tp, a.offset + 1,
                                m.producer_id, m.producer_epoch, m.transaction_result});
        }
        tr.partitions.push_back(pr);
      }
      mr.topics.push_back(std::move(tr));
    }
    d->response.markers.push_back(std::move(mr));
  }
  if (d->try_complete(false)) return;
  std::vector<TopicPartition> keys = waited_partitions(d->waits);
  ctx.replicas.produce_purgatory().watch(std::move(d), std::move(keys), Duration::millis(kMarkerReplicationTimeoutMs));
}

}  // namespace gregor::broker
