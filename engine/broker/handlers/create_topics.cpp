// CreateTopics (the controller answers; others say NOT_CONTROLLER): each topic is checked (name,
// partitions, replication factor, configs), then created through zk, and answered once this
// broker's metadata knows a leader for every new partition (Kafka's DelayedCreatePartitions) and
// every live broker has applied that metadata (the LeaderAndIsr and UpdateMetadata the controller
// sent for it), so that a client may go to any broker at once: its Metadata shows the leaders, and
// the leader takes the produce. After timeout_ms it answers REQUEST_TIMED_OUT instead (the topic
// is created either way).
#include <algorithm>

#include "engine/broker/async_steps.h"
#include "engine/broker/handlers/topic_waits.h"
#include "engine/broker/request_handler.h"
#include "engine/protocol/create_topics.h"
#include "engine/protocol/describe_configs.h"
#include "engine/protocol/topic_name.h"

namespace gregor::broker {

namespace {

using CreatableTopic = protocol::CreateTopicsRequest::CreatableTopic;
using Response = protocol::CreateTopicsResponse;

// Why a topic cannot be created as asked, or NONE; `partitions` and `rf` take the defaults.
// `planned`: partitions the same request already accepted, which the metadata does not show yet.
ErrorCode check_topic(HandlerContext& ctx, const CreatableTopic& t, int64_t planned, int32_t& partitions, int32_t& rf,
                      std::map<std::string, std::string>& configs, std::string& message) {
  if (auto problem = protocol::topic_name_problem(t.name)) {
    message = *problem;
    return ErrorCode::INVALID_TOPIC_EXCEPTION;
  }
  if (ctx.metadata.has_topic(t.name)) {
    message = "Topic '" + t.name + "' already exists.";
    return ErrorCode::TOPIC_ALREADY_EXISTS;
  }
  if (auto other = ctx.admin.colliding_topic(t.name)) {
    message = "Topic '" + t.name + "' collides with existing topic: " + *other;
    return ErrorCode::INVALID_TOPIC_EXCEPTION;
  }
  partitions = t.num_partitions == -1 ? ctx.config.num_partitions : t.num_partitions;
  rf = t.replication_factor == -1 ? ctx.config.default_replication_factor : t.replication_factor;
  if (auto [code, problem] = ctx.admin.partition_limit_problem(partitions, planned); code != ErrorCode::NONE) {
    message = std::move(problem);
    return code;
  }
  if (!t.assignments.empty()) {
    message = "manual replica assignment is not supported";
    return ErrorCode::INVALID_REQUEST;
  }
  for (const auto& c : t.configs)
    if (c.value) configs[c.name] = *c.value;
  TopicConfig check = ctx.config.topic_defaults;
  Status valid = check.apply(configs);
  if (!valid.is_ok()) {
    message = valid.message();
    return ErrorCode::INVALID_CONFIG;
  }
  const size_t live = ctx.controller.live_brokers().size();
  if (static_cast<size_t>(rf) > live || rf < 1) {
    message = "Replication factor: " + std::to_string(rf) + " larger than available brokers: " + std::to_string(live) + ".";
    return ErrorCode::INVALID_REPLICATION_FACTOR;
  }
  return ErrorCode::NONE;
}

using Result = Response::CreatableTopicResult;

// v5+ (KIP-525): a created (or validated) topic's partition count, replication factor and every
// config with its value and source, as DescribeConfigs would give them.
Result created_result(const HandlerContext& ctx, const std::string& name, int32_t partitions, int32_t rf,
                      const std::map<std::string, std::string>& overrides) {
  Result r;
  r.name = name;
  r.num_partitions = partitions;
  r.replication_factor = static_cast<int16_t>(rf);
  TopicConfig effective = ctx.config.topic_defaults;
  (void)effective.apply(overrides);  // check_topic checked them
  const auto builtin = TopicConfig{}.to_map();
  const auto broker_level = ctx.config.topic_defaults.to_map();
  r.configs.emplace();
  for (const auto& [k, v] : effective.to_map()) {
    const protocol::ConfigSource source = overrides.count(k) ? protocol::ConfigSource::DYNAMIC_TOPIC_CONFIG
                                          : broker_level.at(k) != builtin.at(k) ? protocol::ConfigSource::STATIC_BROKER_CONFIG
                                                                                : protocol::ConfigSource::DEFAULT_CONFIG;
    r.configs->push_back({.name = k,
                          .value = v,
                          .read_only = !topic_config_def().find(k)->dynamic(),
                          .config_source = static_cast<int8_t>(source),
                          .is_sensitive = false});
  }
  return r;
}

// Answers for one created topic once its leaders are known here and everywhere, or at the timeout.
void await_leaders(HandlerContext& ctx, std::shared_ptr<Response> resp, Result created, int32_t partitions,
                   int32_t timeout_ms, std::function<void()> next) {
  const std::string name = created.name;
  await_metadata_everywhere(ctx, topic_has_leaders(ctx, name, partitions), timeout_ms,
                            [&ctx, resp, created, name, timeout_ms, next](bool timed_out) {
                              if (timed_out) {
                                resp->topics.push_back(
                                    {.name = name,
                                     .error_code = ErrorCode::REQUEST_TIMED_OUT,
                                     .error_message = "Topic '" + name +
                                                      "' was created but its leaders were not known to every broker within " +
                                                      std::to_string(timeout_ms) + " ms."});
                              } else {
                                Result r = created;
                                r.topic_id = ctx.metadata.topic_id(name);  // v7+
                                resp->topics.push_back(std::move(r));
                              }
                              next();
                            });
}

}  // namespace

void handle_create_topics(HandlerContext& ctx, const Request& req, protocol::CreateTopicsRequest request) {
  auto resp = std::make_shared<Response>();
  if (!ctx.controller.is_active()) {
    for (const auto& t : request.topics) resp->topics.push_back({.name = t.name, .error_code = ErrorCode::NOT_CONTROLLER});
    return ctx.channel.respond(req, *resp);
  }
  const bool validate_only = request.validate_only;
  const int32_t timeout_ms = request.timeout_ms;
  auto planned = std::make_shared<int64_t>(0);  // partitions accepted by this request so far
  sequentially<CreatableTopic>(
      request.topics,
      [&ctx, req, resp, validate_only, timeout_ms, planned](const CreatableTopic& t, std::function<void()> next) {
        // Kafka's rule: Create on the cluster or on the topic.
        if (!authorize(ctx, req, AclOperation::kCreate, AclResourceType::kCluster, kClusterResourceName, false) &&
            !authorize(ctx, req, AclOperation::kCreate, AclResourceType::kTopic, t.name)) {
          resp->topics.push_back({.name = t.name,
                                  .error_code = ErrorCode::TOPIC_AUTHORIZATION_FAILED,
                                  .error_message = std::string("Authorization failed.")});
          return next();
        }
        int32_t partitions = 0, rf = 0;
        std::map<std::string, std::string> configs;
        std::string message;
        const ErrorCode code = check_topic(ctx, t, *planned, partitions, rf, configs, message);
        if (code == ErrorCode::NONE) *planned += partitions;  // validate_only too: it answers what would happen
        if (code != ErrorCode::NONE) {
          resp->topics.push_back({.name = t.name, .error_code = code, .error_message = std::move(message)});
          return next();
        }
        Result result = created_result(ctx, t.name, partitions, rf, configs);
        if (validate_only) {
          resp->topics.push_back(std::move(result));
          return next();
        }
        ctx.admin.create_topic(t.name, partitions, rf, configs,
                               [&ctx, resp, result, name = t.name, partitions, timeout_ms, next](ErrorCode created, std::string msg) {
                                 if (created != ErrorCode::NONE || timeout_ms <= 0) {
                                   resp->topics.push_back(
                                       {.name = name,
                                        .error_code = created,
                                        .error_message = msg.empty() ? std::nullopt : std::optional<std::string>(msg)});
                                   return next();
                                 }
                                 await_leaders(ctx, resp, result, partitions, timeout_ms, next);
                               });
      },
      [&ctx, req, resp] { ctx.channel.respond(req, *resp); });
}

}  // namespace gregor::broker
