// Configs over the wire: DescribeConfigs, AlterConfigs, IncrementalAlterConfigs (kafka-configs,
// AdminClient). As in ZooKeeper-era Kafka, any broker answers for a topic: it reads or writes
// /config/topics/T itself, and a change reaches every broker through /config/changes
// (watch_config_changes). Broker configs are static in Gregor (set at start with --config): they
// can be described, not altered.
#include <algorithm>
#include <set>

#include "engine/broker/async_steps.h"
#include "engine/broker/broker.h"
#include "engine/protocol/alter_configs.h"
#include "engine/protocol/describe_configs.h"

namespace gregor::broker {

using coord::CreateMode;
using coord::ZkError;
using protocol::ConfigOperation;
using protocol::ConfigResourceType;
using protocol::ConfigSource;
using protocol::ErrorCode;

namespace {

std::string zk_failure(ZkError e) { return std::string("zk: ") + coord::zk_error_name(e); }

using DescribedConfig = protocol::DescribeConfigsResponse::DescribeConfigsResourceResult;

DescribedConfig described(const std::string& name, const std::string& value, ConfigSource source, bool read_only,
                          int16_t version) {
  DescribedConfig c;
  c.name = name;
  c.value = value;
  c.read_only = read_only;
  if (version == 0)
    c.is_default = source == ConfigSource::DEFAULT_CONFIG;
  else
    c.config_source = static_cast<int8_t>(source);
  return c;
}

}  // namespace

void Broker::alter_topic_config(const std::string& topic, const std::map<std::string, std::optional<std::string>>& changes,
                                std::function<void(ErrorCode, std::string)> done) {
  edit_topic_config(
      topic,
      [changes](std::map<std::string, std::string>& overrides) {
        for (const auto& [k, v] : changes) {
          if (v)
            overrides[k] = *v;
          else
            overrides.erase(k);
        }
        return Status::ok();
      },
      /*validate_only=*/false, std::move(done));
}

void Broker::edit_topic_config(const std::string& topic, TopicConfigEdit edit, bool validate_only,
                               std::function<void(ErrorCode, std::string)> done) {
  const std::string path = zk_paths::topic_config(topic);
  zk_.get_data(path, false, [this, topic, edit, validate_only, path, done](ZkError err, Bytes data, coord::Stat stat) {
    if (err == ZkError::kNoNode) return done(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "Topic '" + topic + "' does not exist.");
    if (err != ZkError::kOk) return done(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(err));
    auto current = decode_topic_config(as_view(data));
    if (!current) return done(ErrorCode::UNKNOWN_SERVER_ERROR, current.status().to_string());
    std::map<std::string, std::string> merged = *current;
    Status edited = edit(merged);
    if (!edited.is_ok()) return done(ErrorCode::INVALID_CONFIG, edited.message());
    TopicConfig check = config_.topic_defaults;
    Status valid = check.apply(merged);
    if (!valid.is_ok()) return done(ErrorCode::INVALID_CONFIG, valid.message());
    if (validate_only) return done(ErrorCode::NONE, "");
    zk_.set_data(path, encode_topic_config(merged), stat.version,
                 [this, topic, edit, done](ZkError e2, coord::Stat) {
                   // Someone else altered it meanwhile: edit theirs.
                   if (e2 == ZkError::kBadVersion) return edit_topic_config(topic, edit, false, done);
                   if (e2 != ZkError::kOk) return done(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(e2));
                   zk_.create(zk_paths::config_change_prefix(), encode_config_change("topics/" + topic),
                              CreateMode::kPersistentSequential, [done](ZkError e3, std::string) {
                                if (e3 != ZkError::kOk) return done(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(e3));
                                done(ErrorCode::NONE, "");
                              });
                 });
  });
}

void Broker::handle_describe_configs(const Request& req, ByteReader& r) {
  auto decoded = protocol::DescribeConfigsRequest::decode(r, req.header.api_version);
  if (!decoded) return close_bad_request(req.from, "malformed DescribeConfigs: " + decoded.status().to_string());
  using Resource = protocol::DescribeConfigsRequest::DescribeConfigsResource;
  auto resp = std::make_shared<protocol::DescribeConfigsResponse>();
  const int16_t version = req.header.api_version;
  const bool synonyms = version >= 1 && decoded->include_synonyms;
  sequentially<Resource>(
      decoded->resources,
      [this, resp, version, synonyms](const Resource& res, std::function<void()> next) {
        protocol::DescribeConfigsResponse::DescribeConfigsResult out;
        out.resource_type = res.resource_type;
        out.resource_name = res.resource_name;
        auto wanted = [keys = res.configuration_keys](const std::string& k) {
          return !keys || std::find(keys->begin(), keys->end(), k) != keys->end();
        };
        auto finish = [resp, next](protocol::DescribeConfigsResponse::DescribeConfigsResult result) {
          resp->results.push_back(std::move(result));
          next();
        };
        auto fail = [finish, out](ErrorCode code, std::string msg) mutable {
          out.error_code = code;
          out.error_message = std::move(msg);
          finish(std::move(out));
        };
        if (res.resource_type == static_cast<int8_t>(ConfigResourceType::BROKER)) {
          if (!res.resource_name.empty() && res.resource_name != std::to_string(config_.broker_id))
            return fail(ErrorCode::INVALID_REQUEST, "Unexpected broker id, expected " + std::to_string(config_.broker_id) +
                                                        " or empty string, but received " + res.resource_name);
          // Static configs only: everything is read-only, set by `gregor broker --config` or defaulted.
          const auto defaults = BrokerConfig{}.to_map();
          for (const auto& [k, v] : config_.to_map()) {
            if (!wanted(k)) continue;
            auto d = defaults.find(k);
            bool is_default = k != "broker.id" && d != defaults.end() && d->second == v;
            ConfigSource source = is_default ? ConfigSource::DEFAULT_CONFIG : ConfigSource::STATIC_BROKER_CONFIG;
            DescribedConfig c = described(k, v, source, /*read_only=*/true, version);
            if (synonyms) c.synonyms.push_back({k, v, static_cast<int8_t>(source)});
            out.configs.push_back(std::move(c));
          }
          return finish(std::move(out));
        }
        if (res.resource_type != static_cast<int8_t>(ConfigResourceType::TOPIC))
          return fail(ErrorCode::INVALID_REQUEST,
                      "Unsupported resource type " + std::to_string(res.resource_type) + ": Gregor describes topics (2) and brokers (4)");
        zk_.get_data(zk_paths::topic_config(res.resource_name), false,
                     [this, out, wanted, finish, fail, version, synonyms](ZkError err, Bytes data, coord::Stat) mutable {
                       if (err == ZkError::kNoNode)
                         return fail(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "Topic '" + out.resource_name + "' does not exist.");
                       if (err != ZkError::kOk) return fail(ErrorCode::UNKNOWN_SERVER_ERROR, zk_failure(err));
                       auto overrides = decode_topic_config(as_view(data));
                       TopicConfig effective = config_.topic_defaults;
                       Status s = overrides ? effective.apply(*overrides) : overrides.status();
                       if (!s.is_ok()) return fail(ErrorCode::UNKNOWN_SERVER_ERROR, s.to_string());
                       const auto builtin = TopicConfig{}.to_map();
                       const auto broker_level = config_.topic_defaults.to_map();
                       for (const auto& [k, v] : effective.to_map()) {
                         if (!wanted(k)) continue;
                         const std::string broker_key = TopicConfig::broker_synonym(k);
                         const bool overridden = overrides->count(k) > 0;
                         const bool static_set = broker_level.at(k) != builtin.at(k);
                         ConfigSource source = overridden ? ConfigSource::DYNAMIC_TOPIC_CONFIG
                                               : static_set ? ConfigSource::STATIC_BROKER_CONFIG
                                                            : ConfigSource::DEFAULT_CONFIG;
                         DescribedConfig c = described(k, v, source, /*read_only=*/false, version);
                         if (synonyms) {
                           // Kafka's order: the winning source first, then what it hides.
                           if (overridden) c.synonyms.push_back({k, overrides->at(k), static_cast<int8_t>(ConfigSource::DYNAMIC_TOPIC_CONFIG)});
                           if (static_set)
                             c.synonyms.push_back({broker_key, broker_level.at(k), static_cast<int8_t>(ConfigSource::STATIC_BROKER_CONFIG)});
                           c.synonyms.push_back({broker_key, builtin.at(k), static_cast<int8_t>(ConfigSource::DEFAULT_CONFIG)});
                         }
                         out.configs.push_back(std::move(c));
                       }
                       finish(std::move(out));
                     });
      },
      [this, req, resp] { respond(req, *resp); });
}

namespace {

// Why a resource of an alter request is refused before any config is read, or "".
std::string alter_resource_problem(int8_t type, const std::vector<std::string>& names) {
  if (type == static_cast<int8_t>(ConfigResourceType::BROKER))
    return "Gregor's broker configs are static: set them with gregor broker --config k=v";
  if (type != static_cast<int8_t>(ConfigResourceType::TOPIC))
    return "Unsupported resource type " + std::to_string(type) + ": Gregor alters topic configs (2)";
  std::set<std::string> seen;
  for (const auto& n : names)
    if (!seen.insert(n).second) return "Error due to duplicate config keys";
  return "";
}

using AlterDone = std::function<void(ErrorCode, std::string)>;

// Both alter requests: each resource in turn gets `alter(resource, done)` and one response entry.
template <typename Resource, typename Response>
void alter_each(const std::vector<Resource>& resources, std::shared_ptr<Response> resp,
                std::function<void(const Resource&, AlterDone)> alter, std::function<void()> then) {
  sequentially<Resource>(
      resources,
      [resp, alter](const Resource& res, std::function<void()> next) {
        alter(res, [resp, type = res.resource_type, name = res.resource_name, next](ErrorCode e, std::string msg) {
          resp->responses.push_back({e, e == ErrorCode::NONE ? std::nullopt : std::optional<std::string>(msg), type, name});
          next();
        });
      },
      std::move(then));
}

}  // namespace

void Broker::handle_alter_configs(const Request& req, ByteReader& r) {
  auto decoded = protocol::AlterConfigsRequest::decode(r, req.header.api_version);
  if (!decoded) return close_bad_request(req.from, "malformed AlterConfigs: " + decoded.status().to_string());
  using Resource = protocol::AlterConfigsRequest::AlterConfigsResource;
  auto resp = std::make_shared<protocol::AlterConfigsResponse>();
  const bool validate_only = decoded->validate_only;
  alter_each<Resource>(
      decoded->resources, resp,
      [this, validate_only](const Resource& res, AlterDone done) {
        std::vector<std::string> names;
        std::map<std::string, std::string> wanted;
        for (const auto& c : res.configs) {
          names.push_back(c.name);
          if (!c.value) return done(ErrorCode::INVALID_REQUEST, "Null value not supported for : " + c.name);
          wanted[c.name] = *c.value;
        }
        if (auto problem = alter_resource_problem(res.resource_type, names); !problem.empty())
          return done(ErrorCode::INVALID_REQUEST, problem);
        // AlterConfigs replaces: the overrides become exactly the ones given.
        edit_topic_config(
            res.resource_name,
            [wanted](std::map<std::string, std::string>& overrides) {
              overrides = wanted;
              return Status::ok();
            },
            validate_only, done);
      },
      [this, req, resp] { respond(req, *resp); });
}

void Broker::handle_incremental_alter_configs(const Request& req, ByteReader& r) {
  auto decoded = protocol::IncrementalAlterConfigsRequest::decode(r, req.header.api_version);
  if (!decoded) return close_bad_request(req.from, "malformed IncrementalAlterConfigs: " + decoded.status().to_string());
  using Resource = protocol::IncrementalAlterConfigsRequest::AlterConfigsResource;
  auto resp = std::make_shared<protocol::IncrementalAlterConfigsResponse>();
  const bool validate_only = decoded->validate_only;
  alter_each<Resource>(
      decoded->resources, resp,
      [this, validate_only](const Resource& res, AlterDone done) {
        std::vector<std::string> names;
        for (const auto& c : res.configs) {
          names.push_back(c.name);
          if (c.config_operation < 0 || c.config_operation > static_cast<int8_t>(ConfigOperation::SUBTRACT))
            return done(ErrorCode::INVALID_REQUEST, "Unknown operation type " + std::to_string(c.config_operation) + " for " + c.name);
          if (!c.value && c.config_operation != static_cast<int8_t>(ConfigOperation::DELETE))
            return done(ErrorCode::INVALID_REQUEST, "Null value not supported for : " + c.name);
        }
        if (auto problem = alter_resource_problem(res.resource_type, names); !problem.empty())
          return done(ErrorCode::INVALID_REQUEST, problem);
        edit_topic_config(
            res.resource_name,
            [ops = res.configs, defaults = config_.topic_defaults.to_map()](std::map<std::string, std::string>& overrides) {
              for (const auto& c : ops) {
                auto op = static_cast<ConfigOperation>(c.config_operation);
                if (op == ConfigOperation::SET) {
                  overrides[c.name] = *c.value;
                } else if (op == ConfigOperation::DELETE) {
                  overrides.erase(c.name);
                } else {
                  if (!TopicConfig::is_list_key(c.name))
                    return Status::error(StatusCode::kInvalidArgument,
                                         std::string("Config value ") + (op == ConfigOperation::APPEND ? "append" : "subtract") +
                                             " is not allowed for config key: " + c.name);
                  // The list as it stands: the override, or the default it would replace.
                  auto it = overrides.find(c.name);
                  std::vector<std::string> items =
                      split_config_list(it != overrides.end() ? it->second : defaults.at(c.name));
                  for (const auto& v : split_config_list(*c.value)) {
                    auto pos = std::find(items.begin(), items.end(), v);
                    if (op == ConfigOperation::APPEND && pos == items.end()) items.push_back(v);
                    if (op == ConfigOperation::SUBTRACT && pos != items.end()) items.erase(pos);
                  }
                  overrides[c.name] = join_config_list(items);
                }
              }
              return Status::ok();
            },
            validate_only, done);
      },
      [this, req, resp] { respond(req, *resp); });
}

}  // namespace gregor::broker
