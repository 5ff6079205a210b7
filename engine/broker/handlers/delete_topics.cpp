// DeleteTopics (the controller answers; others say NOT_CONTROLLER): each known topic is marked for
// deletion in zk; the controller's watch deletes it (StopReplica with deletion to its replicas, then
// UpdateMetadata to every broker). The answer waits, as Kafka's DelayedDeleteTopics does, until
// this broker's metadata no longer has the topic, and further until every live broker has applied
// that metadata (and so, through its ordered queue, the StopReplica before it): a CreateTopics of
// the same name right after starts a new topic that no broker mixes up with the old one. After
// timeout_ms it answers REQUEST_TIMED_OUT (the deletion goes on).
#include "engine/broker/async_steps.h"
#include "engine/broker/handlers/topic_waits.h"
#include "engine/broker/request_handler.h"
#include "engine/protocol/delete_topics.h"

namespace gregor::broker {

void handle_delete_topics(HandlerContext& ctx, const Request& req, protocol::DeleteTopicsRequest request) {
  using Result = protocol::DeleteTopicsResponse::DeletableTopicResult;
  const int16_t version = req.header.api_version;
  auto resp = std::make_shared<protocol::DeleteTopicsResponse>();
  // v6 names each topic by name or by id (KIP-516); before, by name.
  std::vector<protocol::DeleteTopicsRequest::DeleteTopicState> topics = request.topics;
  if (version < 6)
    for (const auto& name : request.topic_names) topics.push_back({.name = name, .topic_id = kZeroUuid});
  auto answer = [version](std::optional<std::string> name, Uuid id, ErrorCode code) {
    Result r;
    r.name = version >= 6 ? name : std::optional<std::string>(name.value_or(""));
    r.topic_id = id;
    r.error_code = code;
    if (code != ErrorCode::NONE) r.error_message = std::string(protocol::error_name(code));  // v5+
    return r;
  };
  if (!ctx.controller.is_active()) {
    for (const auto& t : topics) resp->responses.push_back(answer(t.name, t.topic_id, ErrorCode::NOT_CONTROLLER));
    return ctx.channel.respond(req, *resp);
  }
  const int32_t timeout_ms = request.timeout_ms;
  sequentially<protocol::DeleteTopicsRequest::DeleteTopicState>(
      topics,
      [&ctx, req, resp, answer, timeout_ms](const protocol::DeleteTopicsRequest::DeleteTopicState& t, std::function<void()> next) {
        std::optional<std::string> name = t.name;
        if (!t.topic_id.is_zero()) {
          auto known = ctx.metadata.topic_name(t.topic_id);
          if (!known || (name && name != known)) {
            resp->responses.push_back(answer(name, t.topic_id, known ? ErrorCode::INVALID_REQUEST : ErrorCode::UNKNOWN_TOPIC_ID));
            return next();
          }
          name = known;
        }
        // Kafka's rule: Delete on the topic.
        if (name && !authorize(ctx, req, AclOperation::kDelete, AclResourceType::kTopic, *name)) {
          resp->responses.push_back(answer(name, t.topic_id, ErrorCode::TOPIC_AUTHORIZATION_FAILED));
          return next();
        }
        if (!name || !ctx.metadata.has_topic(*name)) {
          resp->responses.push_back(answer(name, t.topic_id, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION));
          return next();
        }
        const Uuid id = ctx.metadata.topic_id(*name);
        const std::string topic = *name;
        ctx.admin.request_deletion(topic, [&ctx, resp, answer, name, id, topic, next, timeout_ms](ErrorCode code) {
          if (code != ErrorCode::NONE || timeout_ms <= 0) {
            resp->responses.push_back(answer(name, id, code));
            return next();
          }
          auto done = [resp, answer, name, id, topic, next, timeout_ms](bool timed_out) {
            Result r = answer(name, id, timed_out ? ErrorCode::REQUEST_TIMED_OUT : ErrorCode::NONE);
            if (timed_out)
              r.error_message = "Topic '" + topic + "' is marked for deletion but was not deleted within " +
                                std::to_string(timeout_ms) + " ms.";
            resp->responses.push_back(std::move(r));
            next();
          };
          await_metadata_everywhere(ctx, [&ctx, topic] { return !ctx.metadata.has_topic(topic); }, timeout_ms, done);
        });
      },
      [&ctx, req, resp] { ctx.channel.respond(req, *resp); });
}

}  // namespace gregor::broker
