// Fetch: from followers (replica_id >= 0: up to the log end, recording their progress) and from
// consumers (up to the high watermark). A fetch with max_wait_ms waits in the fetch purgatory
// until min_bytes are there, an error shows, or max_wait_ms passes.
#include <algorithm>

#include "engine/broker/request_handler.h"
#include "engine/protocol/fetch.h"

namespace gregor::broker {

namespace {

struct FetchRead {
  protocol::FetchResponse response;
  int32_t bytes = 0;
  bool has_error = false;
};

FetchRead read_fetch(HandlerContext& ctx, const protocol::FetchRequest& req) {
  FetchRead out;
  const bool from_follower = req.replica_id >= 0;
  for (const auto& t : req.topics) {
    protocol::FetchResponse::FetchableTopicResponse tr;
    tr.topic = t.topic;
    for (const auto& fp : t.partitions) {
      protocol::FetchResponse::PartitionData pd;
      pd.partition_index = fp.partition;
      pd.aborted_transactions = std::vector<protocol::FetchResponse::AbortedTransaction>{};
      TopicPartition tp{t.topic, fp.partition};
      Partition* p = ctx.replicas.partition(tp);
      if (!p) {
        pd.error_code = ctx.metadata.partition(tp) ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      } else {
        LeaderRead lr = from_follower
                            ? p->fetch_for_follower(NodeId{req.replica_id}, Offset{fp.fetch_offset},
                                                    LeaderEpoch{fp.current_leader_epoch}, LeaderEpoch{-1},
                                                    fp.partition_max_bytes, ctx.rt.now())
                            : p->fetch_for_consumer(Offset{fp.fetch_offset}, LeaderEpoch{fp.current_leader_epoch},
                                                    fp.partition_max_bytes);
        pd.error_code = lr.error;
        pd.high_watermark = lr.high_watermark.value;
        pd.last_stable_offset = lr.high_watermark.value;
        pd.log_start_offset = lr.log_start.value;
        if (!lr.records.empty()) {
          out.bytes += static_cast<int32_t>(lr.records.size());
          pd.records = std::move(lr.records);
        } else {
          pd.records = Bytes{};
        }
      }
      if (pd.error_code != ErrorCode::NONE) out.has_error = true;
      tr.partitions.push_back(std::move(pd));
    }
    out.response.responses.push_back(std::move(tr));
  }
  return out;
}

// Would read_fetch now return records or an error? It has the same effects on the partitions (a
// follower's progress, the ISR, the HW: every partition is visited, as read_fetch does) but reads
// no log and builds no response.
bool fetch_ready(HandlerContext& ctx, const protocol::FetchRequest& req) {
  const bool from_follower = req.replica_id >= 0;
  bool ready = false;
  for (const auto& t : req.topics) {
    for (const auto& fp : t.partitions) {
      Partition* p = ctx.replicas.partition(TopicPartition{t.topic, fp.partition});
      if (!p) {
        ready = true;  // an error to answer with
        continue;
      }
      const LeaderRead lr = from_follower
                                ? p->fetch_for_follower(NodeId{req.replica_id}, Offset{fp.fetch_offset},
                                                        LeaderEpoch{fp.current_leader_epoch}, LeaderEpoch{-1},
                                                        fp.partition_max_bytes, ctx.rt.now(), false)
                                : p->fetch_for_consumer(Offset{fp.fetch_offset}, LeaderEpoch{fp.current_leader_epoch},
                                                        fp.partition_max_bytes, false);
      if (lr.error != ErrorCode::NONE || lr.records_available) ready = true;
    }
  }
  return ready;
}

// A fetch waiting for fetch.min.bytes of data.
class DelayedFetch final : public DelayedOperation {
 public:
  DelayedFetch(HandlerContext& ctx, Request req, protocol::FetchRequest fetch)
      : ctx_(ctx), req_(std::move(req)), fetch_(std::move(fetch)) {}

  bool try_complete(bool expired) override {
    // Most tries find nothing new. With fetch.min.bytes 1 any batch completes the fetch, so a try
    // first asks without reading; the log is read once, when the fetch completes. (The fetch_for_*
    // calls repeated at the same time change nothing more, so the read below is exact.)
    if (!expired && fetch_.min_bytes <= 1 && !fetch_ready(ctx_, fetch_)) return false;
    FetchRead read = read_fetch(ctx_, fetch_);
    if (!expired && read.bytes < std::max(1, fetch_.min_bytes) && !read.has_error) return false;
    ctx_.channel.respond(req_, read.response);
    return true;
  }

 private:
  HandlerContext& ctx_;
  Request req_;
  protocol::FetchRequest fetch_;
};

}  // namespace

void handle_fetch(HandlerContext& ctx, const Request& req, protocol::FetchRequest fetch) {
  FetchRead read = read_fetch(ctx, fetch);
  if (fetch.max_wait_ms <= 0 || read.bytes >= std::max(1, fetch.min_bytes) || read.has_error || fetch.topics.empty())
    return ctx.channel.respond(req, read.response);
  std::vector<TopicPartition> keys;
  for (const auto& t : fetch.topics)
    for (const auto& fp : t.partitions) keys.push_back(TopicPartition{t.topic, fp.partition});
  const Duration wait = Duration::millis(fetch.max_wait_ms);
  ctx.replicas.fetch_purgatory().watch(std::make_unique<DelayedFetch>(ctx, req, std::move(fetch)), std::move(keys), wait);
}

}  // namespace gregor::broker
