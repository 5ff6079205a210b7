// DescribeLogDirs: the broker's one log directory (log.dirs; the real runtime's --data-dir) with
// each hosted partition (all, or those asked): its size in bytes (the sum of its segments) and its
// offset lag, as Kafka's ReplicaManager.describeLogDirs computes it for a current (not future)
// replica: max(high watermark - log end offset, 0). The volume's total and usable bytes (v4) are
// -1, Kafka's "unknown". A partition asked for that this broker does not host is left out, as
// Kafka does.
#include <algorithm>
#include <set>

#include "engine/broker/request_handler.h"
#include "engine/protocol/describe_log_dirs.h"

namespace gregor::broker {

void handle_describe_log_dirs(HandlerContext& ctx, const Request& req, protocol::DescribeLogDirsRequest request) {
  if (!authorize_cluster(ctx, req, AclOperation::kDescribe)) {  // Kafka's rule: Describe on the cluster
    protocol::DescribeLogDirsResponse resp;
    resp.error_code = ErrorCode::CLUSTER_AUTHORIZATION_FAILED;
    return ctx.channel.respond(req, resp);
  }
  std::set<TopicPartition> asked;
  if (request.topics)
    for (const auto& t : *request.topics)
      for (int32_t p : t.partitions) asked.insert(TopicPartition{t.topic, p});
  protocol::DescribeLogDirsResponse resp;
  resp.results.push_back({});
  auto& dir = resp.results.back();
  dir.log_dir = ctx.config.log_dir;
  dir.total_bytes = -1;
  dir.usable_bytes = -1;
  for (const auto& [tp, p] : ctx.replicas.partitions()) {
    if (request.topics && !asked.count(tp)) continue;
    int64_t size = 0;
    for (const auto& segment : p->log().segments()) size += static_cast<int64_t>(segment.size_bytes);
    if (dir.topics.empty() || dir.topics.back().name != tp.topic) dir.topics.push_back({.name = tp.topic});
    dir.topics.back().partitions.push_back(
        {.partition_index = tp.partition,
         .partition_size = size,
         .offset_lag = std::max<int64_t>(p->high_watermark().value - p->log_end_offset().value, 0),
         .is_future_key = false});
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
