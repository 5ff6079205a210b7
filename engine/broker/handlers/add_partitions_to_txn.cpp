// AddPartitionsToTxn: a transactional producer adds partitions to its transaction (v0-3, one
// transaction); brokers verify partitions of several transactions (v4+, verify_only, KIP-890).
// ACLs as Kafka's KafkaApis: Write on the TransactionalId (else every partition
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED) and on each topic for v0-3 (clients); ClusterAction on the
// cluster for v4+ (brokers, CLUSTER_AUTHORIZATION_FAILED), which asks nothing more.
#include <memory>

#include "engine/broker/request_handler.h"
#include "engine/group/offsets_topic.h"
#include "engine/protocol/add_partitions_to_txn.h"
#include "engine/txn/transaction_log.h"

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

// The partitions named, or (as Kafka's KafkaApis) the reason they cannot be added:
// TOPIC_AUTHORIZATION_FAILED for a topic a client (v0-3) may not Write (never an internal topic),
// UNKNOWN_TOPIC_OR_PARTITION for one that does not exist, and OPERATION_NOT_ATTEMPTED for the others.
bool check_partitions(HandlerContext& ctx, const Request& req, const Topics& topics, bool client,
                      std::set<TopicPartition>* partitions, std::map<TopicPartition, ErrorCode>* errors) {
  std::map<std::string, bool> writable;  // asked once per topic, as Kafka's filterByAuthorized
  for (const auto& t : topics) {
    for (int32_t p : t.partitions) partitions->insert(TopicPartition{t.name, p});
    if (client && !writable.count(t.name))
      writable[t.name] = t.name != group::kOffsetsTopic && t.name != txn::kTransactionStateTopic &&
                         authorize(ctx, req, AclOperation::kWrite, AclResourceType::kTopic, t.name);
  }
  bool failed = false;
  for (const auto& tp : *partitions) {
    if (client && !writable[tp.topic])
      (*errors)[tp] = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
    else if (!ctx.metadata.partition(tp))
      (*errors)[tp] = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    else
      continue;
    failed = true;
  }
  if (!failed) return true;
  for (const auto& tp : *partitions)
    if (!errors->count(tp)) (*errors)[tp] = ErrorCode::OPERATION_NOT_ATTEMPTED;
  return false;
}

// Every partition named, with the one error.
std::map<TopicPartition, ErrorCode> all_failed(const Topics& topics, ErrorCode e) {
  std::map<TopicPartition, ErrorCode> out;
  for (const auto& t : topics)
    for (int32_t p : t.partitions) out[TopicPartition{t.name, p}] = e;
  return out;
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
    if (!authorize(ctx, req, AclOperation::kWrite, AclResourceType::kTransactionalId,
                   request.v3_and_below_transactional_id)) {
      resp.results_by_topic_v3_and_below =
          results(all_failed(request.v3_and_below_topics, ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
      return ctx.channel.respond(req, resp);
    }
    if (!check_partitions(ctx, req, request.v3_and_below_topics, true, &partitions, &errors)) {
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
  // v4+: several transactions; the response waits for every one. Only brokers send it: the
  // principal needs ClusterAction on the cluster.
  auto resp = std::make_shared<protocol::AddPartitionsToTxnResponse>();
  if (!authorize_cluster(ctx, req, AclOperation::kClusterAction)) {
    resp->error_code = ErrorCode::CLUSTER_AUTHORIZATION_FAILED;
    return ctx.channel.respond(req, *resp);
  }
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
    if (!check_partitions(ctx, req, t.topics, false, &partitions, &errors)) {
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
