// What brokers keep in the coordination service, at Kafka's paths and in Kafka's JSON, as a
// ZooKeeper-era Kafka 3.x broker (IBP 3.x) writes them, so that Kafka's tools and operators' habits
// apply (zkCli.sh get /controller, ...). Timestamps are wall-clock ms since the Unix epoch, as
// strings; ids of clusters and topics are Kafka's Uuid strings (22 characters of URL-safe base64).
//
//   /cluster/id                          persistent {"version":"1","id":"<uuid>"}
//   /brokers/ids/N                       ephemeral  {"features":{},"listener_security_protocol_map":{...},
//                                                    "endpoints":["PLAINTEXT://h:9092"],"jmx_port":-1,
//                                                    "port":9092,"host":"h","version":5,"timestamp":"..."}
//   /controller                          ephemeral  {"version":1,"brokerid":N,"timestamp":"..."}
//   /controller_epoch                    persistent "7"  (created as "0"; each election's multi creates
//                                                    /controller and bumps it, checking its version)
//   /brokers/topics/T                    persistent {"partitions":{"0":[1,2,3],...},"topic_id":"<uuid>",
//                                                    "adding_replicas":{"0":[4]},"removing_replicas":{"0":[1]},
//                                                    "version":3}  (adding/removing: a reassignment)
//   /brokers/topics/T/partitions/P/state persistent {"controller_epoch":7,"leader":1,"version":1,
//                                                    "leader_epoch":3,"isr":[1,2]}
//   /config/topics/T                     persistent {"version":1,"config":{"min.insync.replicas":"2"}}
//   /config/changes/config_change_0000000001       {"version":2,"entity_path":"topics/T"}
//                                                    (a topic's config changed: every broker
//                                                    re-reads /config/topics/T and applies it)
//   /admin/delete_topics/T               persistent (a deletion request)
//   /isr_change_notification/isr_change_0000000001   {"version":1,"partitions":[{"topic":"T","partition":0}]}
//                                                    (a leader changed an ISR; the controller
//                                                    propagates it with UpdateMetadata)
//   /latest_producer_id_block            persistent {"version":1,"broker":N,"block_start":"0","block_end":"999"}
// and the persistent parents Kafka creates at startup (null data): persistent_roots().
// Partition state is changed only by conditional (versioned) writes: the controller's include a
// check of /controller_epoch's version, so a stale controller's write fails; a leader's ISR change
// carries the zk version it last saw, so a zombie leader's write fails.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/broker/broker_config.h"
#include "engine/core/bytes.h"
#include "engine/core/rng.h"
#include "engine/core/status.h"
#include "engine/core/topic_partition.h"

namespace gregor::broker {

namespace zk_paths {
inline std::string broker_ids() { return "/brokers/ids"; }
inline std::string broker(int32_t id) { return "/brokers/ids/" + std::to_string(id); }
inline std::string controller() { return "/controller"; }
inline std::string controller_epoch() { return "/controller_epoch"; }
inline std::string topics() { return "/brokers/topics"; }
inline std::string topic(const std::string& t) { return "/brokers/topics/" + t; }
inline std::string partitions(const std::string& t) { return topic(t) + "/partitions"; }
inline std::string partition(const std::string& t, int32_t p) { return partitions(t) + "/" + std::to_string(p); }
inline std::string partition_state(const std::string& t, int32_t p) { return partition(t, p) + "/state"; }
inline std::string topic_config(const std::string& t) { return "/config/topics/" + t; }
inline std::string config_changes() { return "/config/changes"; }
inline std::string config_change_prefix() { return "/config/changes/config_change_"; }
inline std::string delete_topics() { return "/admin/delete_topics"; }
inline std::string delete_topic(const std::string& t) { return "/admin/delete_topics/" + t; }
inline std::string isr_change_notification() { return "/isr_change_notification"; }
inline std::string isr_change_prefix() { return "/isr_change_notification/isr_change_"; }
inline std::string cluster() { return "/cluster"; }
inline std::string cluster_id() { return "/cluster/id"; }
// The persistent parents every cluster needs, in creation order (Kafka's KafkaZkClient
// createTopLevelPaths: ZkData.PersistentZkPaths and their parents); whoever starts first creates them.
std::vector<std::string> persistent_roots();
}  // namespace zk_paths

// /brokers/ids/N. endpoints: every advertised listener (Kafka's "endpoints" and
// "listener_security_protocol_map"); host and port: the first PLAINTEXT one's (null and -1 when
// none), as Kafka writes them for old readers. A registration without "endpoints" (before Kafka
// 0.10) reads as one PLAINTEXT endpoint at host:port.
struct BrokerRegistration {
  int32_t id = 0;
  std::string host;
  int32_t port = 0;
  int64_t timestamp_ms = 0;
  // Gregor's (Kafka has no such field; its tools ignore it): replicas whose logs this broker found
  // damaged at startup ("orders-0"). The controller takes them out of the ISR before it elects
  // (engine/broker/leader_election.h). Written only when there are some.
  std::vector<TopicPartition> damaged_replicas;
  std::vector<ListenerEndpoint> endpoints;
  // The endpoint of listener `name`, or null.
  const ListenerEndpoint* endpoint(const std::string& name) const;
  Bytes encode() const;
  static Result<BrokerRegistration> decode(int32_t id, ByteView data);
};

// The leader, leader epoch, ISR and controller epoch of a partition, as stored in its state znode.
struct LeaderIsrState {
  int32_t leader = -1;  // -1: no leader (offline)
  int32_t leader_epoch = 0;
  std::vector<int32_t> isr;
  int32_t controller_epoch = 0;
  Bytes encode() const;
  static Result<LeaderIsrState> decode(ByteView data);
  bool operator==(const LeaderIsrState&) const = default;
};

struct TopicAssignment {
  std::map<int32_t, std::vector<int32_t>> partitions;  // partition -> replicas in preference order
  std::string topic_id;  // Kafka's Uuid string; empty in a znode that has none (before Kafka 2.8)
  // Partitions under reassignment (KIP-455): the replicas being added and removed. partitions[p]
  // then holds every replica (the target's first, then the original's); the target is it minus
  // removing[p], the original it minus adding[p].
  std::map<int32_t, std::vector<int32_t>> adding;
  std::map<int32_t, std::vector<int32_t>> removing;
  Bytes encode() const;
  static Result<TopicAssignment> decode(ByteView data);
};

Bytes encode_topic_config(const std::map<std::string, std::string>& config);
Result<std::map<std::string, std::string>> decode_topic_config(ByteView data);

// A config change notification: {"version":2,"entity_path":"topics/T"}.
Bytes encode_config_change(const std::string& entity_path);
Result<std::string> decode_config_change(ByteView data);
// The sequence number of a sequential znode's name ("config_change_0000000007" -> 7), or -1.
int64_t sequence_of(const std::string& name);

std::string int_list(const std::vector<int32_t>& v);  // "1,2,3"

// Kafka's Uuid.toString: 16 random bytes as URL-safe base64 without padding (22 characters). The
// zero Uuid and the one Kafka reserves ("AAAAAAAAAAAAAAAAAAAAAQ") are never drawn.
std::string random_uuid(Rng& rng);
// The content of /cluster/id.
Bytes encode_cluster_id(const std::string& id);
Result<std::string> decode_cluster_id(ByteView data);
// The content of /controller.
Bytes encode_controller(int32_t broker_id, int64_t timestamp_ms);
Result<int32_t> decode_controller(ByteView data);

}  // namespace gregor::broker
