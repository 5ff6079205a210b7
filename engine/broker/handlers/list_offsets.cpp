// ListOffsets: the earliest offset, the latest (the high watermark for consumers, the last stable
// offset for read_committed consumers (isolation_level 1, v2+), the log end for replicas), the first committed record at or after a timestamp (through the log's time index and
// the records of the batch, engine/log/log.h), or the record with the largest timestamp (-3).
#include <algorithm>

#include "engine/broker/request_handler.h"
#include "engine/protocol/list_offsets.h"

namespace gregor::broker {

namespace {
// A timestamp lookup's answer: the record's offset and timestamp, or -1 and -1 when none is at or
// after the target (below what the requester may read).
void answer_found(protocol::ListOffsetsResponse::ListOffsetsPartitionResponse& pr,
                  const Result<std::optional<log::TimestampAndOffset>>& found) {
  if (!found) {
    pr.error_code = ErrorCode::KAFKA_STORAGE_ERROR;
  } else if (*found) {
    pr.offset = (*found)->offset.value;
    pr.timestamp = (*found)->timestamp;
  } else {
    pr.offset = -1;
    pr.timestamp = -1;
  }
}

// How far the requester may read: a replica the whole log, a consumer up to the high watermark, a
// read_committed one up to the last stable offset (Kafka's lastFetchableOffset).
Result<Offset> fetchable_limit(Partition& p, const protocol::ListOffsetsRequest& request) {
  if (request.replica_id >= 0) return p.log_end_offset();
  if (request.isolation_level == static_cast<int8_t>(IsolationLevel::kReadCommitted)) return p.last_stable_offset();
  return p.high_watermark();
}
}  // namespace

void handle_list_offsets(HandlerContext& ctx, const Request& req, protocol::ListOffsetsRequest request) {
  protocol::ListOffsetsResponse resp;
  for (const auto& t : request.topics) {
    protocol::ListOffsetsResponse::ListOffsetsTopicResponse tr;
    tr.name = t.name;
    const bool allowed = authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kTopic, t.name);  // Kafka's rule
    for (const auto& lp : t.partitions) {
      protocol::ListOffsetsResponse::ListOffsetsPartitionResponse pr;
      pr.partition_index = lp.partition_index;
      TopicPartition tp{t.name, lp.partition_index};
      Partition* p = ctx.replicas.partition(tp);
      if (!allowed) {
        pr.error_code = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
      } else if (!p || !p->is_leader()) {
        pr.error_code = ctx.metadata.partition(tp) ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      } else if (ctx.replicas.log_dir_offline()) {
        pr.error_code = ErrorCode::KAFKA_STORAGE_ERROR;  // its log directory failed
      } else if (lp.current_leader_epoch >= 0 && lp.current_leader_epoch != p->leader_epoch().value) {
        // v4+: a client that knows another leader epoch (KIP-320), as Fetch answers it.
        pr.error_code = lp.current_leader_epoch < p->leader_epoch().value ? ErrorCode::FENCED_LEADER_EPOCH
                                                                          : ErrorCode::UNKNOWN_LEADER_EPOCH;
      } else if (lp.timestamp == protocol::kListOffsetsEarliestTimestamp ||
                 lp.timestamp == protocol::kListOffsetsEarliestLocalTimestamp) {
        // Without tiered storage the earliest local offset is the log start offset.
        pr.offset = p->log_start_offset().value;
      } else if (lp.timestamp == protocol::kListOffsetsLatestTieredTimestamp) {
        pr.offset = -1;  // nothing is tiered
      } else if (auto limit = fetchable_limit(*p, request); !limit) {
        pr.error_code = ErrorCode::KAFKA_STORAGE_ERROR;
      } else if (lp.timestamp == protocol::kListOffsetsLatestTimestamp) {
        pr.offset = limit->value;
      } else {
        if (lp.timestamp == protocol::kListOffsetsMaxTimestamp)
          answer_found(pr, p->log().offset_of_max_timestamp(*limit));
        else
          answer_found(pr, p->log().offset_for_timestamp(lp.timestamp, *limit));
      }
      // v0 answers with a list of offsets (at most max_num_offsets of them; Gregor gives the one).
      if (req.header.api_version == 0 && pr.error_code == ErrorCode::NONE && pr.offset >= 0 && lp.max_num_offsets > 0)
        pr.old_style_offsets.push_back(pr.offset);
      tr.partitions.push_back(pr);
    }
    resp.topics.push_back(std::move(tr));
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
