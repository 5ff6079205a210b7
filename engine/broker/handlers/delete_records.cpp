// DeleteRecords: at each partition's leader, the log start offset moves up to the offset asked
// (-1: the high watermark), as Kafka's Partition.deleteRecordsOnLeader does. Records below it are
// gone for readers at once: Fetch below it answers OFFSET_OUT_OF_RANGE and ListOffsets earliest
// returns it; whole segments below it are removed at the next retention check. Followers take the
// leader's log start offset from their next fetch and report theirs in the fetch after; as Kafka's
// DelayedDeleteRecords, the answer waits (in the delete-records purgatory, up to timeout_ms) until
// the partition's low watermark, the smallest log start offset of the leader and of every follower
// on a live broker, has reached the offset, and low_watermark is that; REQUEST_TIMED_OUT when it has
// not (the records are deleted at the leader either way). Errors, per partition, as Kafka's:
// UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, OFFSET_OUT_OF_RANGE (negative other than -1,
// or above the high watermark).
#include "engine/broker/request_handler.h"
#include "engine/protocol/delete_records.h"

namespace gregor::broker {

namespace {
constexpr int64_t kHighWatermarkOffset = -1;  // DeleteRecordsRequest.HIGH_WATERMARK

ErrorCode delete_before(HandlerContext& ctx, const TopicPartition& tp, int64_t requested, int64_t& required) {
  Partition* p = ctx.replicas.partition(tp);
  if (!p) return ctx.metadata.partition(tp) ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
  if (!p->is_leader()) return ErrorCode::NOT_LEADER_OR_FOLLOWER;
  const int64_t hw = p->high_watermark().value;
  const int64_t offset = requested == kHighWatermarkOffset ? hw : requested;
  if (offset < 0 || offset > hw) return ErrorCode::OFFSET_OUT_OF_RANGE;
  if (offset > p->log_start_offset().value) {
    Status s = p->log().maybe_increment_log_start_offset(Offset{offset});
    if (!s.is_ok()) return s.code() == StatusCode::kOutOfRange ? ErrorCode::OFFSET_OUT_OF_RANGE : ErrorCode::KAFKA_STORAGE_ERROR;
    ctx.rt.emit(ev::DeleteRecords{.topic = tp.topic, .partition = tp.partition, .log_start = p->log_start_offset().value});
  }
  required = offset;
  return ErrorCode::NONE;
}

// A DeleteRecords waiting for the low watermarks of its partitions (Kafka's DelayedDeleteRecords).
class DelayedDeleteRecords final : public DelayedOperation {
 public:
  struct Wait {
    size_t topic_index;
    size_t partition_index;
    TopicPartition tp;
    int64_t required;
    bool done = false;
  };
  DelayedDeleteRecords(HandlerContext& ctx, Request req) : ctx_(ctx), req_(std::move(req)) {}

  protocol::DeleteRecordsResponse response;
  std::vector<Wait> waits;

  std::vector<TopicPartition> keys() const { return waited_partitions(waits); }

  bool try_complete(bool expired) override {
    bool all_done = true;
    auto is_live = [this](NodeId id) { return ctx_.metadata.brokers().count(id.value) > 0; };
    for (auto& w : waits) {
      if (w.done) continue;
      auto& out = response.topics[w.topic_index].partitions[w.partition_index];
      Partition* p = ctx_.replicas.partition(w.tp);
      if (!p || !p->is_leader()) {
        out.error_code = ErrorCode::NOT_LEADER_OR_FOLLOWER;
        out.low_watermark = -1;
        w.done = true;
        continue;
      }
      const int64_t low = p->low_watermark(is_live).value;
      if (low >= w.required) {
        out.error_code = ErrorCode::NONE;
        out.low_watermark = low;
        w.done = true;
      } else if (expired) {
        out.error_code = ErrorCode::REQUEST_TIMED_OUT;
        out.low_watermark = -1;
        w.done = true;
      } else {
        all_done = false;
      }
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

void handle_delete_records(HandlerContext& ctx, const Request& req, protocol::DeleteRecordsRequest request) {
  auto op = std::make_unique<DelayedDeleteRecords>(ctx, req);
  for (size_t ti = 0; ti < request.topics.size(); ti++) {
    const auto& t = request.topics[ti];
    op->response.topics.push_back({});
    op->response.topics.back().name = t.name;
    for (size_t pi = 0; pi < t.partitions.size(); pi++) {
      const auto& part = t.partitions[pi];
      const TopicPartition tp{t.name, part.partition_index};
      int64_t required = -1;
      // Kafka's rule: Delete on the topic.
      const ErrorCode code = authorize(ctx, req, AclOperation::kDelete, AclResourceType::kTopic, t.name)
                                 ? delete_before(ctx, tp, part.offset, required)
                                 : ErrorCode::TOPIC_AUTHORIZATION_FAILED;
      op->response.topics.back().partitions.push_back({part.partition_index, -1, code});
      if (code == ErrorCode::NONE) op->waits.push_back({ti, pi, tp, required});
    }
  }
  if (op->try_complete(false)) return;
  auto keys = op->keys();
  ctx.replicas.delete_records_purgatory().watch(std::move(op), std::move(keys),
                                                Duration::millis(std::max<int32_t>(request.timeout_ms, 0)));
}

}  // namespace gregor::broker
