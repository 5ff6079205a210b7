#include "engine/broker/broker_config.h"

#include <cstdlib>

namespace gregor::broker {

Result<int64_t> parse_long(const std::string& key, const std::string& value) {
  if (value.empty()) return Status::error(StatusCode::kInvalidArgument, key + ": empty value");
  char* end = nullptr;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (*end != '\0') return Status::error(StatusCode::kInvalidArgument, key + ": not an integer: '" + value + "'");
  return static_cast<int64_t>(v);
}

Result<bool> parse_bool(const std::string& key, const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  return Status::error(StatusCode::kInvalidArgument, key + ": expected true or false, got '" + value + "'");
}

std::vector<std::string> split_config_list(const std::string& value) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    if (comma > start) items.push_back(value.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

std::string join_config_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

namespace {

template <typename T>
Status set_int(T& field, const std::string& key, const std::string& value, int64_t min_value) {
  auto v = parse_long(key, value);
  if (!v) return v.status();
  if (*v < min_value)
    return Status::error(StatusCode::kInvalidArgument, key + ": must be at least " + std::to_string(min_value));
  field = static_cast<T>(*v);
  return Status::ok();
}

}  // namespace

Status TopicConfig::apply(const std::map<std::string, std::string>& overrides) {
  for (const auto& [k, v] : overrides) {
    Status s;
    if (k == "min.insync.replicas") s = set_int(min_insync_replicas, k, v, 1);
    else if (k == "unclean.leader.election.enable") {
      auto b = parse_bool(k, v);
      if (!b) return b.status();
      unclean_leader_election_enable = *b;
    } else if (k == "segment.bytes") s = set_int(segment_bytes, k, v, 14);
    else if (k == "segment.ms") s = set_int(segment_ms, k, v, 1);
    else if (k == "retention.ms") s = set_int(retention_ms, k, v, -1);
    else if (k == "retention.bytes") s = set_int(retention_bytes, k, v, -1);
    else if (k == "flush.messages") s = set_int(flush_messages, k, v, 1);
    else if (k == "flush.ms") s = set_int(flush_ms, k, v, 0);
    else if (k == "index.interval.bytes") s = set_int(index_interval_bytes, k, v, 0);
    else if (k == "max.message.bytes") s = set_int(max_message_bytes, k, v, 0);
    else if (k == "cleanup.policy") {
      if (v != "delete") return Status::error(StatusCode::kInvalidArgument, k + ": only 'delete' is supported");
    } else
      return Status::error(StatusCode::kInvalidArgument, "unknown topic config '" + k + "'");
    if (!s) return s;
  }
  return Status::ok();
}

std::map<std::string, std::string> TopicConfig::non_defaults() const {
  TopicConfig d;
  std::map<std::string, std::string> m;
  if (min_insync_replicas != d.min_insync_replicas) m["min.insync.replicas"] = std::to_string(min_insync_replicas);
  if (unclean_leader_election_enable != d.unclean_leader_election_enable)
    m["unclean.leader.election.enable"] = unclean_leader_election_enable ? "true" : "false";
  if (segment_bytes != d.segment_bytes) m["segment.bytes"] = std::to_string(segment_bytes);
  if (segment_ms != d.segment_ms) m["segment.ms"] = std::to_string(segment_ms);
  if (retention_ms != d.retention_ms) m["retention.ms"] = std::to_string(retention_ms);
  if (retention_bytes != d.retention_bytes) m["retention.bytes"] = std::to_string(retention_bytes);
  if (flush_messages != d.flush_messages) m["flush.messages"] = std::to_string(flush_messages);
  if (flush_ms != d.flush_ms) m["flush.ms"] = std::to_string(flush_ms);
  if (index_interval_bytes != d.index_interval_bytes) m["index.interval.bytes"] = std::to_string(index_interval_bytes);
  if (max_message_bytes != d.max_message_bytes) m["max.message.bytes"] = std::to_string(max_message_bytes);
  return m;
}

namespace {
// Topic key -> the broker config that sets its default.
const std::vector<std::pair<std::string, std::string>>& synonyms() {
  static const std::vector<std::pair<std::string, std::string>> table = {
      {"cleanup.policy", "log.cleanup.policy"},
      {"flush.messages", "log.flush.interval.messages"},
      {"flush.ms", "log.flush.interval.ms"},
      {"index.interval.bytes", "log.index.interval.bytes"},
      {"max.message.bytes", "message.max.bytes"},
      {"min.insync.replicas", "min.insync.replicas"},
      {"retention.bytes", "log.retention.bytes"},
      {"retention.ms", "log.retention.ms"},
      {"segment.bytes", "log.segment.bytes"},
      {"segment.ms", "log.roll.ms"},
      {"unclean.leader.election.enable", "unclean.leader.election.enable"},
  };
  return table;
}

std::string bool_text(bool b) { return b ? "true" : "false"; }
}  // namespace

std::map<std::string, std::string> TopicConfig::to_map() const {
  return {
      {"cleanup.policy", "delete"},
      {"flush.messages", std::to_string(flush_messages)},
      {"flush.ms", std::to_string(flush_ms)},
      {"index.interval.bytes", std::to_string(index_interval_bytes)},
      {"max.message.bytes", std::to_string(max_message_bytes)},
      {"min.insync.replicas", std::to_string(min_insync_replicas)},
      {"retention.bytes", std::to_string(retention_bytes)},
      {"retention.ms", std::to_string(retention_ms)},
      {"segment.bytes", std::to_string(segment_bytes)},
      {"segment.ms", std::to_string(segment_ms)},
      {"unclean.leader.election.enable", bool_text(unclean_leader_election_enable)},
  };
}

std::string TopicConfig::broker_synonym(const std::string& topic_key) {
  for (const auto& [t, b] : synonyms())
    if (t == topic_key) return b;
  return "";
}

std::string TopicConfig::topic_key_of(const std::string& broker_key) {
  for (const auto& [t, b] : synonyms())
    if (b == broker_key) return t;
  return "";
}

std::map<std::string, std::string> BrokerConfig::to_map() const {
  std::map<std::string, std::string> m = {
      {"broker.id", std::to_string(broker_id)},
      {"num.partitions", std::to_string(num_partitions)},
      {"default.replication.factor", std::to_string(default_replication_factor)},
      {"auto.create.topics.enable", bool_text(auto_create_topics_enable)},
      {"replica.lag.time.max.ms", std::to_string(replica_lag_time_max_ms)},
      {"replica.fetch.wait.max.ms", std::to_string(replica_fetch_wait_max_ms)},
      {"replica.fetch.min.bytes", std::to_string(replica_fetch_min_bytes)},
      {"replica.fetch.max.bytes", std::to_string(replica_fetch_max_bytes)},
      {"replica.fetch.backoff.ms", std::to_string(replica_fetch_backoff_ms)},
      {"replica.socket.timeout.ms", std::to_string(replica_socket_timeout_ms)},
      {"replica.high.watermark.checkpoint.interval.ms", std::to_string(replica_high_watermark_checkpoint_interval_ms)},
      {"zookeeper.session.timeout.ms", std::to_string(zookeeper_session_timeout_ms)},
      {"controller.socket.timeout.ms", std::to_string(controller_socket_timeout_ms)},
      {"controlled.shutdown.enable", bool_text(controlled_shutdown_enable)},
      {"auto.leader.rebalance.enable", bool_text(auto_leader_rebalance_enable)},
      {"leader.imbalance.check.interval.seconds", std::to_string(leader_imbalance_check_interval_seconds)},
      {"offsets.topic.num.partitions", std::to_string(offsets_topic_num_partitions)},
      {"offsets.topic.replication.factor", std::to_string(offsets_topic_replication_factor)},
      {"group.initial.rebalance.delay.ms", std::to_string(group_initial_rebalance_delay_ms)},
      {"group.min.session.timeout.ms", std::to_string(group_min_session_timeout_ms)},
      {"group.max.session.timeout.ms", std::to_string(group_max_session_timeout_ms)},
      {"offsets.retention.minutes", std::to_string(offsets_retention_minutes)},
      {"socket.request.max.bytes", std::to_string(socket_request_max_bytes)},
      {"replication.truncation", replication_truncation == TruncationMode::kLeaderEpoch         ? "leader-epoch"
                                 : replication_truncation == TruncationMode::kLeaderEpochKip101 ? "leader-epoch-kip101"
                                                                                                 : "high-watermark"},
  };
  for (const auto& [k, v] : topic_defaults.to_map()) m[TopicConfig::broker_synonym(k)] = v;
  return m;
}

bool BrokerConfig::is_topic_key(const std::string& key) {
  TopicConfig t;
  return t.apply({{key, key == "unclean.leader.election.enable" ? "false"
                        : key == "cleanup.policy"                 ? "delete"
                                                                  : "1048576"}})
      .is_ok();
}

Status BrokerConfig::apply(const std::map<std::string, std::string>& settings) {
  std::map<std::string, std::string> topic_keys;
  for (const auto& [k0, v] : settings) {
    // Broker-level names of topic configs: log.segment.bytes -> segment.bytes, etc.
    std::string k = TopicConfig::topic_key_of(k0);
    if (k.empty()) k = k0;
    if (is_topic_key(k)) {
      topic_keys[k] = v;
      continue;
    }
    Status s;
    if (k == "broker.id") s = set_int(broker_id, k, v, 0);
    else if (k == "num.partitions") s = set_int(num_partitions, k, v, 1);
    else if (k == "default.replication.factor") s = set_int(default_replication_factor, k, v, 1);
    else if (k == "auto.create.topics.enable") {
      auto b = parse_bool(k, v);
      if (!b) return b.status();
      auto_create_topics_enable = *b;
    } else if (k == "replica.lag.time.max.ms") s = set_int(replica_lag_time_max_ms, k, v, 1);
    else if (k == "replica.fetch.wait.max.ms") s = set_int(replica_fetch_wait_max_ms, k, v, 0);
    else if (k == "replica.fetch.min.bytes") s = set_int(replica_fetch_min_bytes, k, v, 1);
    else if (k == "replica.fetch.max.bytes") s = set_int(replica_fetch_max_bytes, k, v, 1);
    else if (k == "replica.fetch.backoff.ms") s = set_int(replica_fetch_backoff_ms, k, v, 0);
    else if (k == "replica.socket.timeout.ms") s = set_int(replica_socket_timeout_ms, k, v, 1);
    else if (k == "replica.high.watermark.checkpoint.interval.ms")
      s = set_int(replica_high_watermark_checkpoint_interval_ms, k, v, 1);
    else if (k == "zookeeper.session.timeout.ms") s = set_int(zookeeper_session_timeout_ms, k, v, 1);
    else if (k == "controller.socket.timeout.ms") s = set_int(controller_socket_timeout_ms, k, v, 1);
    else if (k == "controlled.shutdown.enable") {
      auto b = parse_bool(k, v);
      if (!b) return b.status();
      controlled_shutdown_enable = *b;
    } else if (k == "auto.leader.rebalance.enable") {
      auto b = parse_bool(k, v);
      if (!b) return b.status();
      auto_leader_rebalance_enable = *b;
    } else if (k == "leader.imbalance.check.interval.seconds")
      s = set_int(leader_imbalance_check_interval_seconds, k, v, 1);
    else if (k == "offsets.topic.num.partitions") s = set_int(offsets_topic_num_partitions, k, v, 1);
    else if (k == "offsets.topic.replication.factor") s = set_int(offsets_topic_replication_factor, k, v, 1);
    else if (k == "group.initial.rebalance.delay.ms") s = set_int(group_initial_rebalance_delay_ms, k, v, 0);
    else if (k == "group.min.session.timeout.ms") s = set_int(group_min_session_timeout_ms, k, v, 0);
    else if (k == "group.max.session.timeout.ms") s = set_int(group_max_session_timeout_ms, k, v, 0);
    else if (k == "offsets.retention.minutes") s = set_int(offsets_retention_minutes, k, v, 1);
    else if (k == "socket.request.max.bytes") s = set_int(socket_request_max_bytes, k, v, 1);
    else if (k == "replication.truncation") {
      if (v == "leader-epoch") replication_truncation = TruncationMode::kLeaderEpoch;
      else if (v == "leader-epoch-kip101") replication_truncation = TruncationMode::kLeaderEpochKip101;
      else if (v == "high-watermark") replication_truncation = TruncationMode::kHighWatermark;
      else
        return Status::error(StatusCode::kInvalidArgument,
                             k + ": expected leader-epoch, leader-epoch-kip101 or high-watermark, got '" + v + "'");
    } else
      return Status::error(StatusCode::kInvalidArgument, "unknown broker config '" + k0 + "'");
    if (!s) return s;
  }
  return topic_defaults.apply(topic_keys);
}

}  // namespace gregor::broker
