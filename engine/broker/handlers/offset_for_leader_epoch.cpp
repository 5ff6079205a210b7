// OffsetForLeaderEpoch (from followers, KIP-101/279): the leader's end offset for the largest
// epoch at or below the one asked, fenced by the follower's view of the current leader epoch.
#include "engine/broker/request_handler.h"
#include "engine/protocol/offset_for_leader_epoch.h"

namespace gregor::broker {

void handle_offset_for_leader_epoch(HandlerContext& ctx, const Request& req, protocol::OffsetForLeaderEpochRequest request) {
  protocol::OffsetForLeaderEpochResponse resp;
  // Kafka's rule: ClusterAction on the cluster (followers) or Describe on each topic.
  const bool cluster_action = authorize(ctx, req, AclOperation::kClusterAction, AclResourceType::kCluster,
                                        kClusterResourceName, /*trace_denial=*/false);
  for (const auto& t : request.topics) {
    protocol::OffsetForLeaderEpochResponse::OffsetForLeaderTopicResult tr;
    tr.topic = t.topic;
    const bool allowed = cluster_action || authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kTopic, t.topic);
    for (const auto& op : t.partitions) {
      protocol::OffsetForLeaderEpochResponse::EpochEndOffset e;
      e.partition = op.partition;
      Partition* p = ctx.replicas.partition(TopicPartition{t.topic, op.partition});
      const LeaderEpoch current{op.current_leader_epoch};
      if (!allowed) {
        e.error_code = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
      } else if (!p || !p->is_leader()) {
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
