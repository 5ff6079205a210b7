// Probe: a test node that records what happens to it, and lets the test act through its runtime.
//
// Its record (a ProbeLog) belongs to the test and outlives every incarnation of the node, so a test
// can read what a crashed node saw and check that nothing reached it afterwards.
#pragma once

#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/runtime.h"
#include "sim/simulator.h"

namespace gregor::test {

struct ProbeEntry {
  Time at;
  std::string what;  // "start", "msg", "disconnect", "timer"
  NodeId peer{0};
  std::string data;
  uint64_t incarnation = 0;
};

struct ProbeLog {
  std::vector<ProbeEntry> entries;
  int constructed = 0;
  int destroyed = 0;
  std::vector<ProbeEntry> of(const std::string& what) const {
    std::vector<ProbeEntry> out;
    for (const auto& e : entries)
      if (e.what == what) out.push_back(e);
    return out;
  }
  std::vector<std::string> messages() const {
    std::vector<std::string> out;
    for (const auto& e : entries)
      if (e.what == "msg") out.push_back(e.data);
    return out;
  }
};

class Probe final : public Node {
 public:
  Probe(Runtime& rt, std::shared_ptr<ProbeLog> log, uint64_t incarnation)
      : rt_(rt), log_(std::move(log)), incarnation_(incarnation) {
    log_->constructed++;
  }
  ~Probe() override { log_->destroyed++; }
  void start() override { record("start", NodeId{0}, ""); }
  void on_message(NodeId from, Bytes frame) override { record("msg", from, to_string(as_view(frame))); }
  void on_disconnect(NodeId peer) override { record("disconnect", peer, ""); }

  Runtime& rt() { return rt_; }
  bool send(NodeId to, const std::string& s) { return rt_.send(to, to_bytes(s)); }
  void close(NodeId peer) { rt_.close_connection(peer); }
  TimerId timer(Duration d, const std::string& name) {
    return rt_.after(d, [this, name] { record("timer", NodeId{0}, name); });
  }

 private:
  void record(const std::string& what, NodeId peer, std::string data) {
    log_->entries.push_back(ProbeEntry{rt_.now(), what, peer, std::move(data), incarnation_});
  }
  Runtime& rt_;
  std::shared_ptr<ProbeLog> log_;
  uint64_t incarnation_;
};

// Adds Probe nodes to a simulator and keeps their logs.
class ProbeWorld {
 public:
  explicit ProbeWorld(uint64_t seed, sim::SimConfig config = {}) : sim(seed, config) {}

  void add(int32_t id, bool start_now = true) {
    auto log = std::make_shared<ProbeLog>();
    logs[id] = log;
    auto* simulator = &sim;
    sim.add_node(
        NodeId{id}, "n" + std::to_string(id),
        [log, simulator, id](Runtime& rt) {
          return std::make_unique<Probe>(rt, log, simulator->incarnation(NodeId{id}));
        },
        start_now);
  }
  Probe& probe(int32_t id) {
    Probe* p = sim.node_as<Probe>(NodeId{id});
    REQUIRE(p != nullptr);
    return *p;
  }
  ProbeLog& log(int32_t id) { return *logs.at(id); }

  sim::Simulator sim;
  std::map<int32_t, std::shared_ptr<ProbeLog>> logs;
};

}  // namespace gregor::test
