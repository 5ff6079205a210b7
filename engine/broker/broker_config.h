// BrokerConfig: a broker's configuration, with Kafka's keys and Kafka's defaults.
//
// Scenario files, `gregor broker --config k=v` and tests all set configuration as Kafka spells it;
// apply rejects unknown keys and malformed values with a message naming the key, so a typo in
// a scenario is an error, not a silently ignored setting. Topic-level overrides (min.insync.replicas,
// unclean.leader.election.enable, segment.bytes, retention.ms, ...) use the same keys
// (engine/broker/topic_config.h).
//
// Gregor's own switches, for teaching, are prefixed as Kafka's are not:
//   replication.truncation = leader-epoch (default; KIP-101 with KIP-279's epoch lookup, Kafka 2.0+)
//   | leader-epoch-kip101 (KIP-101 alone, Kafka 0.11-1.1: a follower truncates to the leader's end
//   offset for its epoch, ignoring the epoch the leader answers with, so a fast double failover can
//   leave logs diverged) | high-watermark (before KIP-101: a follower truncates to its own high
//   watermark when it becomes a follower).
//   gregor.kafka7164.truncate.on.leader.change.only = false (default: a follower truncates on every
//   leader epoch change, as Kafka 2.1+ does) | true (Kafka 1.1 to 2.0, KAFKA-7164: a follower whose
//   leader stays the same broker across an epoch change keeps fetching without truncating, so a
//   replica that missed an epoch in between can keep a diverged log).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/broker/topic_config.h"
#include "engine/core/config_def.h"
#include "engine/core/status.h"
#include "engine/core/types.h"
#include "engine/group/group_config.h"
#include "engine/protocol/sasl_client.h"
#include "engine/txn/txn_config.h"

namespace gregor::broker {

// One listener of a broker, as Kafka writes it: NAME://HOST:PORT, with the security protocol the
// listener.security.protocol.map gives NAME.
struct ListenerEndpoint {
  std::string name;  // "PLAINTEXT", "CLIENT", "REPLICATION", ...
  std::string host;
  int32_t port = 0;
  std::string security_protocol = "PLAINTEXT";
  bool operator==(const ListenerEndpoint&) const = default;
};
// Kafka's security protocol ids (SecurityProtocol.id), as UpdateMetadata carries them; -1 for a name
// Kafka does not know.
int16_t security_protocol_id(const std::string& name);
// "NAME://HOST:PORT,NAME2://HOST:PORT" (listeners, advertised.listeners); an error names the key.
Result<std::vector<ListenerEndpoint>> parse_listener_list(const std::string& key, const std::string& text);
// "NAME:PROTOCOL,NAME2:PROTOCOL" (listener.security.protocol.map).
Result<std::map<std::string, std::string>> parse_security_protocol_map(const std::string& text);

enum class TruncationMode { kLeaderEpoch, kLeaderEpochKip101, kHighWatermark };

// The group coordinator's settings (offsets.topic.*, group.*) are broker configs too: they live in
// group::GroupConfig so that engine/group reads them without knowing the broker.
// So are the transaction coordinator's (transaction.*, transactional.id.*), in txn::TxnConfig.
struct BrokerConfig : group::GroupConfig, txn::TxnConfig {
  int32_t broker_id = 1;
  std::vector<NodeId> zookeeper_servers;  // zk server node ids (zookeeper.connect's host:port list)
  std::string zookeeper_chroot;           // zookeeper.connect's chroot suffix ("/kafka"), or 
  // With `listeners` unset (the default), the broker has one PLAINTEXT listener at this address
  // (`gregor broker --listen`/--advertised, or the simulator's node name).
  std::string advertised_host = "127.0.0.1";
  int32_t advertised_port = 9092;
  // Where this broker's partitions live, as DescribeLogDirs names it (Kafka's log.dirs, one
  // directory): the real runtime's --data-dir; the simulator names one per broker.
  std::string log_dir = "/var/lib/gregor";
  // Kafka's listener keys. listeners: where the broker accepts connections, one listener per name;
  // advertised.listeners: what it registers in zk and tells others (default: listeners);
  // listener.security.protocol.map: each name's protocol; inter.broker.listener.name: the listener
  // brokers replicate over and the controller reaches them on (default: the one named PLAINTEXT);
  // control.plane.listener.name: a listener for controller requests only. Controller requests
  // (LeaderAndIsr, UpdateMetadata, StopReplica, ControlledShutdown) are served only on the
  // inter-broker and control-plane listeners: on any other they are refused.
  std::string listeners;
  std::string advertised_listeners;
  std::string listener_security_protocol_map = "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL";
  std::string inter_broker_listener_name;
  std::string control_plane_listener_name;
  // security.inter.broker.protocol: Kafka's older way to pick the inter-broker listener (the one
  // named after the protocol, PLAINTEXT or SASL_PLAINTEXT); not together with
  // inter.broker.listener.name. Unset: PLAINTEXT.
  std::string security_inter_broker_protocol;
  // Inter-broker SASL, when the inter-broker listener is SASL_PLAINTEXT: the mechanism
  // (sasl.mechanism.inter.broker.protocol; Kafka's default GSSAPI is not implemented, Gregor's is
  // PLAIN) and the broker's own credentials, from Kafka's per-listener JAAS key
  // listener.name.<listener>.<mechanism>.sasl.jaas.config (both names lower-case), e.g.
  // listener.name.replication.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.
  // PlainLoginModule required username="broker" password="pw"; . Every broker-to-broker client
  // (replica fetchers, the controller's channel, ControlledShutdown) authenticates with them.
  std::string sasl_mechanism_inter_broker_protocol = "PLAIN";
  std::map<std::string, std::string> listener_jaas_configs;  // by full key. Sensitive: never described

