// Gregor's own transactional producer (engine/client/producer.h) against a simulated 3-broker
// cluster: init, commit, abort, offsets in a transaction, and a zombie fenced by a new instance
// with the same transactional.id.
#include "../broker/cluster_fixture.h"
#include "engine/client/producer.h"

using namespace gregor;
using namespace gregor::test;
using protocol::ErrorCode;

namespace {

std::map<std::string, std::string> txn_cluster_config() {
  return {{"transaction.state.log.num.partitions", "4"}, {"offsets.topic.num.partitions", "4"}, {"min.insync.replicas", "2"}};
}

struct ProducerHost final : Node {
  ProducerHost(Runtime& rt, client::ProducerConfig c) : producer(rt, std::move(c)) {}
  void start() override { producer.start(); }
  void on_message(NodeId from, Bytes frame) override { producer.on_message(from, frame); }
  void on_disconnect(NodeId peer) override { producer.on_disconnect(peer); }
  client::Producer producer;
};

client::Producer& add_producer(ClusterFixture& f, int32_t node, const std::string& transactional_id) {
  client::ProducerConfig pc;
  pc.client_id = "txn-producer-" + std::to_string(node);
  pc.bootstrap_servers = f.cluster.broker_ids();
  pc.transactional_id = transactional_id;
  const NodeId id{sim::kFirstClientNodeId + node};
  f.sim.add_node(id, "producer", [pc](Runtime& rt) { return std::make_unique<ProducerHost>(rt, pc); });
  return f.sim.node_as<ProducerHost>(id)->producer;
}

// Runs until the callback answered; its error.
ErrorCode wait_for(ClusterFixture& f, std::optional<ErrorCode>& result, Duration limit = Duration::seconds(60)) {
  REQUIRE(f.run_until([&] { return result.has_value(); }, limit));
  return *result;
}

ErrorCode init(ClusterFixture& f, client::Producer& p) {
  std::optional<ErrorCode> r;
  p.init_transactions([&](ErrorCode e) { r = e; });
  return wait_for(f, r);
}

// Sends `n` records round robin over `partitions` partitions of `topic`; counts their answers.
void send_records(client::Producer& p, const std::string& topic, int n, int partitions, std::vector<ErrorCode>& answers) {
  for (int i = 0; i < n; i++) {
    client::ProducerRecord r;
    r.topic = topic;
    r.partition = i % partitions;
    r.value = to_bytes("v" + std::to_string(i));
    p.send(std::move(r), [&answers](const client::RecordMetadata& md) { answers.push_back(md.error); });
  }
}

ErrorCode end(ClusterFixture& f, client::Producer& p, bool commit) {
  std::optional<ErrorCode> r;
  if (commit)
    p.commit_transaction([&](ErrorCode e) { r = e; });
  else
    p.abort_transaction([&](ErrorCode e) { r = e; });
  return wait_for(f, r);
}

// Waits until every partition's leader has its LSO at its HW (no transaction open there).
bool all_stable(ClusterFixture& f, const std::string& topic, int partitions) {
  return f.run_until(
      [&] {
        for (int p = 0; p < partitions; p++) {
          auto* part = f.replica(f.leader_of(topic, p), topic, p);
          if (!part) return false;
          auto lso = part->last_stable_offset();
          if (!lso || *lso != part->high_watermark()) return false;
        }
        return true;
      },
      Duration::seconds(30));
}

}  // namespace

