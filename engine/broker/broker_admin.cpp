// Requests about the cluster: ApiVersions, Metadata, CreateTopics, DeleteTopics.
#include <algorithm>

#include "engine/broker/async_steps.h"
#include "engine/broker/broker.h"
#include "engine/protocol/api_versions.h"
#include "engine/protocol/create_topics.h"
#include "engine/protocol/delete_topics.h"
#include "engine/protocol/metadata.h"

namespace gregor::broker {

using coord::CreateMode;
using coord::ZkError;
using protocol::ErrorCode;

namespace {
constexpr size_t kMaxTopicNameLength = 249;  // Kafka's Topic.MAX_NAME_LENGTH

bool valid_topic_name(const std::string& t) {
  if (t.empty() || t.size() > kMaxTopicNameLength || t == "." || t == "..") return false;
  return std::all_of(t.begin(), t.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
  });
}
}  // namespace

void Broker::handle_api_versions(const Request& req, ByteReader& r) {
  auto decoded = protocol::ApiVersionsRequest::decode(r, req.header.api_version);
  (void)decoded;  // the client's software name and version are informational
  ByteWriter body;
  protocol::make_api_versions_response().encode(body, req.header.api_version);
  respond_raw(req, body.take(), 0);  // ApiVersions responses always use response header v0
}

void Broker::handle_metadata(const Request& req, ByteReader& r) {
  auto decoded = protocol::MetadataRequest::decode(r, req.header.api_version);
  if (!decoded) {
    return close_bad_request(req.from, "malformed Metadata: " + decoded.status().to_string());
  }
  protocol::MetadataResponse resp;
  if (!cluster_id_.empty()) resp.cluster_id = cluster_id_;  // /cluster/id, once read
  resp.controller_id = metadata_.controller_id();
  for (const auto& [id, b] : metadata_.brokers()) resp.brokers.push_back({id, b.host, b.port, std::nullopt});
  if (resp.brokers.empty())
    resp.brokers.push_back({config_.broker_id, config_.advertised_host, config_.advertised_port, std::nullopt});
  std::vector<std::string> names;
  if (decoded->topics) {
    for (const auto& t : *decoded->topics) names.push_back(t.name.value_or(""));
  } else {
    names = metadata_.topics();
  }
  const bool may_create = decoded->allow_auto_topic_creation && config_.auto_create_topics_enable;
  for (const auto& name : names) {
    protocol::MetadataResponse::MetadataResponseTopic t;
    t.name = name;
    t.is_internal = name == "__consumer_offsets";
    auto parts = metadata_.topic_partitions(name);
    if (parts.empty()) {
      if (may_create && valid_topic_name(name)) {
        int32_t rf = std::min<int32_t>(config_.default_replication_factor,
                                       std::max<int32_t>(1, static_cast<int32_t>(metadata_.brokers().size())));
        create_topic(name, config_.num_partitions, rf, {}, [](ErrorCode, std::string) {});
        t.error_code = ErrorCode::LEADER_NOT_AVAILABLE;
      } else {
        t.error_code = valid_topic_name(name) ? ErrorCode::UNKNOWN_TOPIC_OR_PARTITION : ErrorCode::INVALID_TOPIC_EXCEPTION;
      }
    }
    for (const auto& [index, pm] : parts) {
      protocol::MetadataResponse::MetadataResponsePartition p;
      p.partition_index = index;
      p.leader_id = pm.leader;
      p.replica_nodes = pm.replicas;
      p.isr_nodes = pm.isr;
      // LEADER_NOT_AVAILABLE is retriable: clients wait for the election instead of failing.
      p.error_code = pm.leader < 0 ? ErrorCode::LEADER_NOT_AVAILABLE : ErrorCode::NONE;
      t.partitions.push_back(p);
    }
    resp.topics.push_back(std::move(t));
  }
  respond(req, resp);
}

