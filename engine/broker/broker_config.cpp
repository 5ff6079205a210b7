#include "engine/broker/broker_config.h"

#include <cctype>
#include <set>

namespace gregor::broker {

int16_t security_protocol_id(const std::string& name) {
  if (name == "PLAINTEXT") return 0;
  if (name == "SSL") return 1;
  if (name == "SASL_PLAINTEXT") return 2;
  if (name == "SASL_SSL") return 3;
  return -1;
}

namespace {
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}
Status bad(const std::string& key, const std::string& why) { return Status::error(StatusCode::kInvalidArgument, key + ": " + why); }
}  // namespace

Result<std::vector<ListenerEndpoint>> parse_listener_list(const std::string& key, const std::string& text) {
  std::vector<ListenerEndpoint> out;
  for (const std::string& item : split_commas(text)) {
    const size_t sep = item.find("://");
    if (sep == std::string::npos || sep == 0)
      return bad(key, "'" + item + "' is not NAME://HOST:PORT (e.g. CLIENT://127.0.0.1:9092)");
    ListenerEndpoint e;
    e.name = item.substr(0, sep);
    for (char ch : e.name)
      if (!(std::isupper(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '_'))
        return bad(key, "listener name '" + e.name + "' must be upper-case letters, digits and _");
    const std::string rest = item.substr(sep + 3);
    const size_t colon = rest.rfind(':');
    if (colon == std::string::npos) return bad(key, "'" + item + "' has no port");
    e.host = rest.substr(0, colon);
    if (e.host.size() >= 2 && e.host.front() == '[' && e.host.back() == ']') e.host = e.host.substr(1, e.host.size() - 2);
    auto port = parse_config_long(key, rest.substr(colon + 1));
    if (!port) return port.status();
    if (*port < 0 || *port > 65535) return bad(key, "port " + std::to_string(*port) + " of '" + item + "' is not in 0..65535");
    e.port = static_cast<int32_t>(*port);
    for (const auto& other : out)
      if (other.name == e.name) return bad(key, "listener name " + e.name + " appears twice");
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::map<std::string, std::string>> parse_security_protocol_map(const std::string& text) {
  const std::string key = "listener.security.protocol.map";
  std::map<std::string, std::string> out;
  for (const std::string& item : split_commas(text)) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
      return bad(key, "'" + item + "' is not NAME:PROTOCOL (e.g. CLIENT:PLAINTEXT)");
    const std::string protocol = item.substr(colon + 1);
    if (security_protocol_id(protocol) < 0)
      return bad(key, "'" + protocol + "' is not a security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)");
    if (!out.emplace(item.substr(0, colon), protocol).second) return bad(key, item.substr(0, colon) + " appears twice");
  }
  return out;
}

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
    d.define("controlled.shutdown.max.retries", &BrokerConfig::controlled_shutdown_max_retries, at_least(0),
             "How many times a stopping broker asks the controller before it stops anyway.");
    d.define("controlled.shutdown.retry.backoff.ms", &BrokerConfig::controlled_shutdown_retry_backoff_ms, at_least(0),
             "How long a stopping broker waits before asking the controller again.");
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
    d.define("inter.broker.listener.name", &BrokerConfig::inter_broker_listener_name, {},
             "The listener brokers replicate over and the controller reaches brokers on (default: PLAINTEXT).");
    d.define("security.inter.broker.protocol", &BrokerConfig::security_inter_broker_protocol, {},
             "PLAINTEXT or SASL_PLAINTEXT: the inter-broker listener by protocol (the listener of that name); not with "
             "inter.broker.listener.name. Unset: PLAINTEXT.");
    d.define("sasl.mechanism.inter.broker.protocol", &BrokerConfig::sasl_mechanism_inter_broker_protocol,
             {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"},
             "The SASL mechanism brokers authenticate to each other with on a SASL_PLAINTEXT inter-broker listener "
             "(Kafka's default GSSAPI is not implemented); the credentials come from "
             "listener.name.<listener>.<mechanism>.sasl.jaas.config.");
    d.define("control.plane.listener.name", &BrokerConfig::control_plane_listener_name, {},
             "A listener that serves controller requests only (none by default).");
    d.define("listeners", &BrokerConfig::listeners, {},
             "NAME://HOST:PORT,... where the broker accepts connections (default: one PLAINTEXT listener, --listen).");
    d.define("advertised.listeners", &BrokerConfig::advertised_listeners, {},
             "NAME://HOST:PORT,... registered in zk and told to clients and brokers (default: listeners).");
    d.define("listener.security.protocol.map", &BrokerConfig::listener_security_protocol_map, {},
             "NAME:PROTOCOL,... the security protocol of each listener name (PLAINTEXT or SASL_PLAINTEXT; SSL and "
             "SASL_SSL are not served).");
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
    d.define("transaction.state.log.num.partitions", &BrokerConfig::transaction_state_log_num_partitions, at_least(1),
             "The number of partitions of __transaction_state.");
    d.define("transaction.state.log.replication.factor", &BrokerConfig::transaction_state_log_replication_factor,
             at_least(1), "The replication factor of __transaction_state (created once this many brokers are alive).");
    d.define("transaction.state.log.min.isr", &BrokerConfig::transaction_state_log_min_isr, at_least(1),
             "min.insync.replicas of __transaction_state.");
    d.define("transaction.state.log.segment.bytes", &BrokerConfig::transaction_state_log_segment_bytes, at_least(1),
             "segment.bytes of __transaction_state.");
    d.define("transaction.max.timeout.ms", &BrokerConfig::transaction_max_timeout_ms, at_least(1),
             "The largest transaction.timeout.ms a transactional producer may ask for.");
    d.define("transaction.abort.timed.out.transaction.cleanup.interval.ms",
             &BrokerConfig::transaction_abort_timed_out_transaction_cleanup_interval_ms, at_least(1),
             "How often the transaction coordinator aborts transactions open longer than their timeout.");
    d.define("transactional.id.expiration.ms", &BrokerConfig::transactional_id_expiration_ms, at_least(1),
             "How long an idle transactional id (no transaction open) is kept.");
    d.define("transaction.remove.expired.transaction.cleanup.interval.ms",
             &BrokerConfig::transaction_remove_expired_transaction_cleanup_interval_ms, at_least(1),
             "How often the transaction coordinator removes expired transactional ids.");
    d.define("transaction.version", &BrokerConfig::transaction_version, between(1, 2),
             "Gregor's teaching switch: 1 = a producer's epoch changes only at InitProducerId (Kafka 3.9); "
             "2 = every EndTxn bumps it (KIP-890 part 2), so a stale EndTxn cannot end the next transaction.");
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
    d.define("sasl.enabled.mechanisms", &BrokerConfig::sasl_enabled_mechanisms, {},
             "The SASL mechanisms SASL_PLAINTEXT listeners offer: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (Kafka's default, "
             "GSSAPI, is not served).");
    d.define("sasl.plain.users", &BrokerConfig::sasl_plain_users, {},
             "Gregor's PLAIN user list, user:password,... (Kafka sets these in a JAAS config). Sensitive.");
    d.define("authorizer.class.name", &BrokerConfig::authorizer_class_name, {},
             "Any non-empty name (Kafka's kafka.security.authorizer.AclAuthorizer) turns authorization by ACLs on: "
             "ACLs in zk /kafka-acl, checked on every request; empty: no authorization.");
    d.define("super.users", &BrokerConfig::super_users, {},
             "Principals allowed everything whatever the ACLs say, separated by ';' (User:admin;User:ANONYMOUS).");
    d.define("allow.everyone.if.no.acl.found", &BrokerConfig::allow_everyone_if_no_acl_found,
             "With the authorizer on: a resource without any ACL is open to everyone (true) or to super users only.");
    d.define("connection.failed.authentication.delay.ms", &BrokerConfig::connection_failed_authentication_delay_ms,
             at_least(0), "How long after a failed SASL authentication's answer the broker closes the connection.");
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
    // Kafka's per-listener JAAS keys: listener.name.<listener>.<mechanism>.sasl.jaas.config.
    const std::string prefix = "listener.name.", suffix = ".sasl.jaas.config";
    if (name.size() > prefix.size() + suffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      auto jaas = protocol::parse_jaas_config(value);
      if (!jaas) return Status::error(StatusCode::kInvalidArgument, name + ": " + jaas.status().message());
      listener_jaas_configs[name] = value;
      continue;
    }
    const auto* key = broker_config_def().find(name);
    if (!key) return broker_config_def().unknown(name);
    GREGOR_RETURN_IF_ERROR(key->parse(*this, value));
  }
  GREGOR_RETURN_IF_ERROR(validate_listeners());
  return topic_defaults.apply(topic_keys);
}

namespace {
std::vector<ListenerEndpoint> with_protocols(std::vector<ListenerEndpoint> endpoints, const std::string& map_text) {
  auto map = parse_security_protocol_map(map_text);
  for (auto& e : endpoints) {
    auto it = map ? map->find(e.name) : decltype(map->end()){};
    e.security_protocol = map && it != map->end() ? it->second : "PLAINTEXT";
  }
  return endpoints;
}
}  // namespace

std::vector<ListenerEndpoint> BrokerConfig::bind_endpoints() const {
  if (listeners.empty()) return {ListenerEndpoint{"PLAINTEXT", advertised_host, advertised_port, "PLAINTEXT"}};
  auto parsed = parse_listener_list("listeners", listeners);
  GREGOR_ASSERT_MSG(parsed.is_ok(), "listeners not validated: " + parsed.status().message());
  return with_protocols(*parsed, listener_security_protocol_map);
}

std::vector<ListenerEndpoint> BrokerConfig::advertised_endpoints() const {
  if (advertised_listeners.empty()) return bind_endpoints();
  auto parsed = parse_listener_list("advertised.listeners", advertised_listeners);
  GREGOR_ASSERT_MSG(parsed.is_ok(), "advertised.listeners not validated: " + parsed.status().message());
  return with_protocols(*parsed, listener_security_protocol_map);
}

Status BrokerConfig::validate_listeners() const {
  auto map = parse_security_protocol_map(listener_security_protocol_map);
  if (!map) return map.status();
  std::vector<ListenerEndpoint> bound{ListenerEndpoint{"PLAINTEXT", advertised_host, advertised_port, "PLAINTEXT"}};
  if (!listeners.empty()) {
    auto parsed = parse_listener_list("listeners", listeners);
    if (!parsed) return parsed.status();
    if (parsed->empty()) return bad("listeners", "names no listener");
    bound = *parsed;
  } else if (!advertised_listeners.empty()) {
    return bad("advertised.listeners", "needs listeners (the listeners it advertises)");
  }
  std::set<std::string> names;
  for (const auto& e : bound) {
    auto it = map->find(e.name);
    if (it == map->end())
      return bad("listener.security.protocol.map", "has no protocol for listener " + e.name + " (add " + e.name + ":PLAINTEXT)");
    // SSL and SASL_SSL need TLS, which Gregor does not serve: refusing them here is better than a
    // listener that accepts what it cannot check. The controller's connections to a control-plane
    // listener do not authenticate (NetworkClient::set_plaintext_lane): it must be PLAINTEXT.
    if (it->second != "PLAINTEXT" && it->second != "SASL_PLAINTEXT")
      return bad("listener.security.protocol.map", "listener " + e.name + " is " + it->second +
                                                       ": only PLAINTEXT and SASL_PLAINTEXT listeners are served (SSL is not implemented)");
    if (it->second == "SASL_PLAINTEXT" && e.name == control_plane_listener_name)
      return bad("listener.security.protocol.map",
                 "listener " + e.name + " is SASL_PLAINTEXT, but the control-plane listener must be PLAINTEXT");
    names.insert(e.name);
  }
  if (!advertised_listeners.empty()) {
    auto parsed = parse_listener_list("advertised.listeners", advertised_listeners);
    if (!parsed) return parsed.status();
    for (const auto& e : *parsed) {
      if (!names.count(e.name)) return bad("advertised.listeners", "listener " + e.name + " is not one of listeners");
      if (e.host.empty() || e.host == "0.0.0.0" || e.host == "::")
        return bad("advertised.listeners", "listener " + e.name + " needs a host others can reach, not '" + e.host + "'");
    }
  }
  if (!names.count(inter_broker_listener()))
    return bad("inter.broker.listener.name", "'" + inter_broker_listener() + "' is not one of listeners" +
                                                 (inter_broker_listener_name.empty() ? " (set inter.broker.listener.name)" : ""));
  if (!control_plane_listener_name.empty()) {
    if (!names.count(control_plane_listener_name))
      return bad("control.plane.listener.name", "'" + control_plane_listener_name + "' is not one of listeners");
    if (control_plane_listener_name == inter_broker_listener())
      return bad("control.plane.listener.name", "must differ from inter.broker.listener.name");
  }
  for (const std::string& m : split_commas(sasl_enabled_mechanisms))
    if (m != "PLAIN" && m != "SCRAM-SHA-256" && m != "SCRAM-SHA-512")
      return bad("sasl.enabled.mechanisms", "'" + m + "' is not served (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)");
  for (const std::string& entry : split_commas(sasl_plain_users)) {
    const size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size())
      return bad("sasl.plain.users", "an entry is not user:password");
  }
  if (!security_inter_broker_protocol.empty() && security_inter_broker_protocol != "PLAINTEXT" &&
      security_inter_broker_protocol != "SASL_PLAINTEXT")
    return bad("security.inter.broker.protocol", "expected PLAINTEXT or SASL_PLAINTEXT (SSL is not implemented), got '" +
                                                     security_inter_broker_protocol + "'");
  if (!security_inter_broker_protocol.empty() && !inter_broker_listener_name.empty())
    return bad("security.inter.broker.protocol", "only one of security.inter.broker.protocol and inter.broker.listener.name may be set");
  auto credentials = inter_broker_sasl();
  if (!credentials) return credentials.status();
  if (*credentials) {
    bool enabled = false;
    for (const std::string& m : split_commas(sasl_enabled_mechanisms)) enabled = enabled || m == (*credentials)->mechanism;
    if (!enabled)
      return bad("sasl.mechanism.inter.broker.protocol", "'" + (*credentials)->mechanism + "' is not in sasl.enabled.mechanisms");
  }
  return Status::ok();
}