TEST_CASE("txn producer: commits then aborts a transaction over three partitions") {
  ClusterFixture f(41, txn_cluster_config());
  f.create_topic("orders", 3, 3);
  auto& p = add_producer(f, 1, "tx-orders");
  std::vector<ErrorCode> answers;
  // Outside a transaction a record is refused.
  REQUIRE(p.begin_transaction() == ErrorCode::INVALID_TXN_STATE);  // not initialised yet
  REQUIRE(init(f, p) == ErrorCode::NONE);
  CHECK(p.producer_id() >= 0);
  send_records(p, "orders", 1, 1, answers);
  REQUIRE(answers.size() == 1);
  CHECK(answers[0] == ErrorCode::INVALID_TXN_STATE);
  answers.clear();

  REQUIRE(p.begin_transaction() == ErrorCode::NONE);
  CHECK(p.begin_transaction() == ErrorCode::INVALID_TXN_STATE);  // one at a time
  send_records(p, "orders", 9, 3, answers);
  // The commit flushes what is queued before EndTxn: every record answered before it returns.
  REQUIRE(end(f, p, true) == ErrorCode::NONE);
  REQUIRE(answers.size() == 9);
  for (ErrorCode e : answers) CHECK(e == ErrorCode::NONE);
  CHECK(f.count("txn_begin") == 1);
  CHECK(f.count("txn_commit") == 1);
  for (const auto& e : f.events)
    if (const auto* c = e.as<ev::TxnCommit>()) {
      CHECK(c->outcome == "NONE");
      CHECK(c->partitions == "orders-0,orders-1,orders-2");
      CHECK(c->transactional_id == "tx-orders");
    }
  REQUIRE(all_stable(f, "orders", 3));
  CHECK(f.count("txn_marker_append") >= 3);

  // The next transaction aborts: the records acknowledged before the abort stay in the log,
  // behind an abort marker.
  answers.clear();
  REQUIRE(p.begin_transaction() == ErrorCode::NONE);
  send_records(p, "orders", 4, 2, answers);
  REQUIRE(f.run_until([&] { return answers.size() == 4; }));
  REQUIRE(end(f, p, false) == ErrorCode::NONE);
  CHECK(f.count("txn_abort") == 1);
  for (const auto& e : f.events)
    if (const auto* a = e.as<ev::TxnAbort>()) {
      CHECK(a->outcome == "NONE");
      CHECK(a->partitions == "orders-0,orders-1");
    }
  REQUIRE(all_stable(f, "orders", 3));

  // Abort drops what was not sent yet: its callbacks fail, nothing reaches the log.
  answers.clear();
  REQUIRE(p.begin_transaction() == ErrorCode::NONE);
  send_records(p, "orders", 3, 3, answers);
  REQUIRE(end(f, p, false) == ErrorCode::NONE);
  REQUIRE(answers.size() == 3);
  for (ErrorCode e : answers) CHECK(e == ErrorCode::TRANSACTION_ABORTABLE);
  // An empty transaction ends without asking the coordinator.
  REQUIRE(p.begin_transaction() == ErrorCode::NONE);
  REQUIRE(end(f, p, true) == ErrorCode::NONE);
  CHECK(f.count("checker_violation") == 0);
}

TEST_CASE("txn producer: offsets sent to the transaction are committed with it") {
  ClusterFixture f(42, txn_cluster_config());
  f.create_topic("orders", 2, 3);
  auto& p = add_producer(f, 1, "tx-offsets");
  REQUIRE(init(f, p) == ErrorCode::NONE);
  REQUIRE(p.begin_transaction() == ErrorCode::NONE);
  std::vector<ErrorCode> answers;
  send_records(p, "orders", 2, 2, answers);
  std::optional<ErrorCode> offsets;
  p.send_offsets_to_transaction({{"input", 0, 17}, {"input", 1, 4}}, "g", [&](ErrorCode e) { offsets = e; });
  REQUIRE(wait_for(f, offsets) == ErrorCode::NONE);
  REQUIRE(end(f, p, true) == ErrorCode::NONE);
  CHECK(answers.size() == 2);
  // The group's offsets partition took part in the transaction: markers went there too.
  bool offsets_marker = false;
  for (const auto& e : f.events)
    if (const auto* m = e.as<ev::TxnMarkerSend>(); m && m->partitions.find("__consumer_offsets") != std::string::npos)
      offsets_marker = offsets_marker || m->committed;
  CHECK(offsets_marker);
}

