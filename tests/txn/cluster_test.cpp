// The transaction coordinator in a simulated 3-broker cluster, through Kafka's APIs with raw
// requests: FindCoordinator creating __transaction_state, InitProducerId, AddPartitionsToTxn,
// EndTxn and the WriteTxnMarkers it sends, fencing errors by version, Describe/ListTransactions,
// a coordinator failover, and TxnOffsetCommit's pending offsets in the group coordinator.
#include "../broker/cluster_fixture.h"
#include "engine/broker/acl.h"
#include "engine/broker/authorizer.h"
#include "engine/group/offsets_topic.h"
#include "engine/protocol/add_offsets_to_txn.h"
#include "engine/protocol/add_partitions_to_txn.h"
#include "engine/protocol/create_acls.h"
#include "engine/protocol/describe_producers.h"
#include "engine/protocol/describe_transactions.h"
#include "engine/protocol/end_txn.h"
#include "engine/protocol/find_coordinator.h"
#include "engine/protocol/init_producer_id.h"
#include "engine/protocol/list_transactions.h"
#include "engine/protocol/offset_fetch.h"
#include "engine/protocol/txn_offset_commit.h"
#include "engine/txn/transaction_coordinator.h"

using namespace gregor;
using namespace gregor::test;
using protocol::ErrorCode;
using txn::TxnState;

namespace {

std::map<std::string, std::string> txn_config(std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> c{{"transaction.state.log.num.partitions", "4"},
                                       {"offsets.topic.num.partitions", "4"},
                                       {"min.insync.replicas", "2"}};
  for (auto& [k, v] : extra) c[k] = v;
  return c;
}

// Asks a live broker until the transactional id has a coordinator; -1 if none in time.
int32_t find_txn_coordinator(ClusterFixture& f, const std::string& id, int* attempts = nullptr) {
  int32_t node = -1;
  int n = 0;
  f.run_until(
      [&] {
        protocol::FindCoordinatorRequest req;
        req.key = id;
        req.key_type = protocol::kCoordinatorKeyTypeTransaction;
        int32_t any = 1;
        while (any < 3 && !f.cluster.broker(any)) any++;
        auto resp = f.call<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(any, req, 3);
        n++;
        if (resp && resp->error_code == ErrorCode::NONE) {
          node = resp->node_id;
          return true;
        }
        f.sim.run_for(Duration::millis(200));
        return false;
      },
      Duration::seconds(60));
  if (attempts) *attempts = n;
  return node;
}

// Retries what a client retries (the coordinator loading, not yet the leader, markers pending).
template <typename Req, typename Resp>
std::optional<Resp> until_settled(ClusterFixture& f, int32_t broker, const Req& req, int16_t version) {
  std::optional<Resp> out;
  f.run_until(
      [&] {
        out = f.call<Req, Resp>(broker, req, version);
        if (out && (out->error_code == ErrorCode::COORDINATOR_LOAD_IN_PROGRESS || out->error_code == ErrorCode::NOT_COORDINATOR ||
                    out->error_code == ErrorCode::CONCURRENT_TRANSACTIONS)) {
          f.sim.run_for(Duration::millis(100));
          return false;
        }
        return true;
      },
      Duration::seconds(30));
  return out;
}

protocol::InitProducerIdResponse init(ClusterFixture& f, int32_t coordinator, const std::string& id, int16_t version = 4) {
  protocol::InitProducerIdRequest req;
  req.transactional_id = id;
  req.transaction_timeout_ms = 60000;
  auto r = until_settled<protocol::InitProducerIdRequest, protocol::InitProducerIdResponse>(f, coordinator, req, version);
  REQUIRE(r);
  return *r;
}

protocol::AddPartitionsToTxnRequest add_request(const std::string& id, int64_t pid, int16_t epoch, const std::string& topic,
                                                std::vector<int32_t> partitions) {
  protocol::AddPartitionsToTxnRequest req;
  req.v3_and_below_transactional_id = id;
  req.v3_and_below_producer_id = pid;
  req.v3_and_below_producer_epoch = epoch;
  req.v3_and_below_topics.push_back({topic, std::move(partitions)});
  return req;
}

ErrorCode add(ClusterFixture& f, int32_t coordinator, const std::string& id, int64_t pid, int16_t epoch, const std::string& topic,
              std::vector<int32_t> partitions, int16_t version = 3) {
  auto r = f.call<protocol::AddPartitionsToTxnRequest, protocol::AddPartitionsToTxnResponse>(
      coordinator, add_request(id, pid, epoch, topic, std::move(partitions)), version);
  REQUIRE(r);
  REQUIRE(!r->results_by_topic_v3_and_below.empty());
  return r->results_by_topic_v3_and_below[0].results_by_partition.at(0).partition_error_code;
}

ErrorCode end(ClusterFixture& f, int32_t coordinator, const std::string& id, int64_t pid, int16_t epoch, bool commit,
              int16_t version = 3) {
  protocol::EndTxnRequest req;
  req.transactional_id = id;
  req.producer_id = pid;
  req.producer_epoch = epoch;
  req.committed = commit;
  auto r = f.call<protocol::EndTxnRequest, protocol::EndTxnResponse>(coordinator, req, version);
  REQUIRE(r);
  return r->error_code;
}

const txn::TransactionMetadata* md(ClusterFixture& f, int32_t broker, const std::string& id) {
  return f.cluster.broker(broker)->txn_coordinator().transaction(id);
}

}  // namespace