void Broker::create_topic(const std::string& name, int32_t num_partitions, int32_t replication_factor,
                          const std::map<std::string, std::string>& configs,
                          std::function<void(ErrorCode, std::string)> done) {
  std::vector<int32_t> brokers;
  if (controller_.is_active())
    for (const auto& [id, reg] : controller_.live_brokers()) brokers.push_back(id);
  else
    for (const auto& [id, b] : metadata_.brokers()) brokers.push_back(id);
  if (brokers.empty()) brokers.push_back(config_.broker_id);
  const int32_t n = static_cast<int32_t>(brokers.size());
  if (replication_factor < 1 || replication_factor > n)
    return done(ErrorCode::INVALID_REPLICATION_FACTOR,
                "replication factor " + std::to_string(replication_factor) + " is larger than the " +
                    std::to_string(n) + " available brokers");
  // Kafka's rack-unaware assignment: a random start, replicas shifted per round of brokers.
  TopicAssignment a;
  const int32_t start_index = static_cast<int32_t>(rt_.rng().uniform(static_cast<uint64_t>(n)));
  int32_t next_shift = static_cast<int32_t>(rt_.rng().uniform(static_cast<uint64_t>(n)));
  for (int32_t p = 0; p < num_partitions; p++) {
    if (p > 0 && p % n == 0) next_shift++;
    const int32_t first = (p + start_index) % n;
    std::vector<int32_t> replicas{brokers[static_cast<size_t>(first)]};
    for (int32_t j = 0; j < replication_factor - 1; j++) {
      int32_t shift = 1 + (next_shift + j) % (n - 1);
      replicas.push_back(brokers[static_cast<size_t>((first + shift) % n)]);
    }
    a.partitions[p] = replicas;
  }
  create_topic_with_assignment(name, a.partitions, configs, std::move(done));
}

