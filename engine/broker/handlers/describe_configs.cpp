// DescribeConfigs (kafka-configs --describe, AdminClient): a broker's configs (static in Gregor:
// all read-only) or a topic's, each with its source and, from v1, its synonyms: the values it
// overrides, in Kafka's order (the winning source first). Any broker answers for a topic: it reads
// /config/topics/T itself.
#include <algorithm>

#include "engine/broker/async_steps.h"
#include "engine/broker/request_handler.h"
#include "engine/protocol/describe_configs.h"

namespace gregor::broker {

namespace {

using protocol::ConfigResourceType;
using protocol::ConfigSource;
using Resource = protocol::DescribeConfigsRequest::DescribeConfigsResource;
using Result = protocol::DescribeConfigsResponse::DescribeConfigsResult;
using Described = protocol::DescribeConfigsResponse::DescribeConfigsResourceResult;

// DescribeConfigsResponse.ConfigType (v3+): 1 BOOLEAN, 2 STRING, 3 INT, 4 SHORT, 5 LONG, 7 LIST.
int8_t kafka_config_type(ConfigType type) {
  switch (type) {
    case ConfigType::kBoolean: return 1;
    case ConfigType::kString: return 2;
    case ConfigType::kInt: return 3;
    case ConfigType::kShort: return 4;
    case ConfigType::kLong: return 5;
    case ConfigType::kList: return 7;
  }
  return 0;
}

struct Describer {
  int16_t version;
  bool synonyms;
  bool documentation;  // v3+ include_documentation
  std::optional<std::vector<std::string>> keys;  // nullopt: every key
  bool wanted(const std::string& k) const { return !keys || std::find(keys->begin(), keys->end(), k) != keys->end(); }

