// AddPartitionsToTxn: a transactional producer adds partitions to its transaction (v0-3, one
// transaction); brokers verify partitions of several transactions (v4+, verify_only, KIP-890).
#include <memory>

#include "engine/broker/request_handler.h"
#include "engine/protocol/add_partitions_to_txn.h"

namespace gregor::broker {

namespace {

using Topics = std::vector<protocol::AddPartitionsToTxnRequest::AddPartitionsToTxnTopic>;
using TopicResults = std::vector<protocol::AddPartitionsToTxnResponse::AddPartitionsToTxnTopicResult>;

TopicResults results(const std::map<TopicPartition, ErrorCode>& errors) {
  TopicResults out;
  for (const auto& [tp, e] : errors) {
    if (out.empty() || out.back().name != tp.topic) out.push_back({});
    out.back().name = tp.topic;
    out.back().results_by_partition.push_back({tp.partition, e});
  }
  return out;
}

// The partitions named, or (as Kafka's KafkaApis) UNKNOWN_TOPIC_OR_PARTITION for those that do not
// exist and OPERATION_NOT_ATTEMPTED for the others.
bool check_partitions(HandlerContext& ctx, const Topics& topics, std::set<TopicPartition>* partitions,
                      std::map<TopicPartition, ErrorCode>* errors) {
  bool unknown = false;
  for (const auto& t : topics)
    for (int32_t p : t.partitions) {
      partitions->insert(TopicPartition{t.name, p});
      if (!ctx.metadata.partition(TopicPartition{t.name, p})) unknown = true;
    }
  if (!unknown) return true;
  for (const auto& tp : *partitions)
    (*errors)[tp] = ctx.metadata.partition(tp) ? ErrorCode::OPERATION_NOT_ATTEMPTED : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
  return false;
}

ErrorCode for_version(ErrorCode e, int16_t version) {
  // Before v2 (KIP-588) a fenced producer hears INVALID_PRODUCER_EPOCH.
  return e == ErrorCode::PRODUCER_FENCED && version < 2 ? ErrorCode::INVALID_PRODUCER_EPOCH : e;
}

}  // namespace

void handle_add_partitions_to_txn(HandlerContext& ctx, const Request& req, protocol::AddPartitionsToTxnRequest request) {
  const int16_t version = req.header.api_version;
  if (version < 4) {
    std::set<TopicPartition> partitions;
    std::map<TopicPartition, ErrorCode> errors;
    protocol::AddPartitionsToTxnResponse resp;
    if (!check_partitions(ctx, request.v3_and_below_topics, &partitions, &errors)) {
      resp.results_by_topic_v3_and_below = results(errors);
      return ctx.channel.respond(req, resp);
    }
    return ctx.txns.add_partitions(request.v3_and_below_transactional_id, request.v3_and_below_producer_id,
                                   request.v3_and_below_producer_epoch, partitions,
                                   [&ctx, req, partitions, version](ErrorCode e) {
                                     std::map<TopicPartition, ErrorCode> out;
                                     for (const auto& tp : partitions) out[tp] = for_version(e, version);
                                     protocol::AddPartitionsToTxnResponse r;
                                     r.results_by_topic_v3_and_below = results(out);
                                     ctx.channel.respond(req, r);
                                   });
  }
  // v4+: several transactions; the response waits for every one.
  auto resp = std::make_shared<protocol::AddPartitionsToTxnResponse>();
  auto remaining = std::make_shared<size_t>(request.transactions.size());
  if (request.transactions.empty()) return ctx.channel.respond(req, *resp);
  resp->results_by_transaction.resize(request.transactions.size());
  for (size_t i = 0; i < request.transactions.size(); i++) {
    const auto& t = request.transactions[i];
    resp->results_by_transaction[i].transactional_id = t.transactional_id;
    std::set<TopicPartition> partitions;
    std::map<TopicPartition, ErrorCode> errors;
    auto finish = [&ctx, req, resp, remaining, i](const std::map<TopicPartition, ErrorCode>& out) {
      resp->results_by_transaction[i].topic_results = results(out);
      if (--*remaining == 0) ctx.channel.respond(req, *resp);
    };
    if (!check_partitions(ctx, t.topics, &partitions, &errors)) {
      finish(errors);
      continue;
    }
    if (t.verify_only) {
      finish(ctx.txns.verify_partitions(t.transactional_id, t.producer_id, t.producer_epoch, partitions));
      continue;
    }
    ctx.txns.add_partitions(t.transactional_id, t.producer_id, t.producer_epoch, partitions, [finish, partitions](ErrorCode e) {
      std::map<TopicPartition, ErrorCode> out;
      for (const auto& tp : partitions) out[tp] = e;
      finish(out);
    });
  }
}

}  // namespace gregor::broker