TEST_CASE("txn producer: a second instance with the same transactional id fences the first") {
  ClusterFixture f(43, txn_cluster_config());
  f.create_topic("orders", 2, 3);
  auto& zombie = add_producer(f, 1, "tx-same");
  REQUIRE(init(f, zombie) == ErrorCode::NONE);
  REQUIRE(zombie.begin_transaction() == ErrorCode::NONE);
  std::vector<ErrorCode> zombie_answers;
  send_records(zombie, "orders", 2, 2, zombie_answers);
  REQUIRE(f.run_until([&] { return zombie_answers.size() == 2; }));

  // The new instance bumps the epoch; the coordinator aborts what the zombie left open.
  auto& fresh = add_producer(f, 2, "tx-same");
  REQUIRE(init(f, fresh) == ErrorCode::NONE);
  CHECK(fresh.producer_id() == zombie.producer_id());
  CHECK(fresh.producer_epoch() > zombie.producer_epoch());

  // The zombie learns it at its next request to the coordinator, and is done for good.
  const ErrorCode fenced = end(f, zombie, true);
  CHECK((fenced == ErrorCode::PRODUCER_FENCED || fenced == ErrorCode::INVALID_PRODUCER_EPOCH));
  CHECK(zombie.fatal_error() == fenced);
  CHECK(zombie.begin_transaction() == fenced);
  std::vector<ErrorCode> later;
  send_records(zombie, "orders", 1, 1, later);
  REQUIRE(later.size() == 1);
  CHECK(later[0] == fenced);
  std::optional<ErrorCode> abort_result;
  zombie.abort_transaction([&](ErrorCode e) { abort_result = e; });
  REQUIRE(abort_result);
  CHECK(*abort_result == fenced);

  // The new instance works.
  REQUIRE(fresh.begin_transaction() == ErrorCode::NONE);
  std::vector<ErrorCode> answers;
  send_records(fresh, "orders", 4, 2, answers);
  REQUIRE(end(f, fresh, true) == ErrorCode::NONE);
  for (ErrorCode e : answers) CHECK(e == ErrorCode::NONE);
  REQUIRE(all_stable(f, "orders", 2));
}

TEST_CASE("txn producer: on transaction.version 2 it learns the feature and takes the bumped epoch after every EndTxn") {
  auto config = txn_cluster_config();
  config["transaction.version"] = "2";
  ClusterFixture f(44, config);
  f.create_topic("orders", 3, 3);
  auto& p = add_producer(f, 1, "tx-v2");
  REQUIRE(init(f, p) == ErrorCode::NONE);
  std::vector<int32_t> epochs;  // of each txn_begin
  for (int round = 0; round < 4; round++) {
    INFO("transaction " << round);
    std::vector<ErrorCode> answers;
    REQUIRE(p.begin_transaction() == ErrorCode::NONE);
    send_records(p, "orders", 6, 3, answers);
    // The third one aborts, once its records are written (an abort with nothing added to the
    // transaction sends no EndTxn, and bumps nothing).
    if (round == 2) REQUIRE(f.run_until([&] { return answers.size() == 6; }));
    REQUIRE(end(f, p, round != 2) == ErrorCode::NONE);
    REQUIRE(answers.size() == 6);
    for (ErrorCode e : answers) CHECK(e == ErrorCode::NONE);
  }
  for (const auto& e : f.events)
    if (const auto* b = e.as<ev::TxnBegin>()) epochs.push_back(b->epoch);
  REQUIRE(epochs.size() == 4);
  // EndTxn bumped the epoch at the coordinator; the producer's InitProducerId took the next one.
  for (size_t i = 1; i < epochs.size(); i++) CHECK(epochs[i] == epochs[i - 1] + 2);
  for (const auto& e : f.events) {
    if (const auto* c = e.as<ev::TxnCommit>()) CHECK(c->outcome == "NONE");
    if (const auto* a = e.as<ev::TxnAbort>()) CHECK(a->outcome == "NONE");
  }
  CHECK(p.fatal_error() == ErrorCode::NONE);
  REQUIRE(all_stable(f, "orders", 3));
  // The markers carry the bumped epoch (KIP-890 part 2).
  for (const auto& e : f.events)
    if (const auto* m = e.as<ev::TxnMarkerAppend>()) CHECK(m->producer_epoch % 2 == 1);
  CHECK(f.count("checker_violation") == 0);
}

TEST_CASE("txn producer: on transaction.version 1 its epoch stays for its life") {
  ClusterFixture f(45, txn_cluster_config());
  f.create_topic("orders", 3, 3);
  auto& p = add_producer(f, 1, "tx-v1");
  REQUIRE(init(f, p) == ErrorCode::NONE);
  for (int round = 0; round < 3; round++) {
    std::vector<ErrorCode> answers;
    REQUIRE(p.begin_transaction() == ErrorCode::NONE);
    send_records(p, "orders", 3, 3, answers);
    REQUIRE(end(f, p, true) == ErrorCode::NONE);
  }
  std::set<int32_t> epochs;
  for (const auto& e : f.events)
    if (const auto* b = e.as<ev::TxnBegin>()) epochs.insert(b->epoch);
  CHECK(epochs == std::set<int32_t>{0});
}