  template <typename Key>
  Described described(const std::string& name, const std::string& value, ConfigSource source, bool read_only,
                      const Key* key) const {
    Described c;
    if (key) {
      c.config_type = kafka_config_type(key->type);
      if (documentation) c.documentation = key->doc;
    }
    c.name = name;
    c.value = value;
    c.read_only = read_only;
    if (version == 0)
      c.is_default = source == ConfigSource::DEFAULT_CONFIG;
    else
      c.config_source = static_cast<int8_t>(source);
    return c;
  }
};

// Broker configs are static: set by `gregor broker --config` or defaulted.
void describe_broker(const BrokerConfig& config, const Describer& d, Result& out) {
  const auto defaults = BrokerConfig{}.to_map();
  for (const auto& [k, v] : config.to_map()) {
    if (!d.wanted(k)) continue;
    auto def = defaults.find(k);
    const bool is_default = k != "broker.id" && def != defaults.end() && def->second == v;
    const ConfigSource source = is_default ? ConfigSource::DEFAULT_CONFIG : ConfigSource::STATIC_BROKER_CONFIG;
    Described c = d.described(k, v, source, /*read_only=*/true, broker_config_def().find(k));
    const bool sensitive = k == "sasl.plain.users";  // passwords: never told, as Kafka's PASSWORD configs
    if (sensitive) {
      c.value = std::nullopt;
      c.is_sensitive = true;
    }
    if (d.synonyms) c.synonyms.push_back({k, sensitive ? std::nullopt : std::optional<std::string>(v), static_cast<int8_t>(source)});
    out.configs.push_back(std::move(c));
  }
}

// A topic's configs: its overrides, else the broker's static defaults, else Kafka's.
void describe_topic(const BrokerConfig& config, const std::map<std::string, std::string>& overrides, const Describer& d,
                    Result& out) {
  TopicConfig effective = config.topic_defaults;
  (void)effective.apply(overrides);  // read_topic_config's caller checked them
  const auto builtin = TopicConfig{}.to_map();
  const auto broker_level = config.topic_defaults.to_map();
  for (const auto& [k, v] : effective.to_map()) {
    if (!d.wanted(k)) continue;
    const std::string broker_key = TopicConfig::broker_synonym(k);
    const bool overridden = overrides.count(k) > 0;
    const bool static_set = broker_level.at(k) != builtin.at(k);
    const ConfigSource source = overridden ? ConfigSource::DYNAMIC_TOPIC_CONFIG
                                : static_set ? ConfigSource::STATIC_BROKER_CONFIG
                                             : ConfigSource::DEFAULT_CONFIG;
    const auto* key = topic_config_def().find(k);
    Described c = d.described(k, v, source, /*read_only=*/!key->dynamic(), key);
    if (d.synonyms) {
      // Kafka's order: the winning source first, then what it hides.
      if (overridden) c.synonyms.push_back({k, overrides.at(k), static_cast<int8_t>(ConfigSource::DYNAMIC_TOPIC_CONFIG)});
      if (static_set) c.synonyms.push_back({broker_key, broker_level.at(k), static_cast<int8_t>(ConfigSource::STATIC_BROKER_CONFIG)});
      c.synonyms.push_back({broker_key, builtin.at(k), static_cast<int8_t>(ConfigSource::DEFAULT_CONFIG)});
    }
    out.configs.push_back(std::move(c));
  }
}

}  // namespace

void handle_describe_configs(HandlerContext& ctx, const Request& req, protocol::DescribeConfigsRequest request) {
  auto resp = std::make_shared<protocol::DescribeConfigsResponse>();
  const int16_t version = req.header.api_version;
  const bool synonyms = version >= 1 && request.include_synonyms;
  const bool documentation = version >= 3 && request.include_documentation;
  sequentially<Resource>(
      request.resources,
      [&ctx, req, resp, version, synonyms, documentation](const Resource& res, std::function<void()> next) {
        auto out = std::make_shared<Result>();
        out->resource_type = res.resource_type;
        out->resource_name = res.resource_name;
        const Describer d{version, synonyms, documentation, res.configuration_keys};
        auto finish = [resp, out, next](ErrorCode code, std::string msg) {
          if (code != ErrorCode::NONE) {
            out->error_code = code;
            out->error_message = std::move(msg);
          }
          resp->results.push_back(std::move(*out));
          next();
        };
        // Kafka's rule: DescribeConfigs on the cluster (a broker's configs) or on the topic.
        const bool broker = res.resource_type == static_cast<int8_t>(ConfigResourceType::BROKER);
        if (broker && !authorize_cluster(ctx, req, AclOperation::kDescribeConfigs))
          return finish(ErrorCode::CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.");
        if (res.resource_type == static_cast<int8_t>(ConfigResourceType::TOPIC) &&
            !authorize(ctx, req, AclOperation::kDescribeConfigs, AclResourceType::kTopic, res.resource_name))
          return finish(ErrorCode::TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
        if (broker) {
          const std::string own = std::to_string(ctx.config.broker_id);
          if (!res.resource_name.empty() && res.resource_name != own)
            return finish(ErrorCode::INVALID_REQUEST,
                          "Unexpected broker id, expected " + own + " or empty string, but received " + res.resource_name);
          describe_broker(ctx.config, d, *out);
          return finish(ErrorCode::NONE, "");
        }
        if (res.resource_type != static_cast<int8_t>(ConfigResourceType::TOPIC))
          return finish(ErrorCode::INVALID_REQUEST, "Unsupported resource type " + std::to_string(res.resource_type) +
                                                        ": Gregor describes topics (2) and brokers (4)");
        ctx.admin.read_topic_config(res.resource_name, [&ctx, out, d, finish](ErrorCode code, std::string msg,
                                                                              std::map<std::string, std::string> overrides) {
          if (code == ErrorCode::NONE) {
            TopicConfig check = ctx.config.topic_defaults;
            if (Status s = check.apply(overrides); !s.is_ok()) return finish(ErrorCode::UNKNOWN_SERVER_ERROR, s.to_string());
            describe_topic(ctx.config, overrides, d, *out);
          }
          finish(code, std::move(msg));
        });
      },
      [&ctx, req, resp] { ctx.channel.respond(req, *resp); });
}

}  // namespace gregor::broker
