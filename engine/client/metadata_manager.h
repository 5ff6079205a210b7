// MetadataManager: a client's view of the cluster (brokers, partition leaders), kept fresh with
// Metadata requests (v4) as Kafka clients do: on demand (an unknown topic, NOT_LEADER_OR_FOLLOWER
// and friends) and every metadata.max.age.ms. Requests go to a known broker, or to a bootstrap
// server when none is known yet; concurrent refresh requests are coalesced into one.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/protocol/network_client.h"

namespace gregor::client {

// The Kafka protocol client (engine/protocol/network_client.h) and its vocabulary.
using protocol::ApiKey;
using protocol::ErrorCode;
using protocol::NetworkClient;

struct PartitionInfo {
  int32_t leader = -1;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
  protocol::ErrorCode error = protocol::ErrorCode::NONE;
};

class MetadataManager {
 public:
  MetadataManager(Runtime& rt, NetworkClient& net, std::vector<NodeId> bootstrap, Duration request_timeout,
                  Duration max_age);

  void start();
  // Topics to ask about (an empty set asks about none; Kafka's consumers ask for their subscription).
  void add_topic(const std::string& topic);
  void request_update();
  // Called after every successful update.
  void set_listener(std::function<void()> listener) { listener_ = std::move(listener); }
  // Metadata v4's allow_auto_topic_creation: producers ask for it, consumers do not.
  void set_allow_auto_topic_creation(bool allow) { allow_auto_topic_creation_ = allow; }

  bool has_topic(const std::string& topic) const { return topics_.count(topic) > 0; }
  const std::vector<PartitionInfo>* partitions(const std::string& topic) const;
  int32_t leader(const std::string& topic, int32_t partition) const;
  // The error the last answer gave for a topic when it is one that retrying cannot cure
  // (INVALID_TOPIC_EXCEPTION, TOPIC_AUTHORIZATION_FAILED); NONE otherwise. Such a topic is not
  // asked about again until someone adds it again.
  protocol::ErrorCode topic_error(const std::string& topic) const;
  int32_t controller_id() const { return controller_id_; }
  std::vector<int32_t> broker_ids() const;
  uint64_t updates() const { return updates_; }
  // A broker to ask (a random known one, or a bootstrap server).
  NodeId any_broker();

 private:
  void send();
  Runtime& rt_;
  NetworkClient& net_;
  std::vector<NodeId> bootstrap_;
  Duration request_timeout_;
  Duration max_age_;
  std::set<std::string> wanted_;
  std::map<std::string, std::vector<PartitionInfo>> topics_;
  std::map<std::string, protocol::ErrorCode> topic_errors_;  // see topic_error()
  std::map<int32_t, std::pair<std::string, int32_t>> brokers_;
  int32_t controller_id_ = -1;
  bool in_flight_ = false;
  bool again_ = false;
  bool allow_auto_topic_creation_ = true;
  uint64_t updates_ = 0;
  std::function<void()> listener_;
};

}  // namespace gregor::client
