// DeleteRecords: at each partition's leader, the log start offset moves up to the offset asked
// (-1: the high watermark), as Kafka's Partition.deleteRecordsOnLeader does. Records below it are
// gone for readers at once: Fetch below it answers OFFSET_OUT_OF_RANGE and ListOffsets earliest
// returns it; whole segments below it are removed at the next retention check. Followers take the
// leader's log start offset from their next fetch. Errors, per partition, as Kafka's:
// UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, OFFSET_OUT_OF_RANGE (negative other than -1,
// or above the high watermark); low_watermark is the new log start offset.
#include "engine/broker/request_handler.h"
#include "engine/protocol/delete_records.h"

namespace gregor::broker {

namespace {
constexpr int64_t kHighWatermarkOffset = -1;  // DeleteRecordsRequest.HIGH_WATERMARK

ErrorCode delete_before(HandlerContext& ctx, const TopicPartition& tp, int64_t requested, int64_t& low_watermark) {
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
  low_watermark = p->log_start_offset().value;
  return ErrorCode::NONE;
}
}  // namespace

void handle_delete_records(HandlerContext& ctx, const Request& req, protocol::DeleteRecordsRequest request) {
  protocol::DeleteRecordsResponse resp;
  for (const auto& t : request.topics) {
    resp.topics.push_back({});
    resp.topics.back().name = t.name;
    for (const auto& part : t.partitions) {
      int64_t low_watermark = -1;
      const ErrorCode code = delete_before(ctx, TopicPartition{t.name, part.partition_index}, part.offset, low_watermark);
      resp.topics.back().partitions.push_back({part.partition_index, low_watermark, code});
    }
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