Result<std::optional<protocol::SaslCredentials>> BrokerConfig::inter_broker_sasl() const {
  std::string protocol = "PLAINTEXT";
  const std::string listener = inter_broker_listener();
  auto map = parse_security_protocol_map(listener_security_protocol_map);
  if (map) {
    auto it = map->find(listener);
    if (it != map->end()) protocol = it->second;
  }
  if (protocol != "SASL_PLAINTEXT") return std::optional<protocol::SaslCredentials>{};
  auto lower = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  const std::string key =
      "listener.name." + lower(listener) + "." + lower(sasl_mechanism_inter_broker_protocol) + ".sasl.jaas.config";
  auto it = listener_jaas_configs.find(key);
  if (it == listener_jaas_configs.end())
    return bad(key, "the inter-broker listener " + listener + " is SASL_PLAINTEXT: set the broker's own username and "
                    "password here (a " + sasl_mechanism_inter_broker_protocol + " login module)");
  protocol::ClientSecurityKeys keys;
  keys.security_protocol = "SASL_PLAINTEXT";
  keys.sasl_mechanism = sasl_mechanism_inter_broker_protocol;
  keys.sasl_jaas_config = it->second;
  auto credentials = protocol::sasl_credentials_from(keys);
  if (!credentials) return Status::error(StatusCode::kInvalidArgument, key + ": " + credentials.status().message());
  return credentials;
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