TEST_CASE("txn cluster: FindCoordinator for a transactional id creates __transaction_state and names its leader") {
  ClusterFixture f(31, txn_config());
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
  int attempts = 0;
  const int32_t c = find_txn_coordinator(f, "tx-a", &attempts);
  REQUIRE(c > 0);
  CHECK(attempts > 1);  // COORDINATOR_NOT_AVAILABLE while the topic was made
  CHECK(f.count("txn_topic_create") >= 1);
  const int32_t p = txn::partition_for_transactional_id("tx-a", 4);
  CHECK(f.cluster.leader(TopicPartition{txn::kTransactionStateTopic, p}) == c);
  // Replication factor 3, min.insync.replicas 2 (transaction.state.log.min.isr).
  auto* part = f.replica(c, txn::kTransactionStateTopic, p);
  REQUIRE(part);
  CHECK(part->replicas().size() == 3);
  CHECK(part->config().min_insync_replicas == 2);
  // v4+: several transactional ids at once.
  protocol::FindCoordinatorRequest batched;
  batched.key_type = protocol::kCoordinatorKeyTypeTransaction;
  batched.coordinator_keys = {"tx-a", "tx-b", ""};
  auto r = f.call<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(1, batched, 4);
  REQUIRE(r);
  REQUIRE(r->coordinators.size() == 3);
  CHECK(r->coordinators[0].node_id == c);
  CHECK(r->coordinators[1].error_code == ErrorCode::NONE);
  CHECK(r->coordinators[1].node_id == *f.cluster.leader({txn::kTransactionStateTopic, txn::partition_for_transactional_id("tx-b", 4)}));
  CHECK(r->coordinators[2].error_code == ErrorCode::INVALID_REQUEST);
  // A broker that does not lead the id's partition answers NOT_COORDINATOR.
  const int32_t other = c == 1 ? 2 : 1;
  protocol::InitProducerIdRequest req;
  req.transactional_id = "tx-a";
  req.transaction_timeout_ms = 60000;
  auto wrong = f.call<protocol::InitProducerIdRequest, protocol::InitProducerIdResponse>(other, req, 4);
  REQUIRE(wrong);
  CHECK(wrong->error_code == ErrorCode::NOT_COORDINATOR);
}

