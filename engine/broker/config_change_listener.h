// ConfigChangeListener: dynamic topic configs reaching every broker (Kafka's
// ZkNodeChangeNotificationListener with its TopicConfigHandler). Whoever alters a topic's config
// writes /config/topics/T and then a sequential /config/changes/config_change_N naming it; every
// broker watches /config/changes, re-reads the topics named by notifications newer than the last
// one it processed and hands each topic's new config to `apply`. The first listing only marks
// where the broker is: topics it hosts later are read whole when it first hears of them
// (LeaderAndIsr).
#pragma once

#include <functional>
#include <map>
#include <string>

#include "engine/broker/broker_config.h"
#include "engine/coord/zk_client.h"

namespace gregor::broker {

class ConfigChangeListener {
 public:
  // A topic's config, effective (broker defaults + overrides) and as overridden.
  using Apply = std::function<void(const std::string& topic, const TopicConfig& config,
                                   const std::map<std::string, std::string>& overrides)>;

  ConfigChangeListener(Runtime& rt, const BrokerConfig& config, coord::ZkClient& zk, Apply apply)
      : rt_(rt), config_(config), zk_(zk), apply_(std::move(apply)) {}

  // Lists /config/changes (setting the watch) and applies what is new. Call at registration and
  // on every children-changed watch of /config/changes.
  void on_change();

 private:
  void reload_topic_config(const std::string& topic, std::function<void()> done);

  Runtime& rt_;
  const BrokerConfig& config_;
  coord::ZkClient& zk_;
  Apply apply_;
  int64_t last_change_ = -1;  // the newest notification processed
  bool listed_ = false;       // the first listing only sets last_change_
};

}  // namespace gregor::broker
