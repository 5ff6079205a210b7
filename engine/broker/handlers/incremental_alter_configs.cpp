// IncrementalAlterConfigs (kafka-configs --alter, KIP-339): SET, DELETE, and for list configs
// (cleanup.policy) APPEND and SUBTRACT, applied to a topic's overrides as they stand.
#include <algorithm>

#include "engine/broker/handlers/alter_config_resources.h"

namespace gregor::broker {

namespace {

using protocol::ConfigOperation;
using Resource = protocol::IncrementalAlterConfigsRequest::AlterConfigsResource;
using AlterableConfig = protocol::IncrementalAlterConfigsRequest::AlterableConfig;

// Applies the operations to the overrides; `defaults` gives a list's value when it is not overridden.
Status apply_operations(const std::vector<AlterableConfig>& ops, const std::map<std::string, std::string>& defaults,
                        std::map<std::string, std::string>& overrides) {
  for (const auto& c : ops) {
    auto op = static_cast<ConfigOperation>(c.config_operation);
    if (op == ConfigOperation::SET) {
      overrides[c.name] = *c.value;
      continue;
    }
    if (op == ConfigOperation::DELETE) {
      overrides.erase(c.name);
      continue;
    }
    if (!TopicConfig::is_list_key(c.name))
      return Status::error(StatusCode::kInvalidArgument, std::string("Config value ") +
                                                             (op == ConfigOperation::APPEND ? "append" : "subtract") +
                                                             " is not allowed for config key: " + c.name);
    // The list as it stands: the override, or the default it would replace.
    auto it = overrides.find(c.name);
    std::vector<std::string> items = split_config_list(it != overrides.end() ? it->second : defaults.at(c.name));
    for (const auto& v : split_config_list(*c.value)) {
      auto pos = std::find(items.begin(), items.end(), v);
      if (op == ConfigOperation::APPEND && pos == items.end()) items.push_back(v);
      if (op == ConfigOperation::SUBTRACT && pos != items.end()) items.erase(pos);
    }
    overrides[c.name] = join_config_list(items);
  }
  return Status::ok();
}

// Why the resource's operations are refused before any config is read, or "".
std::string operations_problem(const Resource& res) {
  std::vector<std::string> names;
  for (const auto& c : res.configs) {
    names.push_back(c.name);
    if (c.config_operation < 0 || c.config_operation > static_cast<int8_t>(ConfigOperation::SUBTRACT))
      return "Unknown operation type " + std::to_string(c.config_operation) + " for " + c.name;
    if (!c.value && c.config_operation != static_cast<int8_t>(ConfigOperation::DELETE))
      return "Null value not supported for : " + c.name;
  }
  return alter_resource_problem(res.resource_type, names);
}

}  // namespace

void handle_incremental_alter_configs(HandlerContext& ctx, const Request& req,
                                      protocol::IncrementalAlterConfigsRequest request) {
  const bool validate_only = request.validate_only;
  alter_each<Resource, protocol::IncrementalAlterConfigsResponse>(
      ctx, req, request.resources, [&ctx, validate_only](const Resource& res, AdminManager::Done done) {
        if (auto problem = operations_problem(res); !problem.empty()) return done(ErrorCode::INVALID_REQUEST, problem);
        ctx.admin.edit_topic_config(
            res.resource_name,
            [ops = res.configs, defaults = ctx.config.topic_defaults.to_map()](std::map<std::string, std::string>& overrides) {
              return apply_operations(ops, defaults, overrides);
            },
            validate_only, done);
      });
}

}  // namespace gregor::broker
