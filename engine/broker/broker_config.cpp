#include "engine/broker/broker_config.h"

namespace gregor::broker {

const ConfigDef<BrokerConfig>& broker_config_def() {
  static const ConfigDef<BrokerConfig> def = [] {
    ConfigDef<BrokerConfig> d("broker");
    d.define("auto.create.topics.enable", &BrokerConfig::auto_create_topics_enable,
             "Create a topic when a client asks for metadata of one that does not exist.");
    d.define("auto.leader.rebalance.enable", &BrokerConfig::auto_leader_rebalance_enable,
             "The controller moves leadership back to preferred replicas when a broker leads too few of its own.");
    d.define("broker.id", &BrokerConfig::broker_id, at_least(0), "This broker's id.");
    d.define("controlled.shutdown.enable", &BrokerConfig::controlled_shutdown_enable,
             "A stopping broker first asks the controller to move its leaderships away.");
    d.define("controller.socket.timeout.ms", &BrokerConfig::controller_socket_timeout_ms, at_least(1),
             "How long the controller waits for a broker to answer a request.");
    d.define("default.replication.factor", &BrokerConfig::default_replication_factor, at_least(1),
             "The replication factor of automatically created topics.");
    d.define("group.initial.rebalance.delay.ms", &BrokerConfig::group_initial_rebalance_delay_ms, at_least(0),
             "How long the first rebalance of an empty group waits for more members to join.");
    d.define("group.max.session.timeout.ms", &BrokerConfig::group_max_session_timeout_ms, at_least(0),
             "The largest session.timeout.ms a consumer may ask for.");
    d.define("group.min.session.timeout.ms", &BrokerConfig::group_min_session_timeout_ms, at_least(0),
             "The smallest session.timeout.ms a consumer may ask for.");
    d.define("leader.imbalance.check.interval.seconds", &BrokerConfig::leader_imbalance_check_interval_seconds,
             at_least(1), "How often the controller checks for leadership away from preferred replicas.");
    d.define("num.partitions", &BrokerConfig::num_partitions, at_least(1),
             "The number of partitions of automatically created topics.");
    d.define("offsets.retention.minutes", &BrokerConfig::offsets_retention_minutes, at_least(1),
             "How long committed offsets of an empty group are kept.");
    d.define("offsets.topic.num.partitions", &BrokerConfig::offsets_topic_num_partitions, at_least(1),
             "The number of partitions of __consumer_offsets.");
    d.define("offsets.topic.replication.factor", &BrokerConfig::offsets_topic_replication_factor, at_least(1),
             "The replication factor of __consumer_offsets (created once this many brokers are alive).");
    d.define("replica.fetch.backoff.ms", &BrokerConfig::replica_fetch_backoff_ms, at_least(0),
             "How long a follower waits after a failed fetch before it fetches that partition again.");
    d.define("replica.fetch.max.bytes", &BrokerConfig::replica_fetch_max_bytes, at_least(1),
             "The most bytes a follower fetches of one partition per request.");
    d.define("replica.fetch.min.bytes", &BrokerConfig::replica_fetch_min_bytes, at_least(1),
             "The least bytes a leader gathers before it answers a follower's fetch early.");
    d.define("replica.fetch.wait.max.ms", &BrokerConfig::replica_fetch_wait_max_ms, at_least(0),
             "How long a leader may hold a follower's fetch waiting for data.");
    d.define("replica.high.watermark.checkpoint.interval.ms", &BrokerConfig::replica_high_watermark_checkpoint_interval_ms,
             at_least(1), "How often high watermarks are written to replication-offset-checkpoint.");
    d.define("replica.lag.time.max.ms", &BrokerConfig::replica_lag_time_max_ms, at_least(1),
             "A follower that has not caught up with the leader's log end for this long leaves the ISR.");
    d.define("replica.socket.timeout.ms", &BrokerConfig::replica_socket_timeout_ms, at_least(1),
             "How long a follower waits for the leader to answer a fetch, beyond replica.fetch.wait.max.ms.");
    d.define("replication.truncation", &BrokerConfig::replication_truncation,
             {{TruncationMode::kLeaderEpoch, "leader-epoch"},
              {TruncationMode::kLeaderEpochKip101, "leader-epoch-kip101"},
              {TruncationMode::kHighWatermark, "high-watermark"}},
             "Gregor's switch for how a new follower truncates: by leader epoch (KIP-101 with KIP-279), by leader "
             "epoch as KIP-101 alone did, or to its own high watermark (before KIP-101).");
    d.define("gregor.kafka7164.truncate.on.leader.change.only", &BrokerConfig::truncate_on_leader_change_only,
             "Gregor's switch for KAFKA-7164 (Kafka 1.1 to 2.0): true makes a follower truncate only when its leader "
             "changes, not on every leader epoch change, so a replica that missed an epoch keeps a diverged log.");
    d.define("socket.request.max.bytes", &BrokerConfig::socket_request_max_bytes, at_least(1),
             "The largest request a broker reads; a larger frame closes the connection.");
    d.define("zookeeper.session.timeout.ms", &BrokerConfig::zookeeper_session_timeout_ms, at_least(1),
             "The broker's ZooKeeper session timeout: this long without contact and its registration expires.");
    return d;
  }();
  return def;
}

Status BrokerConfig::apply(const std::map<std::string, std::string>& settings) {
  std::map<std::string, std::string> topic_keys;
  for (const auto& [name, value] : settings) {
    // Broker-level names of topic configs: log.segment.bytes -> segment.bytes, etc.
    std::string topic_key = TopicConfig::topic_key_of(name);
    if (topic_key.empty() && topic_config_def().find(name)) topic_key = name;
    if (!topic_key.empty()) {
      topic_keys[topic_key] = value;
      continue;
    }
    const auto* key = broker_config_def().find(name);
    if (!key) return broker_config_def().unknown(name);
    GREGOR_RETURN_IF_ERROR(key->parse(*this, value));
  }
  return topic_defaults.apply(topic_keys);
}

std::map<std::string, std::string> BrokerConfig::to_map() const {
  std::map<std::string, std::string> m = broker_config_def().values(*this);
  for (const auto& [k, v] : topic_defaults.to_map()) m[TopicConfig::broker_synonym(k)] = v;
  return m;
}

std::string broker_config_help() {
  std::string out = "broker configs (--config key=value):\n" + broker_config_def().help();
  out += "\ntopic defaults (--config key=value; each topic may override them, see gregor topics --help):\n";
  const TopicConfig defaults;
  for (const auto& k : topic_config_def().keys())
    out += "  " + k.synonym + "  (" + config_type_name(k.type) + ", default " + k.format(defaults) + "; topic key " +
           k.name + ")\n";
  return out;
}

}  // namespace gregor::broker
