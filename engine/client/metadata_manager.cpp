#include "engine/client/metadata_manager.h"

#include "engine/protocol/metadata.h"

namespace gregor::client {

namespace {
constexpr int16_t kMetadataVersion = 4;
}

MetadataManager::MetadataManager(Runtime& rt, NetworkClient& net, std::vector<NodeId> bootstrap, Duration request_timeout,
                                 Duration max_age)
    : rt_(rt), net_(net), bootstrap_(std::move(bootstrap)), request_timeout_(request_timeout), max_age_(max_age) {
  GREGOR_ASSERT(!bootstrap_.empty());
}

void MetadataManager::start() {
  request_update();
  // Periodic refresh (metadata.max.age.ms).
  rt_.after(max_age_, [this] { start(); });
}

void MetadataManager::add_topic(const std::string& topic) {
  if (wanted_.insert(topic).second) request_update();
}

namespace {
// Errors about a topic that no retry can cure: the client gives up on the topic at once.
bool fatal_topic_error(protocol::ErrorCode e) {
  return e == protocol::ErrorCode::INVALID_TOPIC_EXCEPTION || e == protocol::ErrorCode::TOPIC_AUTHORIZATION_FAILED;
}
}  // namespace

protocol::ErrorCode MetadataManager::topic_error(const std::string& topic) const {
  auto it = topic_errors_.find(topic);
  return it == topic_errors_.end() ? protocol::ErrorCode::NONE : it->second;
}

void MetadataManager::request_update() {
  if (in_flight_) {
    again_ = true;
    return;
  }
  send();
}

NodeId MetadataManager::any_broker() {
  if (brokers_.empty()) return bootstrap_[rt_.rng().uniform(bootstrap_.size())];
  auto it = brokers_.begin();
  std::advance(it, static_cast<long>(rt_.rng().uniform(brokers_.size())));
  return NodeId{it->first};
}

void MetadataManager::send() {
  in_flight_ = true;
  again_ = false;
  protocol::MetadataRequest req;
  std::vector<protocol::MetadataRequest::MetadataRequestTopic> topics;
  for (const auto& t : wanted_) topics.push_back({.name = t});
  req.topics = topics;
  req.allow_auto_topic_creation = allow_auto_topic_creation_;
  NodeId to = any_broker();
  net_.send(to, req, kMetadataVersion, request_timeout_, [this](protocol::ErrorCode err, ByteReader* body) {
    in_flight_ = false;
    std::optional<protocol::MetadataResponse> resp;
    if (err == protocol::ErrorCode::NONE && body) {
      auto r = protocol::MetadataResponse::decode(*body, kMetadataVersion);
      if (r) resp = std::move(*r);
    }
    if (!resp) {
      // Try another broker after a short backoff (retry.backoff.ms).
      rt_.after(Duration::millis(100), [this] { request_update(); });
      return;
    }
    brokers_.clear();
    for (const auto& b : resp->brokers) {
      brokers_[b.node_id] = {b.host, b.port};
      rt_.learn_address(NodeId{b.node_id}, b.host, b.port);
    }
    controller_id_ = resp->controller_id;
    bool incomplete = false;
    for (const auto& t : resp->topics) {
      const std::string name = t.name.value_or("");
      if (fatal_topic_error(t.error_code)) {
        topic_errors_[name] = t.error_code;
        wanted_.erase(name);  // asking again would get the same answer
        continue;
      }
      topic_errors_.erase(name);
      if (t.error_code != protocol::ErrorCode::NONE && t.partitions.empty()) {
        incomplete = true;  // e.g. LEADER_NOT_AVAILABLE while the topic is being created
        continue;
      }
      std::vector<PartitionInfo> parts(t.partitions.size());
      for (const auto& p : t.partitions) {
        if (p.partition_index < 0 || static_cast<size_t>(p.partition_index) >= parts.size()) continue;
        parts[static_cast<size_t>(p.partition_index)] = PartitionInfo{p.leader_id, p.replica_nodes, p.isr_nodes, p.error_code};
        if (p.leader_id < 0) incomplete = true;
      }
      topics_[name] = std::move(parts);
    }
    updates_++;
    if (listener_) listener_();
    if (again_)
      send();
    else if (incomplete)
      rt_.after(Duration::millis(100), [this] { request_update(); });
  });
}

const std::vector<PartitionInfo>* MetadataManager::partitions(const std::string& topic) const {
  auto it = topics_.find(topic);
  return it == topics_.end() ? nullptr : &it->second;
}

int32_t MetadataManager::leader(const std::string& topic, int32_t partition) const {
  auto* p = partitions(topic);
  if (!p || partition < 0 || static_cast<size_t>(partition) >= p->size()) return -1;
  return (*p)[static_cast<size_t>(partition)].leader;
}

std::vector<int32_t> MetadataManager::broker_ids() const {
  std::vector<int32_t> ids;
  for (const auto& [id, b] : brokers_) ids.push_back(id);
  return ids;
}

}  // namespace gregor::client