TEST_CASE("txn cluster: init add and commit store PrepareCommit and send WriteTxnMarkers to each partition leader") {
  ClusterFixture f(32, txn_config());
  f.create_topic("orders", 3, 3);
  const int32_t c = find_txn_coordinator(f, "tx");
  REQUIRE(c > 0);
  auto i = init(f, c, "tx");
  REQUIRE(i.error_code == ErrorCode::NONE);
  CHECK(i.producer_epoch == 0);
  // Unknown partitions are refused before anything is written.
  auto unknown = f.call<protocol::AddPartitionsToTxnRequest, protocol::AddPartitionsToTxnResponse>(
      c, add_request("tx", i.producer_id, 0, "nope", {0}), 3);
  REQUIRE(unknown);
  CHECK(unknown->results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  REQUIRE(add(f, c, "tx", i.producer_id, 0, "orders", {0, 1, 2}) == ErrorCode::NONE);
  CHECK(md(f, c, "tx")->state == TxnState::kOngoing);
  REQUIRE(end(f, c, "tx", i.producer_id, 0, true) == ErrorCode::NONE);
  const txn::TransactionMetadata* m = md(f, c, "tx");
  REQUIRE(m);
  CHECK(m->state == TxnState::kPrepareCommit);  // until every leader has its marker replicated
  CHECK(add(f, c, "tx", i.producer_id, 0, "orders", {0}) == ErrorCode::CONCURRENT_TRANSACTIONS);
  // Every leader appends its marker, replicates it to the ISR and answers; then CompleteCommit,
  // well within the coordinator's request timeout.
  const Time ended = f.sim.now();
  REQUIRE(f.run_until([&] { return md(f, c, "tx")->state == TxnState::kCompleteCommit; }, Duration::seconds(10)));
  CHECK(f.sim.now() - ended < Duration::seconds(5));
  CHECK(f.count("txn_marker_error") == 0);
  CHECK(f.count("txn_marker_append") == 3);
  // A commit marker went to the leader of each partition.
  std::set<int32_t> leaders, sent_to;
  for (int p = 0; p < 3; p++) leaders.insert(f.leader_of("orders", p));
  for (const auto& e : f.events)
    if (const auto* s = e.as<ev::TxnMarkerSend>(); s && e.node.value == c) {
      CHECK(s->committed);
      CHECK(s->producer_id == i.producer_id);
      sent_to.insert(s->broker);
    }
  CHECK(sent_to == leaders);
  // The next transaction can start at once.
  CHECK(add(f, c, "tx", i.producer_id, 0, "orders", {1}) == ErrorCode::NONE);
  // The state changes are traced and replicated: every replica of the id's partition has them.
  CHECK(f.count("txn_state_change", c) >= 3);
}

TEST_CASE("txn cluster: a fenced producer hears PRODUCER_FENCED or INVALID_PRODUCER_EPOCH by version") {
  ClusterFixture f(33, txn_config());
  f.create_topic("orders", 1, 3);
  const int32_t c = find_txn_coordinator(f, "tx");
  REQUIRE(c > 0);
  auto first = init(f, c, "tx");
  REQUIRE(first.error_code == ErrorCode::NONE);
  auto second = init(f, c, "tx");
  REQUIRE(second.error_code == ErrorCode::NONE);
  CHECK(second.producer_id == first.producer_id);
  CHECK(second.producer_epoch == first.producer_epoch + 1);
  CHECK(add(f, c, "tx", first.producer_id, first.producer_epoch, "orders", {0}, 3) == ErrorCode::PRODUCER_FENCED);
  CHECK(add(f, c, "tx", first.producer_id, first.producer_epoch, "orders", {0}, 1) == ErrorCode::INVALID_PRODUCER_EPOCH);
  REQUIRE(add(f, c, "tx", second.producer_id, second.producer_epoch, "orders", {0}) == ErrorCode::NONE);
  CHECK(end(f, c, "tx", first.producer_id, first.producer_epoch, true, 3) == ErrorCode::PRODUCER_FENCED);
  CHECK(end(f, c, "tx", first.producer_id, first.producer_epoch, true, 1) == ErrorCode::INVALID_PRODUCER_EPOCH);
  CHECK(end(f, c, "tx", 99999, second.producer_epoch, true) == ErrorCode::INVALID_PRODUCER_ID_MAPPING);
  // transaction.timeout.ms above transaction.max.timeout.ms.
  protocol::InitProducerIdRequest big;
  big.transactional_id = "tx2";
  big.transaction_timeout_ms = 900001;
  auto r = f.call<protocol::InitProducerIdRequest, protocol::InitProducerIdResponse>(c, big, 4);
  REQUIRE(r);
  CHECK(r->error_code == ErrorCode::INVALID_TRANSACTION_TIMEOUT);
  // AddOffsetsToTxn adds the group's __consumer_offsets partition.
  protocol::AddOffsetsToTxnRequest offsets;
  offsets.transactional_id = "tx";
  offsets.producer_id = second.producer_id;
  offsets.producer_epoch = second.producer_epoch;
  offsets.group_id = "g";
  auto ao = f.call<protocol::AddOffsetsToTxnRequest, protocol::AddOffsetsToTxnResponse>(c, offsets, 3);
  REQUIRE(ao);
  CHECK(ao->error_code == ErrorCode::NONE);
  CHECK(md(f, c, "tx")->partitions.count(TopicPartition{group::kOffsetsTopic, group::partition_for_group("g", 4)}) == 1);
}

TEST_CASE("txn cluster: Describe and ListTransactions answer from the coordinator") {
  ClusterFixture f(34, txn_config());
  f.create_topic("orders", 2, 3);
  const int32_t c = find_txn_coordinator(f, "tx");
  REQUIRE(c > 0);
  auto i = init(f, c, "tx");
  REQUIRE(add(f, c, "tx", i.producer_id, i.producer_epoch, "orders", {1}) == ErrorCode::NONE);
  protocol::DescribeTransactionsRequest d;
  d.transactional_ids = {"tx", "nobody"};
  auto dr = f.call<protocol::DescribeTransactionsRequest, protocol::DescribeTransactionsResponse>(c, d, 0);
  REQUIRE(dr);
  REQUIRE(dr->transaction_states.size() == 2);
  CHECK(dr->transaction_states[0].error_code == ErrorCode::NONE);
  CHECK(dr->transaction_states[0].transaction_state == "Ongoing");
  CHECK(dr->transaction_states[0].producer_id == i.producer_id);
  REQUIRE(dr->transaction_states[0].topics.size() == 1);
  CHECK(dr->transaction_states[0].topics[0].topic == "orders");
  CHECK(dr->transaction_states[1].error_code ==
        (txn::partition_for_transactional_id("nobody", 4) == txn::partition_for_transactional_id("tx", 4) ||
                 f.cluster.leader({txn::kTransactionStateTopic, txn::partition_for_transactional_id("nobody", 4)}) == c
             ? ErrorCode::TRANSACTIONAL_ID_NOT_FOUND
             : ErrorCode::NOT_COORDINATOR));
  protocol::ListTransactionsRequest l;
  l.state_filters = {"Ongoing"};
  auto lr = f.call<protocol::ListTransactionsRequest, protocol::ListTransactionsResponse>(c, l, 1);
  REQUIRE(lr);
  REQUIRE(lr->transaction_states.size() == 1);
  CHECK(lr->transaction_states[0].transactional_id == "tx");
  CHECK(lr->transaction_states[0].transaction_state == "Ongoing");
}

TEST_CASE("txn cluster: the new leader of a __transaction_state partition loads it and resends the markers") {
  ClusterFixture f(35, txn_config());
  f.create_topic("orders", 2, 3);
  const int32_t c = find_txn_coordinator(f, "tx");
  REQUIRE(c > 0);
  auto i = init(f, c, "tx");
  REQUIRE(add(f, c, "tx", i.producer_id, i.producer_epoch, "orders", {0, 1}) == ErrorCode::NONE);
  REQUIRE(end(f, c, "tx", i.producer_id, i.producer_epoch, false) == ErrorCode::NONE);
  f.sim.run_for(Duration::millis(200));
  // The coordinator dies; the new leader of the id's partition loads the transaction.
  f.sim.crash(NodeId{c});
  const int32_t p = txn::partition_for_transactional_id("tx", 4);
  int32_t next = -1;
  REQUIRE(f.run_until(
      [&] {
        auto l = f.cluster.leader({txn::kTransactionStateTopic, p});
        if (!l || *l < 0 || *l == c) return false;
        next = *l;
        return md(f, next, "tx") != nullptr;
      },
      Duration::seconds(60)));
  const txn::TransactionMetadata* m = md(f, next, "tx");
  CHECK(m->producer_id == i.producer_id);
  CHECK((m->state == TxnState::kPrepareAbort || m->state == TxnState::kCompleteAbort));
  f.sim.run_for(Duration::millis(500));
  bool resent = false;
  for (const auto& e : f.events)
    if (const auto* s = e.as<ev::TxnMarkerSend>(); s && e.node.value == next && !s->committed) resent = true;
  CHECK((resent || m->state == TxnState::kCompleteAbort));
  CHECK(find_txn_coordinator(f, "tx") == next);
}

TEST_CASE("txn cluster: TxnOffsetCommit offsets stay pending until complete_txn_offsets") {
  ClusterFixture f(36, txn_config());
  f.create_topic("orders", 2, 3);
  // The group's coordinator.
  int32_t gc = -1;
  REQUIRE(f.run_until([&] {
    protocol::FindCoordinatorRequest req;
    req.key = "g";
    auto r = f.call<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(1, req, 3);
    if (r && r->error_code == ErrorCode::NONE) {
      gc = r->node_id;
      return true;
    }
    f.sim.run_for(Duration::millis(200));
    return false;
  }));
  protocol::TxnOffsetCommitRequest commit;
  commit.transactional_id = "tx";
  commit.group_id = "g";
  commit.producer_id = 5000;
  commit.producer_epoch = 0;
  commit.topics.push_back({"orders", {{.partition_index = 0, .committed_offset = 42, .committed_metadata = std::nullopt}}});
  std::optional<protocol::TxnOffsetCommitResponse> cr;
  REQUIRE(f.run_until([&] {
    cr = f.call<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse>(gc, commit, 3);
    if (cr && cr->topics[0].partitions[0].error_code == ErrorCode::COORDINATOR_LOAD_IN_PROGRESS) {
      f.sim.run_for(Duration::millis(100));
      return false;
    }
    return true;
  }));
  REQUIRE(cr->topics[0].partitions[0].error_code == ErrorCode::NONE);
  // Pending: invisible to OffsetFetch, UNSTABLE_OFFSET_COMMIT with require_stable (v7+).
  protocol::OffsetFetchRequest fetch;
  fetch.group_id = "g";
  fetch.topics = std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic>{{"orders", {0}}};
  auto plain = f.call<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(gc, fetch, 6);
  REQUIRE(plain);
  CHECK(plain->topics[0].partitions[0].committed_offset == -1);
  fetch.require_stable = true;
  auto stable = f.call<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(gc, fetch, 7);
  REQUIRE(stable);
  CHECK(stable->topics[0].partitions[0].error_code == ErrorCode::UNSTABLE_OFFSET_COMMIT);
  // The transaction's marker (the lead wires ReplicaManager's marker listener to this).
  const int32_t op = group::partition_for_group("g", 4);
  auto& gcoord = f.cluster.broker(gc)->group_coordinator();
  gcoord.complete_txn_offsets(op, 5000, 0, true);
  auto after = f.call<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(gc, fetch, 7);
  REQUIRE(after);
  CHECK(after->topics[0].partitions[0].error_code == ErrorCode::NONE);
  CHECK(after->topics[0].partitions[0].committed_offset == 42);
  // An aborted transaction's offsets are dropped.
  commit.producer_id = 5001;
  commit.topics[0].partitions[0].committed_offset = 99;
  cr = f.call<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse>(gc, commit, 3);
  REQUIRE(cr);
  REQUIRE(cr->topics[0].partitions[0].error_code == ErrorCode::NONE);
  gcoord.complete_txn_offsets(op, 5001, 0, false);
  after = f.call<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(gc, fetch, 7);
  CHECK(after->topics[0].partitions[0].committed_offset == 42);
  // A second commit of the same producer continues its sequence (appended, not a duplicate).
  commit.producer_id = 5000;
  commit.topics[0].partitions[0].committed_offset = 50;
  cr = f.call<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse>(gc, commit, 3);
  REQUIRE(cr->topics[0].partitions[0].error_code == ErrorCode::NONE);
  commit.topics[0].partitions[0].committed_offset = 60;
  cr = f.call<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse>(gc, commit, 3);
  REQUIRE(cr->topics[0].partitions[0].error_code == ErrorCode::NONE);
  gcoord.complete_txn_offsets(op, 5000, 0, true);
  after = f.call<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(gc, fetch, 7);
  CHECK(after->topics[0].partitions[0].committed_offset == 60);
}

TEST_CASE("txn cluster: pending transactional offsets survive a group coordinator failover") {
  ClusterFixture f(37, txn_config());
  f.create_topic("orders", 1, 3);
  int32_t gc = -1;
  REQUIRE(f.run_until([&] {
    protocol::FindCoordinatorRequest req;
    req.key = "g";
    auto r = f.call<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(1, req, 3);
    if (r && r->error_code == ErrorCode::NONE) {
      gc = r->node_id;
      return true;
    }
    f.sim.run_for(Duration::millis(200));
    return false;
  }));
  protocol::TxnOffsetCommitRequest commit;
  commit.transactional_id = "tx";
  commit.group_id = "g";
  commit.producer_id = 6000;
  commit.producer_epoch = 0;
  commit.topics.push_back({"orders", {{.partition_index = 0, .committed_offset = 7, .committed_metadata = std::nullopt}}});
  std::optional<protocol::TxnOffsetCommitResponse> cr;
  REQUIRE(f.run_until([&] {
    cr = f.call<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse>(gc, commit, 3);
    if (cr && cr->topics[0].partitions[0].error_code == ErrorCode::COORDINATOR_LOAD_IN_PROGRESS) {
      f.sim.run_for(Duration::millis(100));
      return false;
    }
    return true;
  }));
  REQUIRE(cr->topics[0].partitions[0].error_code == ErrorCode::NONE);
  f.sim.run_for(Duration::millis(500));  // replicated to the followers

  f.sim.crash(NodeId{gc});
  const int32_t op = group::partition_for_group("g", 4);
  int32_t next = -1;
  REQUIRE(f.run_until(
      [&] {
        auto l = f.cluster.leader({group::kOffsetsTopic, op});
        if (!l || *l < 0 || *l == gc) return false;
        next = *l;
        return f.cluster.broker(next)->group_coordinator().group("g") != nullptr &&
               !f.cluster.broker(next)->group_coordinator().is_loading(op);
      },
      Duration::seconds(60)));
  protocol::OffsetFetchRequest fetch;
  fetch.group_id = "g";
  fetch.require_stable = true;
  fetch.topics = std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopic>{{"orders", {0}}};
  auto stable = f.call<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(next, fetch, 7);
  REQUIRE(stable);
  CHECK(stable->topics[0].partitions[0].error_code == ErrorCode::UNSTABLE_OFFSET_COMMIT);
  // The same producer commits again: its sequence in the partition continues (read by the loader).
  commit.topics[0].partitions[0].committed_offset = 8;
  cr = f.call<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse>(next, commit, 3);
  REQUIRE(cr);
  CHECK(cr->topics[0].partitions[0].error_code == ErrorCode::NONE);
  f.cluster.broker(next)->group_coordinator().complete_txn_offsets(op, 6000, 0, true);
  auto after = f.call<protocol::OffsetFetchRequest, protocol::OffsetFetchResponse>(next, fetch, 7);
  REQUIRE(after);
  CHECK(after->topics[0].partitions[0].error_code == ErrorCode::NONE);
  CHECK(after->topics[0].partitions[0].committed_offset == 8);
}

// --- ACLs (Kafka 3.9's KafkaApis checks). In the simulator every connection is User:ANONYMOUS;
// with allow.everyone.if.no.acl.found=true a resource with an ACL for another principal only is
// closed to it, and opened again by an Allow for User:ANONYMOUS. The cluster keeps no ACL, so the
// brokers' own requests (ClusterAction) pass.

namespace {

using broker::AclOperation;
using broker::AclPatternType;
using broker::AclPermission;
using broker::AclResourceType;

const std::string kAnonymous = "User:ANONYMOUS";

std::map<std::string, std::string> acl_txn_config() {
  return txn_config({{"authorizer.class.name", "kafka.security.authorizer.AclAuthorizer"},
                     {"allow.everyone.if.no.acl.found", "true"}});
}

protocol::CreateAclsRequest::AclCreation acl(AclResourceType type, const std::string& name, const std::string& principal,
                                             AclOperation op, AclPermission permission) {
  protocol::CreateAclsRequest::AclCreation c;
  c.resource_type = static_cast<int8_t>(type);
  c.resource_name = name;
  c.resource_pattern_type = static_cast<int8_t>(AclPatternType::kLiteral);
  c.principal = principal;
  c.host = "*";
  c.operation = static_cast<int8_t>(op);
  c.permission_type = static_cast<int8_t>(permission);
  return c;
}

// Creates the ACLs through broker 1 and waits until every broker's cache holds `entries` entries.
void create_acls(ClusterFixture& f, std::vector<protocol::CreateAclsRequest::AclCreation> creations, size_t entries) {
  protocol::CreateAclsRequest req;
  req.creations = std::move(creations);
  auto resp = f.call<protocol::CreateAclsRequest, protocol::CreateAclsResponse>(1, req, 3);
  REQUIRE(resp);
  for (const auto& r : resp->results) CHECK(r.error_code == ErrorCode::NONE);
  REQUIRE(f.run_until([&] {
    for (int32_t b : {1, 2, 3}) {
      size_t n = 0;
      for (const auto& [pattern, acls] : f.cluster.broker(b)->authorizer().cache().all()) n += acls.size();
      if (n != entries) return false;
    }
    return true;
  }));
}

protocol::TxnOffsetCommitRequest txn_commit(const std::string& id, const std::string& group, std::vector<std::string> topics) {
  protocol::TxnOffsetCommitRequest req;
  req.transactional_id = id;
  req.group_id = group;
  req.producer_id = 7;
  req.producer_epoch = 0;
  for (const auto& t : topics)
    req.topics.push_back({t, {{.partition_index = 0, .committed_offset = 1, .committed_metadata = std::nullopt}}});
  return req;
}

}  // namespace

TEST_CASE("txn acl: EndTxn and AddPartitionsToTxn need Write on the TransactionalId and AddPartitionsToTxn on each topic", "[acl]") {
  ClusterFixture f(41, acl_txn_config());
  f.create_topic("orders", 1, 3);
  f.create_topic("secret", 1, 3);
  const int32_t c = find_txn_coordinator(f, "tx-acl");
  REQUIRE(c > 0);
  // tx-acl and secret now have ACLs for alice only: closed to User:ANONYMOUS.
  create_acls(f,
              {acl(AclResourceType::kTransactionalId, "tx-acl", "User:alice", AclOperation::kWrite, AclPermission::kAllow),
               acl(AclResourceType::kTopic, "secret", "User:alice", AclOperation::kWrite, AclPermission::kAllow)},
              2);
  const size_t denied_before = f.count("authorization_denied");
  auto denied_add = f.call<protocol::AddPartitionsToTxnRequest, protocol::AddPartitionsToTxnResponse>(
      c, add_request("tx-acl", 0, 0, "orders", {0}), 3);
  REQUIRE(denied_add);
  CHECK(denied_add->results_by_topic_v3_and_below.at(0).results_by_partition.at(0).partition_error_code ==
        ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  CHECK(end(f, c, "tx-acl", 0, 0, true) == ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  CHECK(f.count("authorization_denied") >= denied_before + 2);
  CHECK(md(f, c, "tx-acl") == nullptr);  // nothing reached the coordinator
  // An Allow for User:ANONYMOUS opens the transactional id.
  create_acls(f,
              {acl(AclResourceType::kTransactionalId, "tx-acl", kAnonymous, AclOperation::kWrite, AclPermission::kAllow)}, 3);
  auto i = init(f, c, "tx-acl");
  REQUIRE(i.error_code == ErrorCode::NONE);
  // A topic it may not Write fails the whole request: the others are not attempted.
  auto mixed_req = add_request("tx-acl", i.producer_id, i.producer_epoch, "orders", {0});
  mixed_req.v3_and_below_topics.push_back({"secret", {0}});
  auto mixed = f.call<protocol::AddPartitionsToTxnRequest, protocol::AddPartitionsToTxnResponse>(c, mixed_req, 3);
  REQUIRE(mixed);
  REQUIRE(mixed->results_by_topic_v3_and_below.size() == 2);
  CHECK(mixed->results_by_topic_v3_and_below[0].name == "orders");
  CHECK(mixed->results_by_topic_v3_and_below[0].results_by_partition.at(0).partition_error_code ==
        ErrorCode::OPERATION_NOT_ATTEMPTED);
  CHECK(mixed->results_by_topic_v3_and_below[1].name == "secret");
  CHECK(mixed->results_by_topic_v3_and_below[1].results_by_partition.at(0).partition_error_code ==
        ErrorCode::TOPIC_AUTHORIZATION_FAILED);
  CHECK(md(f, c, "tx-acl")->partitions.empty());
  REQUIRE(add(f, c, "tx-acl", i.producer_id, i.producer_epoch, "orders", {0}) == ErrorCode::NONE);
  CHECK(end(f, c, "tx-acl", i.producer_id, i.producer_epoch, true) == ErrorCode::NONE);
}

TEST_CASE("txn acl: TxnOffsetCommit and AddOffsetsToTxn need Read on the group and TxnOffsetCommit Read on each topic", "[acl]") {
  ClusterFixture f(42, acl_txn_config());
  f.create_topic("orders", 1, 3);
  f.create_topic("secret", 1, 3);
  REQUIRE(f.run_until([&] { return f.cluster.ready(); }));
  create_acls(f,
              {acl(AclResourceType::kGroup, "closed", kAnonymous, AclOperation::kRead, AclPermission::kDeny),
               acl(AclResourceType::kTopic, "secret", kAnonymous, AclOperation::kRead, AclPermission::kDeny),
               acl(AclResourceType::kTransactionalId, "tx-no", kAnonymous, AclOperation::kWrite, AclPermission::kDeny)},
              3);
  // Refused before any coordinator is asked, so any broker answers.
  auto no_id = f.call<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse>(
      2, txn_commit("tx-no", "closed", {"orders", "secret"}), 3);
  REQUIRE(no_id);
  REQUIRE(no_id->topics.size() == 2);
  for (const auto& t : no_id->topics) CHECK(t.partitions.at(0).error_code == ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  auto closed = f.call<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse>(
      2, txn_commit("tx", "closed", {"orders", "secret"}), 3);
  REQUIRE(closed);
  REQUIRE(closed->topics.size() == 2);
  for (const auto& t : closed->topics) CHECK(t.partitions.at(0).error_code == ErrorCode::GROUP_AUTHORIZATION_FAILED);
  // A topic it may not Read fails alone; the others go on to the group coordinator.
  auto open = f.call<protocol::TxnOffsetCommitRequest, protocol::TxnOffsetCommitResponse>(
      2, txn_commit("tx", "open", {"orders", "secret"}), 3);
  REQUIRE(open);
  REQUIRE(open->topics.size() == 2);
  std::map<std::string, ErrorCode> by_topic;
  for (const auto& t : open->topics) by_topic[t.name] = t.partitions.at(0).error_code;
  CHECK(by_topic.at("secret") == ErrorCode::TOPIC_AUTHORIZATION_FAILED);
  CHECK(by_topic.at("orders") != ErrorCode::TOPIC_AUTHORIZATION_FAILED);
  CHECK(by_topic.at("orders") != ErrorCode::GROUP_AUTHORIZATION_FAILED);
  protocol::AddOffsetsToTxnRequest offsets;
  offsets.transactional_id = "tx";
  offsets.producer_id = 7;
  offsets.producer_epoch = 0;
  offsets.group_id = "closed";
  auto ao = f.call<protocol::AddOffsetsToTxnRequest, protocol::AddOffsetsToTxnResponse>(2, offsets, 3);
  REQUIRE(ao);
  CHECK(ao->error_code == ErrorCode::GROUP_AUTHORIZATION_FAILED);
  offsets.transactional_id = "tx-no";
  ao = f.call<protocol::AddOffsetsToTxnRequest, protocol::AddOffsetsToTxnResponse>(2, offsets, 3);
  REQUIRE(ao);
  CHECK(ao->error_code == ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
}

TEST_CASE("txn acl: ListTransactions lists only the ids the principal may describe and Describe checks each id and topic", "[acl]") {
  ClusterFixture f(43, acl_txn_config());
  f.create_topic("orders", 1, 3);
  f.create_topic("secret", 1, 3);
  const int32_t seen_c = find_txn_coordinator(f, "tx-seen");
  const int32_t hidden_c = find_txn_coordinator(f, "tx-hidden");
  REQUIRE(seen_c > 0);
  REQUIRE(hidden_c > 0);
  auto seen = init(f, seen_c, "tx-seen");
  REQUIRE(init(f, hidden_c, "tx-hidden").error_code == ErrorCode::NONE);
  REQUIRE(add(f, seen_c, "tx-seen", seen.producer_id, seen.producer_epoch, "orders", {0}) == ErrorCode::NONE);
  REQUIRE(add(f, seen_c, "tx-seen", seen.producer_id, seen.producer_epoch, "secret", {0}) == ErrorCode::NONE);
  create_acls(f,
              {acl(AclResourceType::kTransactionalId, "tx-hidden", kAnonymous, AclOperation::kDescribe, AclPermission::kDeny),
               acl(AclResourceType::kTopic, "secret", kAnonymous, AclOperation::kDescribe, AclPermission::kDeny),
               acl(AclResourceType::kTopic, "secret", kAnonymous, AclOperation::kRead, AclPermission::kDeny)},
              3);
  const size_t denied_before = f.count("authorization_denied");
  std::set<std::string> listed;
  for (int32_t b : {1, 2, 3}) {
    auto lr = f.call<protocol::ListTransactionsRequest, protocol::ListTransactionsResponse>(b, protocol::ListTransactionsRequest{}, 1);
    REQUIRE(lr);
    CHECK(lr->error_code == ErrorCode::NONE);
    for (const auto& s : lr->transaction_states) listed.insert(s.transactional_id);
  }
  CHECK(listed.count("tx-seen") == 1);
  CHECK(listed.count("tx-hidden") == 0);
  CHECK(f.count("authorization_denied") == denied_before);  // leaving out is no denial
  protocol::DescribeTransactionsRequest d;
  d.transactional_ids = {"tx-hidden"};
  auto hidden = f.call<protocol::DescribeTransactionsRequest, protocol::DescribeTransactionsResponse>(hidden_c, d, 0);
  REQUIRE(hidden);
  REQUIRE(hidden->transaction_states.size() == 1);
  CHECK(hidden->transaction_states[0].error_code == ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  CHECK(hidden->transaction_states[0].transactional_id == "tx-hidden");
  d.transactional_ids = {"tx-seen"};
  auto shown = f.call<protocol::DescribeTransactionsRequest, protocol::DescribeTransactionsResponse>(seen_c, d, 0);
  REQUIRE(shown);
  REQUIRE(shown->transaction_states.size() == 1);
  CHECK(shown->transaction_states[0].error_code == ErrorCode::NONE);
  REQUIRE(shown->transaction_states[0].topics.size() == 1);  // secret is left out
  CHECK(shown->transaction_states[0].topics[0].topic == "orders");
  // DescribeProducers needs Read on the topic.
  protocol::DescribeProducersRequest dp;
  dp.topics.push_back({.name = "secret", .partition_indexes = {0}});
  auto producers = f.call<protocol::DescribeProducersRequest, protocol::DescribeProducersResponse>(f.leader_of("secret", 0), dp, 0);
  REQUIRE(producers);
  CHECK(producers->topics.at(0).partitions.at(0).error_code == ErrorCode::TOPIC_AUTHORIZATION_FAILED);
}
