// What AlterConfigs and IncrementalAlterConfigs share: which resources they refuse outright, and
// answering each resource in turn (engine/broker/admin_manager.h edits the topic's config).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/broker/async_steps.h"
#include "engine/broker/request_handler.h"
#include "engine/protocol/alter_configs.h"
#include "engine/protocol/describe_configs.h"

namespace gregor::broker {

// Why a resource of an alter request is refused before any config is read, or "".
inline std::string alter_resource_problem(int8_t type, const std::vector<std::string>& names) {
  using protocol::ConfigResourceType;
  if (type == static_cast<int8_t>(ConfigResourceType::BROKER))
    return "Gregor's broker configs are static: set them with gregor broker --config k=v";
  if (type != static_cast<int8_t>(ConfigResourceType::TOPIC))
    return "Unsupported resource type " + std::to_string(type) + ": Gregor alters topic configs (2)";
  std::set<std::string> seen;
  for (const auto& n : names)
    if (!seen.insert(n).second) return "Error due to duplicate config keys";
  return "";
}

// Each resource in turn gets `alter(resource, done)` and one response entry; then the answer.
template <typename Resource, typename Response>
void alter_each(HandlerContext& ctx, const Request& req, const std::vector<Resource>& resources,
                std::function<void(const Resource&, AdminManager::Done)> alter) {
  auto resp = std::make_shared<Response>();
  sequentially<Resource>(
      resources,
      [&ctx, req, resp, alter](const Resource& res, std::function<void()> next) {
        // Kafka's rule: AlterConfigs on the cluster (a broker's configs) or on the topic.
        const bool broker = res.resource_type == static_cast<int8_t>(protocol::ConfigResourceType::BROKER);
        const bool allowed = broker ? authorize_cluster(ctx, req, AclOperation::kAlterConfigs)
                                    : authorize(ctx, req, AclOperation::kAlterConfigs, AclResourceType::kTopic, res.resource_name);
        if (!allowed) {
          const ErrorCode e = broker ? ErrorCode::CLUSTER_AUTHORIZATION_FAILED : ErrorCode::TOPIC_AUTHORIZATION_FAILED;
          resp->responses.push_back({e, std::optional<std::string>("Authorization failed."), res.resource_type, res.resource_name});
          return next();
        }
        alter(res, [resp, type = res.resource_type, name = res.resource_name, next](ErrorCode e, std::string msg) {
          resp->responses.push_back({e, e == ErrorCode::NONE ? std::nullopt : std::optional<std::string>(msg), type, name});
          next();
        });
      },
      [&ctx, req, resp] { ctx.channel.respond(req, *resp); });
}

}  // namespace gregor::broker
