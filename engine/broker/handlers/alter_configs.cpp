// AlterConfigs (kafka-configs --alter, the old way): a topic's overrides become exactly the ones
// given. Broker configs are static in Gregor and cannot be altered.
#include "engine/broker/handlers/alter_config_resources.h"

namespace gregor::broker {

void handle_alter_configs(HandlerContext& ctx, const Request& req, protocol::AlterConfigsRequest request) {
  using Resource = protocol::AlterConfigsRequest::AlterConfigsResource;
  const bool validate_only = request.validate_only;
  alter_each<Resource, protocol::AlterConfigsResponse>(
      ctx, req, request.resources, [&ctx, validate_only](const Resource& res, AdminManager::Done done) {
        std::vector<std::string> names;
        std::map<std::string, std::string> wanted;
        for (const auto& c : res.configs) {
          names.push_back(c.name);
          if (!c.value) return done(ErrorCode::INVALID_REQUEST, "Null value not supported for : " + c.name);
          wanted[c.name] = *c.value;
        }
        if (auto problem = alter_resource_problem(res.resource_type, names); !problem.empty())
          return done(ErrorCode::INVALID_REQUEST, problem);
        ctx.admin.edit_topic_config(
            res.resource_name,
            [wanted](std::map<std::string, std::string>& overrides) {
              overrides = wanted;
              return Status::ok();
            },
            validate_only, done);
      });
}

}  // namespace gregor::broker
