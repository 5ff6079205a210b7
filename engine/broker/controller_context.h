// ControllerContext: everything the controller knows while it is the controller (Kafka's
// ControllerContext): its epoch, the live brokers, the topics with their assignments and configs,
// every partition's replicas and state, and the brokers shutting down. It is read from zk when a
// broker becomes controller, kept up to date by the controller's events, and dropped whole when it
// resigns.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "engine/broker/leader_election.h"
#include "engine/broker/topic_config.h"
#include "engine/broker/zk_data.h"

namespace gregor::broker {

struct ControllerContext {
  int32_t epoch = 0;
  int32_t epoch_zk_version = -1;  // of /controller_epoch: every write of the controller checks it
  std::map<int32_t, BrokerRegistration> live;
  std::map<int32_t, int64_t> broker_czxid;  // registration identity: a bounced broker has a new one
  std::map<std::string, TopicAssignment> topics;
  std::map<std::string, TopicConfig> topic_configs;  // broker defaults + /config/topics/T overrides
  std::map<TopicPartition, ControllerPartition> partitions;
  std::set<int32_t> shutting_down;
  // Replicas a live broker registered as damaged (BrokerRegistration::damaged_replicas), until the
  // leader adds them back to the ISR or the broker's registration goes.
  std::map<int32_t, std::set<TopicPartition>> damaged;

  std::set<int32_t> damaged_replicas(const TopicPartition& tp) const {
    std::set<int32_t> out;
    for (const auto& [broker, tps] : damaged)
      if (tps.count(tp)) out.insert(broker);
    return out;
  }

  std::set<int32_t> live_ids() const {
    std::set<int32_t> ids;
    for (const auto& [id, r] : live) ids.insert(id);
    return ids;
  }
  election::Brokers brokers() const { return election::Brokers{live_ids(), shutting_down}; }
  bool unclean_allowed(const std::string& topic, const TopicConfig& defaults) const {
    auto it = topic_configs.find(topic);
    return it != topic_configs.end() ? it->second.unclean_leader_election_enable : defaults.unclean_leader_election_enable;
  }
};

}  // namespace gregor::broker
