// CreatePartitions (the controller answers; others say NOT_CONTROLLER, as a ZooKeeper-era broker
// does): each topic's new partition count and placement are checked (Kafka's errors and messages:
// UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS, INVALID_REPLICA_ASSIGNMENT, INVALID_REQUEST for a
// topic named twice), then written to the topic's assignment znode; the controller's watch elects
// the new partitions' leaders. The answer waits, as for CreateTopics, until every live broker knows
// the new partitions' leaders, or answers REQUEST_TIMED_OUT after timeout_ms.
#include <set>

#include "engine/broker/async_steps.h"
#include "engine/broker/handlers/topic_waits.h"
#include "engine/broker/request_handler.h"
#include "engine/protocol/create_partitions.h"

namespace gregor::broker {

namespace {
using Topic = protocol::CreatePartitionsRequest::CreatePartitionsTopic;
using Response = protocol::CreatePartitionsResponse;

void add_result(Response& resp, const std::string& name, ErrorCode code, std::string message = "") {
  resp.results.push_back({.name = name,
                          .error_code = code,
                          .error_message = message.empty() ? std::nullopt : std::optional<std::string>(std::move(message))});
}
}  // namespace

void handle_create_partitions(HandlerContext& ctx, const Request& req, protocol::CreatePartitionsRequest request) {
  auto resp = std::make_shared<Response>();
  if (!ctx.controller.is_active()) {
    for (const auto& t : request.topics) add_result(*resp, t.name, ErrorCode::NOT_CONTROLLER);
    return ctx.channel.respond(req, *resp);
  }
  // A topic named more than once is refused, every time it appears (Kafka's dupes check).
  std::map<std::string, int> seen;
  for (const auto& t : request.topics) seen[t.name]++;
  const bool validate_only = request.validate_only;
  const int32_t timeout_ms = request.timeout_ms;
  sequentially<Topic>(
      request.topics,
      [&ctx, req, resp, seen, validate_only, timeout_ms](const Topic& t, std::function<void()> next) {
        if (seen.at(t.name) > 1) {
          add_result(*resp, t.name, ErrorCode::INVALID_REQUEST, "Duplicate topic in request.");
          return next();
        }
        // Kafka's rule: Alter on the topic.
        if (!authorize(ctx, req, AclOperation::kAlter, AclResourceType::kTopic, t.name)) {
          add_result(*resp, t.name, ErrorCode::TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
          return next();
        }
        if (!ctx.metadata.has_topic(t.name)) {
          add_result(*resp, t.name, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + t.name + "' does not exist.");
          return next();
        }
        std::optional<std::vector<std::vector<int32_t>>> assignment;
        if (t.assignments) {
          assignment.emplace();
          for (const auto& a : *t.assignments) assignment->push_back(a.broker_ids);
        }
        ctx.admin.add_partitions(
            t.name, t.count, std::move(assignment), validate_only,
            [&ctx, resp, name = t.name, count = t.count, validate_only, timeout_ms, next](ErrorCode code, std::string message) {
              if (code != ErrorCode::NONE || validate_only || timeout_ms <= 0) {
                add_result(*resp, name, code, std::move(message));
                return next();
              }
              await_metadata_everywhere(ctx, topic_has_leaders(ctx, name, count), timeout_ms,
                                        [resp, name, timeout_ms, next](bool timed_out) {
                                          if (timed_out)
                                            add_result(*resp, name, ErrorCode::REQUEST_TIMED_OUT,
                                                       "The partitions of '" + name +
                                                           "' were created but their leaders were not known to every broker within " +
                                                           std::to_string(timeout_ms) + " ms.");
                                          else
                                            add_result(*resp, name, ErrorCode::NONE);
                                          next();
                                        });
            });
      },
      [&ctx, req, resp] { ctx.channel.respond(req, *resp); });
}

}  // namespace gregor::broker
