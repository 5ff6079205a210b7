// ListOffsets: the earliest offset, the latest (the high watermark for consumers, the log end for
// replicas), or the first committed batch at or after a timestamp.
#include <algorithm>

#include "engine/broker/request_handler.h"
#include "engine/protocol/list_offsets.h"
#include "engine/record/record_batch.h"

namespace gregor::broker {

namespace {
// The first committed batch whose max timestamp is at or after `timestamp`: segments whose newest
// record is older are skipped, the rest is read batch by batch. Returns (offset, timestamp), or
// (-1, -1) when there is none.
Result<std::pair<int64_t, int64_t>> offset_for_timestamp(Partition& p, int64_t timestamp) {
  const Offset hw = p.high_watermark();
  Offset from = p.log_start_offset();
  for (const auto& seg : p.log().segments())
    if (seg.max_timestamp < timestamp && seg.next_offset <= hw) from = seg.next_offset;
  while (from < hw) {
    auto read = p.log().read(from, 1, hw);
    if (!read) return read.status();
    if (read->records.empty()) break;
    auto h = record::parse_batch_header(as_view(read->records), false);
    if (!h) return h.status();
    if (h->max_timestamp >= timestamp) return std::make_pair(std::max(h->base_offset, from.value), h->max_timestamp);
    from = Offset{h->next_offset()};
  }
  return std::make_pair(int64_t{-1}, int64_t{-1});
}
}  // namespace

void handle_list_offsets(HandlerContext& ctx, const Request& req, protocol::ListOffsetsRequest request) {
  protocol::ListOffsetsResponse resp;
  for (const auto& t : request.topics) {
    protocol::ListOffsetsResponse::ListOffsetsTopicResponse tr;
    tr.name = t.name;
    for (const auto& lp : t.partitions) {
      protocol::ListOffsetsResponse::ListOffsetsPartitionResponse pr;
      pr.partition_index = lp.partition_index;
      TopicPartition tp{t.name, lp.partition_index};
      Partition* p = ctx.replicas.partition(tp);
      if (!p || !p->is_leader()) {
        pr.error_code = ctx.metadata.partition(tp) ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      } else if (lp.timestamp == protocol::kListOffsetsEarliestTimestamp) {
        pr.offset = p->log_start_offset().value;
      } else if (lp.timestamp == protocol::kListOffsetsLatestTimestamp) {
        // A consumer sees the end of what is committed; a replica the end of the log.
        pr.offset = request.replica_id >= 0 ? p->log_end_offset().value : p->high_watermark().value;
      } else {
        auto found = offset_for_timestamp(*p, lp.timestamp);
        if (!found) {
          pr.error_code = ErrorCode::KAFKA_STORAGE_ERROR;
        } else {
          pr.offset = found->first;  // -1: no committed record at or after that time
          pr.timestamp = found->second;
        }
      }
      tr.partitions.push_back(pr);
    }
    resp.topics.push_back(std::move(tr));
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
