// Test harness for the coordination service: a simulated world with one ZkServer and client
// nodes that own a ZkClient, plus synchronous-looking helpers that issue one request and run the
// simulator until its callback has fired.
#pragma once

#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/coord/zk_client.h"
#include "engine/coord/zk_server.h"
#include "sim/simulator.h"

namespace gregor::coord::testing {

// A node that owns a ZkClient and records what it hears, in order.
class ZkTestClient final : public Node {
 public:
  ZkTestClient(Runtime& rt, ZkClientConfig config, bool start_session = true)
      : rt_(rt), zk(rt, std::move(config)), start_session_(start_session) {
    zk.set_session_listener([this](SessionState s) {
      states.push_back(s);
      journal.push_back(std::string("state ") + session_state_name(s));
    });
    zk.set_watch_listener([this](const WatchEvent& e) {
      events.push_back(e);
      journal.push_back(std::string("watch ") + watch_type_name(e.type) + " " + e.path);
    });
  }
  void start() override {
    if (start_session_) zk.start();
  }
  void on_message(NodeId from, Bytes frame) override {
    if (zk.owns_peer(from)) zk.on_message(from, std::move(frame));
  }
  void on_disconnect(NodeId peer) override {
    if (zk.owns_peer(peer)) zk.on_disconnect(peer);
  }
  Runtime& runtime() { return rt_; }

  Runtime& rt_;
  ZkClient zk;
  bool start_session_;
  std::vector<SessionState> states;
  std::vector<WatchEvent> events;
  std::vector<std::string> journal;  // states, watch events and test notes, in arrival order
};

class ZkWorld {
 public:
  static constexpr NodeId kServer{1};

  explicit ZkWorld(uint64_t seed, ZkServerConfig server_config = {}, sim::SimConfig sim_config = {})
      : sim(shifted(seed), verbose(sim_config)), server_config_(std::move(server_config)) {
    // ZK_TRACE=1 prints every trace event (and, through SimConfig::verbose, every log line).
    if (std::getenv("ZK_TRACE")) sim.add_listener([](const TraceEvent& e) { std::cerr << e.to_string() << "\n"; });
    sim.add_node(kServer, "zk", [this](Runtime& rt) { return std::make_unique<ZkServer>(rt, server_config_); });
  }

  ZkClientConfig client_config(Duration session_timeout = Duration::millis(6000)) const {
    ZkClientConfig c;
    c.servers = {kServer};
    c.session_timeout = session_timeout;
    return c;
  }

  // Adds a client node (id >= 2) and runs until its session is connected (unless told not to).
  ZkTestClient* add_client(NodeId id, ZkClientConfig config, bool wait_connected = true) {
    sim.add_node(id, "client-" + std::to_string(id.value),
                 [config](Runtime& rt) { return std::make_unique<ZkTestClient>(rt, config); });
    ZkTestClient* c = client(id);
    if (wait_connected) run_until([c] { return c->zk.state() == SessionState::kConnected; });
    return c;
  }
  ZkTestClient* add_client(NodeId id) { return add_client(id, client_config()); }

  ZkServer* server() { return sim.node_as<ZkServer>(kServer); }
  ZkTestClient* client(NodeId id) { return sim.node_as<ZkTestClient>(id); }

  // Runs until pred holds or `limit` of virtual time passes; returns whether it holds.
  bool run_until(const std::function<bool()>& pred, Duration limit = Duration::seconds(120)) {
    return sim.run_until_pred(pred, sim.now() + limit) == sim::RunOutcome::kPredicateMet;
  }

  // One request, waited for. Each returns the error the callback got.
  ZkError create(ZkTestClient* c, const std::string& path, const std::string& data = "",
                 CreateMode mode = CreateMode::kPersistent, std::string* created = nullptr) {
    std::optional<ZkError> out;
    c->zk.create(path, to_bytes(data), mode, [&](ZkError e, std::string p) {
      out = e;
      if (created) *created = std::move(p);
    });
    wait(out);
    return *out;
  }
  ZkError set(ZkTestClient* c, const std::string& path, const std::string& data, int32_t version = -1,
              Stat* stat = nullptr) {
    std::optional<ZkError> out;
    c->zk.set_data(path, to_bytes(data), version, [&](ZkError e, Stat s) {
      out = e;
      if (stat) *stat = s;
    });
    wait(out);
    return *out;
  }
  ZkError get(ZkTestClient* c, const std::string& path, std::string* data = nullptr, Stat* stat = nullptr,
              bool watch = false) {
    std::optional<ZkError> out;
    c->zk.get_data(path, watch, [&](ZkError e, Bytes d, Stat s) {
      out = e;
      if (data) *data = to_string(as_view(d));
      if (stat) *stat = s;
    });
    wait(out);
    return *out;
  }
  ZkError remove(ZkTestClient* c, const std::string& path, int32_t version = -1) {
    std::optional<ZkError> out;
    c->zk.remove(path, version, [&](ZkError e) { out = e; });
    wait(out);
    return *out;
  }
  ZkError exists(ZkTestClient* c, const std::string& path, bool watch = false, std::optional<Stat>* stat = nullptr) {
    std::optional<ZkError> out;
    c->zk.exists(path, watch, [&](ZkError e, std::optional<Stat> s) {
      out = e;
      if (stat) *stat = s;
    });
    wait(out);
    return *out;
  }
  ZkError children(ZkTestClient* c, const std::string& path, std::vector<std::string>* names = nullptr,
                   bool watch = false) {
    std::optional<ZkError> out;
    c->zk.get_children(path, watch, [&](ZkError e, std::vector<std::string> n) {
      out = e;
      if (names) *names = std::move(n);
    });
    wait(out);
    return *out;
  }
  ZkError multi(ZkTestClient* c, std::vector<ZkOp> ops, std::vector<ZkOpResult>* results = nullptr) {
    std::optional<ZkError> out;
    c->zk.multi(std::move(ops), [&](ZkError e, std::vector<ZkOpResult> r) {
      out = e;
      if (results) *results = std::move(r);
    });
    wait(out);
    return *out;
  }

  sim::Simulator sim;

 private:
  // ZK_SEED_SHIFT=N adds N to every world's seed: the whole suite over other seeds, to look for
  // what the fixed ones miss. A failure names the test's own seed; rerun with the same shift.
  static uint64_t shifted(uint64_t seed) {
    const char* shift = std::getenv("ZK_SEED_SHIFT");
    return shift ? seed + std::strtoull(shift, nullptr, 10) : seed;
  }
  static sim::SimConfig verbose(sim::SimConfig c) {
    if (std::getenv("ZK_TRACE")) c.verbose = true;
    return c;
  }
  void wait(std::optional<ZkError>& out) {
    const bool done = run_until([&] { return out.has_value(); });
    if (!done) out = ZkError::kSystemError;  // the test sees an error it did not expect
  }
  ZkServerConfig server_config_;
};

// A raw peer that sends hand-made frames to the server and keeps what comes back.
class RawPeer final : public Node {
 public:
  explicit RawPeer(Runtime& rt) : rt_(rt) {}
  void start() override {}
  void on_message(NodeId from, Bytes frame) override {
    (void)from;
    received.push_back(std::move(frame));
  }
  // The simulator reports both ends of the one connection per pair; count the outbound end.
  void on_disconnect(NodeId peer) override {
    if (!is_inbound_connection(peer)) disconnects++;
  }
  bool send(NodeId to, Bytes frame) { return rt_.send(to, std::move(frame)); }
  Runtime& rt_;
  std::vector<Bytes> received;
  int disconnects = 0;
};

}  // namespace gregor::coord::testing
