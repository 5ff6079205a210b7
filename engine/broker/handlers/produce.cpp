// Produce: appends each partition's batch as leader (engine/broker/partition.h). acks=0 gets no
// answer, acks=1 an answer at once; acks=all waits in the produce purgatory until the high
// watermark covers the batch, min.insync.replicas no longer holds, or timeout_ms passes.
#include <algorithm>

#include "engine/broker/request_handler.h"
#include "engine/protocol/produce.h"

namespace gregor::broker {

namespace {

// An acks=all produce waiting for the high watermark of its partitions.
class DelayedProduce final : public DelayedOperation {
 public:
  struct Wait {
    size_t topic_index;
    size_t partition_index;
    TopicPartition tp;
    Offset required;
    bool done = false;
  };
  DelayedProduce(HandlerContext& ctx, Request req) : ctx_(ctx), req_(std::move(req)) {}

  protocol::ProduceResponse response;
  std::vector<Wait> waits;

  std::vector<Purgatory::Key> keys() const {
    std::vector<Purgatory::Key> out;
    out.reserve(waits.size());
    for (const auto& w : waits) out.push_back(Purgatory::key(w.tp));
    return out;
  }

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
      response.responses[w.topic_index].partition_responses[w.partition_index].error_code = code;
    }
    if (!all_done) return false;
    ctx_.channel.respond(req_, response);
    return true;
  }

 private:
  HandlerContext& ctx_;
  Request req_;
};

ErrorCode missing_partition_error(HandlerContext& ctx, const TopicPartition& tp) {
  return ctx.metadata.partition(tp) ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
}

}  // namespace

void handle_produce(HandlerContext& ctx, const Request& req, protocol::ProduceRequest pr) {
  const int16_t acks = pr.acks;
  auto d = std::make_unique<DelayedProduce>(ctx, req);
  // Kafka's rules: a transactional produce needs Write on its transactional id (else every
  // partition is refused), and every produce Write on each topic.
  const bool transaction_allowed =
      !pr.transactional_id || authorize(ctx, req, AclOperation::kWrite, AclResourceType::kTransactionalId, *pr.transactional_id);
  d->response.responses.reserve(pr.topic_data.size());
  if (acks == -1) {
    size_t partitions = 0;
    for (const auto& t : pr.topic_data) partitions += t.partition_data.size();
    d->waits.reserve(partitions);
  }
  for (auto& t : pr.topic_data) {
    const bool topic_allowed =
        transaction_allowed && authorize(ctx, req, AclOperation::kWrite, AclResourceType::kTopic, t.name);
    protocol::ProduceResponse::TopicProduceResponse tr;
    tr.name = t.name;
    tr.partition_responses.reserve(t.partition_data.size());
    for (auto& pd : t.partition_data) {
      protocol::ProduceResponse::PartitionProduceResponse resp;
      resp.index = pd.index;
      TopicPartition tp{t.name, pd.index};
      Partition* p = ctx.replicas.partition(tp);
      if (acks != 0 && acks != 1 && acks != -1) {
        resp.error_code = ErrorCode::INVALID_REQUIRED_ACKS;
      } else if (!transaction_allowed) {
        resp.error_code = ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
      } else if (!topic_allowed) {
        resp.error_code = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
      } else if (!p) {
        resp.error_code = missing_partition_error(ctx, tp);
      } else if (ctx.replicas.log_dir_offline()) {
        resp.error_code = ErrorCode::KAFKA_STORAGE_ERROR;  // its log directory failed
      } else if (!pd.records || pd.records->empty()) {
        resp.error_code = ErrorCode::CORRUPT_MESSAGE;
      } else {
        LeaderAppend a = p->append_as_leader(std::move(*pd.records), acks, req.header.api_version, ctx.rt.now());
        resp.error_code = a.error;
        if (a.error == ErrorCode::NONE) {
          resp.base_offset = a.base_offset.value;
          resp.log_start_offset = a.log_start.value;
          resp.log_append_time_ms = a.log_append_time_ms;
          if (acks == -1)
            d->waits.push_back({d->response.responses.size(), tr.partition_responses.size(), tp, a.last_offset + 1});
        } else {
          resp.base_offset = -1;
        }
      }
      if (resp.error_code != ErrorCode::NONE)
        ctx.rt.emit(ev::ProduceRejected{.topic = tp.topic, .partition = tp.partition, .error = protocol::error_name(resp.error_code)});
      tr.partition_responses.push_back(resp);
    }
    d->response.responses.push_back(std::move(tr));
  }
  if (acks == 0) return ctx.channel.finish(req.from);  // acks=0: no response at all
  if (d->waits.empty()) return ctx.channel.respond(req, d->response);
  if (d->try_complete(false)) return;
  const std::vector<Purgatory::Key> keys = d->keys();
  ctx.replicas.produce_purgatory().watch(std::move(d), keys, Duration::millis(std::max(0, pr.timeout_ms)));
}

}  // namespace gregor::broker
