#include "engine/broker/zk_data.h"

#include "engine/core/json.h"
#include "engine/log/log.h"

namespace gregor::broker {

namespace zk_paths {
std::vector<std::string> persistent_roots() {
  return {"/consumers",        "/brokers",        "/brokers/ids",          "/brokers/topics",
          "/brokers/seqid",    "/config",         "/config/changes",       "/config/topics",
          "/config/clients",   "/config/users",   "/config/brokers",       "/config/ips",
          "/admin",            "/admin/delete_topics", "/isr_change_notification",
          "/latest_producer_id_block", "/log_dir_event_notification"};
}
}  // namespace zk_paths

namespace {
Bytes to_bytes_json(const Json& j) { return to_bytes(j.dump()); }
Result<Json> parse_json(ByteView data, const char* what) {
  auto j = Json::parse(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
  if (!j) return Status::error(StatusCode::kCorruption, std::string("bad ") + what + " znode: " + j.status().message());
  if (!j->is_object()) return Status::error(StatusCode::kCorruption, std::string("bad ") + what + " znode: not an object");
  return j;
}
Json int_array(const std::vector<int32_t>& v) {
  Json::Array a;
  for (int32_t x : v) a.push_back(Json(x));
  return Json(std::move(a));
}
std::vector<int32_t> to_ints(const Json& j) {
  std::vector<int32_t> v;
  for (const auto& x : j.as_array()) v.push_back(static_cast<int32_t>(x.as_int()));
  return v;
}
}  // namespace

std::string int_list(const std::vector<int32_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); i++) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

const ListenerEndpoint* BrokerRegistration::endpoint(const std::string& name) const {
  for (const auto& e : endpoints)
    if (e.name == name) return &e;
  return nullptr;
}

Bytes BrokerRegistration::encode() const {
  Json::Object o;
  o["features"] = Json(Json::Object{});  // version 5 (IBP 2.7+): finalized features live in /feature
  o["version"] = Json(5);
  const ListenerEndpoint* plaintext = nullptr;
  for (const auto& e : endpoints)
    if (!plaintext && e.security_protocol == "PLAINTEXT") plaintext = &e;
  o["host"] = plaintext ? Json(plaintext->host) : Json(nullptr);
  o["port"] = Json(plaintext ? plaintext->port : -1);
  o["jmx_port"] = Json(-1);
  o["timestamp"] = Json(std::to_string(timestamp_ms));
  Json::Array list;
  Json::Object proto;
  for (const auto& e : endpoints) {
    const bool v6 = e.host.find(':') != std::string::npos;
    list.push_back(Json(e.name + "://" + (v6 ? "[" + e.host + "]" : e.host) + ":" + std::to_string(e.port)));
    proto[e.name] = Json(e.security_protocol);
  }
  o["endpoints"] = Json(std::move(list));
  o["listener_security_protocol_map"] = Json(std::move(proto));
  if (!damaged_replicas.empty()) {
    Json::Array damaged;
    for (const auto& tp : damaged_replicas) damaged.push_back(Json(tp.str()));
    o["damaged_replicas"] = Json(std::move(damaged));
  }
  return to_bytes_json(Json(std::move(o)));
}

Result<BrokerRegistration> BrokerRegistration::decode(int32_t id, ByteView data) {
  auto j = parse_json(data, "broker registration");
  if (!j) return j.status();
  BrokerRegistration r;
  r.id = id;
  r.host = (*j)["host"].as_string();
  r.port = static_cast<int32_t>((*j)["port"].as_int());
  r.timestamp_ms = std::strtoll((*j)["timestamp"].as_string("0").c_str(), nullptr, 10);
  if ((*j)["damaged_replicas"].is_array())
    for (const auto& name : (*j)["damaged_replicas"].as_array()) {
      std::string topic;
      int32_t partition = 0;
      if (name.is_string() && log::parse_log_dir_name(name.as_string(), &topic, &partition))
        r.damaged_replicas.push_back(TopicPartition{topic, partition});
    }
  const Json& list = (*j)["endpoints"];
  if (list.is_array() && !list.as_array().empty()) {
    std::string text;
    for (const auto& e : list.as_array()) text += (text.empty() ? "" : ",") + e.as_string();
    auto parsed = parse_listener_list("endpoints", text);
    if (!parsed) return Status::error(StatusCode::kCorruption, "bad broker registration znode: " + parsed.status().message());
    r.endpoints = *parsed;
    const Json& map = (*j)["listener_security_protocol_map"];
    for (auto& e : r.endpoints) {
      const Json& p = map.is_object() ? map[e.name] : Json();
      e.security_protocol = p.is_string() ? p.as_string() : "PLAINTEXT";
    }
  } else {
    r.endpoints.push_back(ListenerEndpoint{"PLAINTEXT", r.host, r.port, "PLAINTEXT"});
  }
  return r;
}

Bytes LeaderIsrState::encode() const {
  Json::Object o;
  o["controller_epoch"] = Json(controller_epoch);
  o["leader"] = Json(leader);
  o["version"] = Json(1);
  o["leader_epoch"] = Json(leader_epoch);
  o["isr"] = int_array(isr);
  return to_bytes_json(Json(std::move(o)));
}

Result<LeaderIsrState> LeaderIsrState::decode(ByteView data) {
  auto j = parse_json(data, "partition state");
  if (!j) return j.status();
  LeaderIsrState s;
  s.controller_epoch = static_cast<int32_t>((*j)["controller_epoch"].as_int());
  s.leader = static_cast<int32_t>((*j)["leader"].as_int(-1));
  s.leader_epoch = static_cast<int32_t>((*j)["leader_epoch"].as_int());
  s.isr = to_ints((*j)["isr"]);
  return s;
}

Bytes TopicAssignment::encode() const {
  Json::Object parts;
  for (const auto& [p, replicas] : partitions) parts[std::to_string(p)] = int_array(replicas);
  Json::Object o;
  // Version 3 (Kafka 2.8+) carries the topic id; a znode without one stays version 2.
  o["version"] = Json(topic_id.empty() ? 2 : 3);
  if (!topic_id.empty()) o["topic_id"] = Json(topic_id);
  o["partitions"] = Json(std::move(parts));
  // A partition under reassignment (KIP-455) lists the replicas being added and removed; its
  // "partitions" entry holds them all (the target's replicas first, then the original's).
  auto replica_map = [](const std::map<int32_t, std::vector<int32_t>>& m) {
    Json::Object out;
    for (const auto& [p, replicas] : m)
      if (!replicas.empty()) out[std::to_string(p)] = int_array(replicas);
    return Json(std::move(out));
  };
  o["adding_replicas"] = replica_map(adding);
  o["removing_replicas"] = replica_map(removing);
  return to_bytes_json(Json(std::move(o)));
}

Result<TopicAssignment> TopicAssignment::decode(ByteView data) {
  auto j = parse_json(data, "topic assignment");
  if (!j) return j.status();
  TopicAssignment a;
  a.topic_id = (*j)["topic_id"].as_string("");
  for (const auto& [k, v] : (*j)["partitions"].as_object())
    a.partitions[static_cast<int32_t>(std::strtol(k.c_str(), nullptr, 10))] = to_ints(v);
  for (const auto& [k, v] : (*j)["adding_replicas"].as_object())
    if (auto r = to_ints(v); !r.empty()) a.adding[static_cast<int32_t>(std::strtol(k.c_str(), nullptr, 10))] = r;
  for (const auto& [k, v] : (*j)["removing_replicas"].as_object())
    if (auto r = to_ints(v); !r.empty()) a.removing[static_cast<int32_t>(std::strtol(k.c_str(), nullptr, 10))] = r;
  return a;
}

Bytes encode_topic_config(const std::map<std::string, std::string>& config) {
  Json::Object c;
  for (const auto& [k, v] : config) c[k] = Json(v);
  Json::Object o;
  o["version"] = Json(1);
  o["config"] = Json(std::move(c));
  return to_bytes_json(Json(std::move(o)));
}

Result<std::map<std::string, std::string>> decode_topic_config(ByteView data) {
  auto j = parse_json(data, "topic config");
  if (!j) return j.status();
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : (*j)["config"].as_object()) m[k] = v.as_string();
  return m;
}

