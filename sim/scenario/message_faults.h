// Message faults: `intercept:` entries of a scenario (drop, delay, hold or duplicate the requests
// or responses of one Kafka API between chosen nodes) and `when:` triggers on messages
// (`when: {request: LeaderAndIsr, to: broker-3}`).
//
// The simulator hands every frame it accepts to on_send (sim/sim_network.h). Only the frame's
// header is read: a request sent to a broker starts with its api key, api version and correlation
// id (Kafka's request header); a response starts with the correlation id only, so the api of a
// response is found from the request sent on the same connection with that correlation id (Kafka
// answers a connection's requests in order, so older entries of the connection go when a
// response arrives). Frames of other protocols (zk) and frames too short for a header pass.
//
// Rules act in the order they were added: the first rule that matches a frame and has messages
// left acts on it; each one acts on at most `count` messages. Every action is emitted as a
// message_intercept event by the world (node 0).
//
// duplicate: the message arrives as sent, and a copy of it arrives `for` later, outside the order
// of its connection. It stands for a request a client sent again after a timeout, on a new
// connection, while the first copy was still on its way: the broker reads both, the first one last
// (Kafka's client closes a connection whose request timed out; bytes it had sent may still be
// read). The copy's answer carries a correlation id the client no longer waits for: it is dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/trace_event.h"
#include "engine/protocol/api_keys.h"
#include "sim/scenario/scenario.h"
#include "sim/sim_network.h"

namespace gregor::sim {

// Kafka's API by its name ("LeaderAndIsr", "Fetch"), or nullopt.
std::optional<protocol::ApiKey> api_key_named(const std::string& name);

class MessageFaults final : public FrameInterceptor {
 public:
  using Emit = std::function<void(ev::MessageIntercept)>;
  // brokers: the node ids that speak Kafka's protocol as servers.
  MessageFaults(std::set<int32_t> brokers, Emit emit, std::function<Time()> now)
      : brokers_(std::move(brokers)), emit_(std::move(emit)), now_(std::move(now)) {}

  // Which messages a rule or a watch looks at: an API, one side, senders and receivers (nullopt:
  // any node; an empty set: none, e.g. a role that resolved to no node).
  struct Selector {
    protocol::ApiKey api = protocol::ApiKey::PRODUCE;
    bool response = false;
    std::optional<std::set<int32_t>> from, to;
  };
  // The rule acts on messages sent until `until` (inclusive).
  void add_rule(Selector s, Intercept::Action action, Duration delay, int64_t count, Time until = Time{INT64_MAX});
  // Calls on_match for every message the selector matches (a `when:` on messages).
  void add_watch(Selector s, std::function<void()> on_match);

  FrameVerdict on_send(NodeId from, NodeId to, bool reply, ByteView frame) override;

 private:
  struct Rule {
    Selector selector;
    Intercept::Action action;
    Duration delay;
    int64_t remaining;
    Time until;
  };
  struct Watch {
    Selector selector;
    std::function<void()> on_match;
  };
  static bool selects(const Selector& s, protocol::ApiKey api, bool response, int32_t from, int32_t to);

  std::set<int32_t> brokers_;
  Emit emit_;
  std::function<Time()> now_;
  std::vector<Rule> rules_;
  std::vector<Watch> watches_;
  // (client, broker) -> correlation id -> api of the requests not yet answered.
  std::map<std::pair<int32_t, int32_t>, std::map<int32_t, protocol::ApiKey>> pending_;
};

}  // namespace gregor::sim
