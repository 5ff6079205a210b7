// OffsetForLeaderEpoch (from followers, KIP-101/279): the leader's end offset for the largest
// epoch at or below the one asked, fenced by the follower's view of the current leader epoch.
#include "engine/broker/request_handler.h"
#include "engine/protocol/offset_for_leader_epoch.h"

namespace gregor::broker {

void handle_offset_for_leader_epoch(HandlerContext& ctx, const Request& req, protocol::OffsetForLeaderEpochRequest request) {
  protocol::OffsetForLeaderEpochResponse resp;
  for (const auto& t : request.topics) {
    protocol::OffsetForLeaderEpochResponse::OffsetForLeaderTopicResult tr;
    tr.topic = t.topic;
    for (const auto& op : t.partitions) {
      protocol::OffsetForLeaderEpochResponse::EpochEndOffset e;
      e.partition = op.partition;
      Partition* p = ctx.replicas.partition(TopicPartition{t.topic, op.partition});
      const LeaderEpoch current{op.current_leader_epoch};
      if (!p || !p->is_leader()) {
        e.error_code = ErrorCode::NOT_LEADER_OR_FOLLOWER;
      } else if (current.value >= 0 && current < p->leader_epoch()) {
        e.error_code = ErrorCode::FENCED_LEADER_EPOCH;
      } else if (current > p->leader_epoch()) {
        e.error_code = ErrorCode::UNKNOWN_LEADER_EPOCH;
      } else {
        const EpochEndOffset end = p->end_offset_for_epoch(LeaderEpoch{op.leader_epoch});
        e.leader_epoch = end.epoch.value;
        e.end_offset = end.end_offset.value;
      }
      tr.partitions.push_back(e);
    }
    resp.topics.push_back(std::move(tr));
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