  TopicConfig topic_defaults;  // log.* / broker-level defaults of topic configs
  int32_t num_partitions = 1;
  int32_t default_replication_factor = 1;
  bool auto_create_topics_enable = true;
  int64_t replica_lag_time_max_ms = 30000;
  int64_t replica_fetch_wait_max_ms = 500;
  int32_t replica_fetch_min_bytes = 1;
  int32_t replica_fetch_max_bytes = 1048576;
  int64_t replica_fetch_backoff_ms = 1000;
  int64_t replica_socket_timeout_ms = 30000;
  int64_t replica_high_watermark_checkpoint_interval_ms = 5000;
  int64_t zookeeper_session_timeout_ms = 18000;
  int64_t controller_socket_timeout_ms = 30000;
  bool controlled_shutdown_enable = true;
  int32_t controlled_shutdown_max_retries = 3;
  int64_t controlled_shutdown_retry_backoff_ms = 5000;
  bool auto_leader_rebalance_enable = true;
  int64_t leader_imbalance_check_interval_seconds = 300;
  int64_t transactional_id_expiration_ms = 604800000;
  int32_t socket_request_max_bytes = 104857600;
  // SASL on SASL_PLAINTEXT listeners (engine/broker/sasl_authenticator.h). Kafka's default for
  // sasl.enabled.mechanisms is GSSAPI, which Gregor does not serve: its default is the three it does.
  std::string sasl_enabled_mechanisms = "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512";
  // PLAIN's users, user:password,... (Gregor's key, in place of Kafka's JAAS
  // listener.name.<l>.plain.sasl.jaas.config user_<name>="<password>" entries). Sensitive: never
  // described.
  std::string sasl_plain_users;
  int64_t connection_failed_authentication_delay_ms = 100;
  // Authorization (engine/broker/authorizer.h): any non-empty authorizer.class.name (Kafka's
  // kafka.security.authorizer.AclAuthorizer) turns ACLs on; super.users is "User:alice;User:bob".
  std::string authorizer_class_name;
  std::string super_users;
  bool allow_everyone_if_no_acl_found = false;
  TruncationMode replication_truncation = TruncationMode::kLeaderEpoch;
  bool truncate_on_leader_change_only = false;  // gregor.kafka7164.truncate.on.leader.change.only

  // Applies k=v pairs with Kafka's keys; an unknown key or bad value is an error naming it.
  // Topic-level keys set the topic defaults, under their broker names (log.segment.bytes) or
  // their topic names (segment.bytes).
  Status apply(const std::map<std::string, std::string>& settings);
  // Every broker config Gregor knows with its value, topic defaults under their broker names
  // (log.segment.bytes, ...): what DescribeConfigs answers for a BROKER resource.
  std::map<std::string, std::string> to_map() const;

  // The listeners to bind (listeners), and the endpoints registered in zk (advertised.listeners),
  // each with its security protocol; without `listeners`, one PLAINTEXT endpoint at
  // advertised_host:advertised_port. REQUIRES: apply succeeded (the keys are consistent).
  std::vector<ListenerEndpoint> bind_endpoints() const;
  std::vector<ListenerEndpoint> advertised_endpoints() const;
  // The name of the listener brokers talk to each other on.
  std::string inter_broker_listener() const {
    if (!inter_broker_listener_name.empty()) return inter_broker_listener_name;
    return security_inter_broker_protocol.empty() ? "PLAINTEXT" : security_inter_broker_protocol;
  }
  // The credentials this broker authenticates with to other brokers: nullopt when the inter-broker
  // listener is PLAINTEXT; an error naming the key when they are missing or malformed.
  Result<std::optional<protocol::SaslCredentials>> inter_broker_sasl() const;
  // Whether controller requests may arrive on `listener` ("": a runtime without listener names,
  // the simulator: always).
  bool serves_controller_requests(const std::string& listener) const {
    return listener.empty() || listener == inter_broker_listener() ||
           (!control_plane_listener_name.empty() && listener == control_plane_listener_name);
  }
  // The listener keys checked together: names unique and in the protocol map, protocols supported,
  // advertised names among the listeners, the inter-broker and control-plane names among them.
  Status validate_listeners() const;
};

// The broker's own keys, declared once (engine/core/config_def.h). Broker configs are static in
// Gregor: a broker reads them at start.
const ConfigDef<BrokerConfig>& broker_config_def();
// --help text: the broker's keys, then the topic defaults under their broker names.
std::string broker_config_help();

}  // namespace gregor::broker