Bytes encode_config_change(const std::string& entity_path) {
  Json::Object o;
  o["version"] = Json(2);
  o["entity_path"] = Json(entity_path);
  return to_bytes_json(Json(std::move(o)));
}

Result<std::string> decode_config_change(ByteView data) {
  auto j = parse_json(data, "config change notification");
  if (!j) return j.status();
  const std::string path = (*j)["entity_path"].as_string();
  if (path.empty()) return Status::error(StatusCode::kCorruption, "config change notification without entity_path");
  return path;
}

std::string random_uuid(Rng& rng) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (;;) {
    const uint64_t hi = rng.next_u64(), lo = rng.next_u64();
    // Kafka's Uuid.ZERO_UUID and Uuid.ONE_UUID are reserved.
    if (hi == 0 && lo <= 1) continue;
    uint8_t bytes[16];
    for (int i = 0; i < 8; i++) {
      bytes[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
      bytes[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
    }
    std::string out;
    for (int i = 0; i < 16; i += 3) {
      const uint32_t chunk = static_cast<uint32_t>(bytes[i]) << 16 | (i + 1 < 16 ? static_cast<uint32_t>(bytes[i + 1]) << 8 : 0) |
                             (i + 2 < 16 ? bytes[i + 2] : 0u);
      const int chars = i + 2 < 16 ? 4 : (i + 1 < 16 ? 3 : 2);
      for (int k = 0; k < chars; k++) out.push_back(kAlphabet[(chunk >> (18 - 6 * k)) & 63]);
    }
    return out;
  }
}

Bytes encode_cluster_id(const std::string& id) {
  Json::Object o;
  o["version"] = Json("1");  // Kafka writes this version as a string
  o["id"] = Json(id);
  return to_bytes_json(Json(std::move(o)));
}

Result<std::string> decode_cluster_id(ByteView data) {
  auto j = parse_json(data, "cluster id");
  if (!j) return j.status();
  const std::string id = (*j)["id"].as_string("");
  if (id.empty()) return Status::error(StatusCode::kCorruption, "bad cluster id znode: no id");
  return id;
}

Bytes encode_controller(int32_t broker_id, int64_t timestamp_ms) {
  Json::Object o;
  o["version"] = Json(1);
  o["brokerid"] = Json(broker_id);
  o["timestamp"] = Json(std::to_string(timestamp_ms));
  return to_bytes_json(Json(std::move(o)));
}

Result<int32_t> decode_controller(ByteView data) {
  auto j = parse_json(data, "controller");
  if (!j) return j.status();
  if (!(*j)["brokerid"].is_int()) return Status::error(StatusCode::kCorruption, "bad controller znode: no brokerid");
  return static_cast<int32_t>((*j)["brokerid"].as_int());
}

int64_t sequence_of(const std::string& name) {
  const size_t n = name.size();
  if (n < 10) return -1;
  int64_t v = 0;
  for (size_t i = n - 10; i < n; i++) {
    if (name[i] < '0' || name[i] > '9') return -1;
    v = v * 10 + (name[i] - '0');
  }
  return v;
}

}  // namespace gregor::broker