void Broker::create_topic_with_assignment(const std::string& name, const std::map<int32_t, std::vector<int32_t>>& assignment,
                                          const std::map<std::string, std::string>& configs,
                                          std::function<void(ErrorCode, std::string)> done) {
  TopicAssignment a;
  a.partitions = assignment;
  a.topic_id = random_uuid(rt_.rng());  // Kafka 2.8+ names every new topic with an id
  // The config first, then the assignment (whose creation the controller watches).
  zk_.create(zk_paths::topic_config(name), encode_topic_config(configs), CreateMode::kPersistent,
             [this, name, a, done](ZkError err, std::string) {
               if (err != ZkError::kOk && err != ZkError::kNodeExists)
                 return done(ErrorCode::UNKNOWN_SERVER_ERROR, std::string("zk: ") + coord::zk_error_name(err));
               zk_.create(zk_paths::topic(name), a.encode(), CreateMode::kPersistent, [done, name](ZkError e2, std::string) {
                 if (e2 == ZkError::kOk) return done(ErrorCode::NONE, "");
                 if (e2 == ZkError::kNodeExists) return done(ErrorCode::TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
                 done(ErrorCode::UNKNOWN_SERVER_ERROR, std::string("zk: ") + coord::zk_error_name(e2));
               });
             });
}

void Broker::handle_create_topics(const Request& req, ByteReader& r) {
  auto decoded = protocol::CreateTopicsRequest::decode(r, req.header.api_version);
  if (!decoded) {
    return close_bad_request(req.from, "malformed CreateTopics: " + decoded.status().to_string());
  }
  auto resp = std::make_shared<protocol::CreateTopicsResponse>();
  if (!controller_.is_active()) {
    for (const auto& t : decoded->topics) resp->topics.push_back({.name = t.name, .error_code = ErrorCode::NOT_CONTROLLER});
    return respond(req, *resp);
  }
  const bool validate_only = decoded->validate_only;
  const int32_t timeout_ms = decoded->timeout_ms;
  sequentially<protocol::CreateTopicsRequest::CreatableTopic>(
      decoded->topics,
      [this, resp, validate_only, timeout_ms](const protocol::CreateTopicsRequest::CreatableTopic& t, std::function<void()> next) {
        auto fail = [&](ErrorCode code, std::string msg) {
          resp->topics.push_back({.name = t.name, .error_code = code, .error_message = std::move(msg)});
          next();
        };
        if (!valid_topic_name(t.name)) return fail(ErrorCode::INVALID_TOPIC_EXCEPTION, "Topic name '" + t.name + "' is illegal");
        if (metadata_.has_topic(t.name)) return fail(ErrorCode::TOPIC_ALREADY_EXISTS, "Topic '" + t.name + "' already exists.");
        int32_t partitions = t.num_partitions == -1 ? config_.num_partitions : t.num_partitions;
        int32_t rf = t.replication_factor == -1 ? config_.default_replication_factor : t.replication_factor;
        if (partitions < 1) return fail(ErrorCode::INVALID_PARTITIONS, "Number of partitions must be larger than 0.");
        if (!t.assignments.empty()) return fail(ErrorCode::INVALID_REQUEST, "manual replica assignment is not supported");
        std::map<std::string, std::string> configs;
        for (const auto& c : t.configs)
          if (c.value) configs[c.name] = *c.value;
        TopicConfig check = config_.topic_defaults;
        Status valid = check.apply(configs);
        if (!valid.is_ok()) return fail(ErrorCode::INVALID_CONFIG, valid.message());
        if (static_cast<size_t>(rf) > controller_.live_brokers().size() || rf < 1)
          return fail(ErrorCode::INVALID_REPLICATION_FACTOR,
                      "Replication factor: " + std::to_string(rf) + " larger than available brokers: " +
                          std::to_string(controller_.live_brokers().size()) + ".");
        if (validate_only) return fail(ErrorCode::NONE, "");
        create_topic(t.name, partitions, rf, configs,
                     [this, resp, name = t.name, partitions, timeout_ms, next](ErrorCode code, std::string msg) {
                       if (code != ErrorCode::NONE || timeout_ms <= 0) {
                         resp->topics.push_back({.name = name,
                                                 .error_code = code,
                                                 .error_message = msg.empty() ? std::nullopt : std::optional<std::string>(msg)});
                         return next();
                       }
                       // Kafka answers once this broker's metadata knows a leader for every partition,
                       // or with REQUEST_TIMED_OUT after timeout_ms (the topic is created either way).
                       auto ready = [this, name, partitions] {
                         auto parts = metadata_.topic_partitions(name);
                         if (static_cast<int32_t>(parts.size()) < partitions) return false;
                         return std::all_of(parts.begin(), parts.end(), [](const auto& p) { return p.second.leader >= 0; });
                       };
                       when_metadata(ready, Duration::millis(timeout_ms), [resp, name, timeout_ms, next](bool timed_out) {
                         if (timed_out)
                           resp->topics.push_back({.name = name,
                                                   .error_code = ErrorCode::REQUEST_TIMED_OUT,
                                                   .error_message = "Topic '" + name + "' was created but its leaders were not known within " +
                                                                    std::to_string(timeout_ms) + " ms."});
                         else
                           resp->topics.push_back({.name = name, .error_code = ErrorCode::NONE});
                         next();
                       });
                     });
      },
      [this, req, resp] { respond(req, *resp); });
}

void Broker::when_metadata(std::function<bool()> ready, Duration timeout, std::function<void(bool)> done) {
  if (ready()) return done(false);
  const uint64_t id = next_delayed_id_++;
  auto& w = metadata_waits_[id];
  w.ready = std::move(ready);
  w.done = std::move(done);
  w.timer = rt_.after(timeout, [this, id] {
    auto it = metadata_waits_.find(id);
    if (it == metadata_waits_.end()) return;
    auto finished = std::move(it->second.done);
    metadata_waits_.erase(it);
    finished(true);
  });
}

void Broker::check_metadata_waits() {
  std::vector<std::function<void(bool)>> ready;
  for (auto it = metadata_waits_.begin(); it != metadata_waits_.end();) {
    if (it->second.ready()) {
      rt_.cancel(it->second.timer);
      ready.push_back(std::move(it->second.done));
      it = metadata_waits_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& done : ready) done(false);
}

void Broker::handle_delete_topics(const Request& req, ByteReader& r) {
  auto decoded = protocol::DeleteTopicsRequest::decode(r, req.header.api_version);
  if (!decoded) {
    return close_bad_request(req.from, "malformed DeleteTopics: " + decoded.status().to_string());
  }
  auto resp = std::make_shared<protocol::DeleteTopicsResponse>();
  if (!controller_.is_active()) {
    for (const auto& t : decoded->topic_names) resp->responses.push_back({.name = t, .error_code = ErrorCode::NOT_CONTROLLER});
    return respond(req, *resp);
  }
  sequentially<std::string>(
      decoded->topic_names,
      [this, resp](const std::string& t, std::function<void()> next) {
        if (!metadata_.has_topic(t)) {
          resp->responses.push_back({.name = t, .error_code = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION});
          return next();
        }
        zk_.create(zk_paths::delete_topic(t), {}, CreateMode::kPersistent, [resp, t, next](ZkError err, std::string) {
          resp->responses.push_back({.name = t,
                                     .error_code = err == ZkError::kOk || err == ZkError::kNodeExists
                                                       ? ErrorCode::NONE
                                                       : ErrorCode::UNKNOWN_SERVER_ERROR});
          next();
        });
      },
      [this, req, resp] { respond(req, *resp); });
}

}  // namespace gregor::broker
