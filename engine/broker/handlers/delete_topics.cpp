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
  auto resp = std::make_shared<protocol::DeleteTopicsResponse>();
  if (!ctx.controller.is_active()) {
    for (const auto& t : request.topic_names) resp->responses.push_back({.name = t, .error_code = ErrorCode::NOT_CONTROLLER});
    return ctx.channel.respond(req, *resp);
  }
  const int32_t timeout_ms = request.timeout_ms;
  sequentially<std::string>(
      request.topic_names,
      [&ctx, resp, timeout_ms](const std::string& t, std::function<void()> next) {
        if (!ctx.metadata.has_topic(t)) {
          resp->responses.push_back({.name = t, .error_code = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION});
          return next();
        }
        ctx.admin.request_deletion(t, [&ctx, resp, t, next, timeout_ms](ErrorCode code) {
          if (code != ErrorCode::NONE || timeout_ms <= 0) {
            resp->responses.push_back({.name = t, .error_code = code});
            return next();
          }
          auto answer = [resp, t, next, timeout_ms](bool timed_out) {
            if (timed_out)
              resp->responses.push_back({.name = t,
                                         .error_code = ErrorCode::REQUEST_TIMED_OUT,
                                         .error_message = "Topic '" + t + "' is marked for deletion but was not deleted within " +
                                                          std::to_string(timeout_ms) + " ms."});
            else
              resp->responses.push_back({.name = t, .error_code = ErrorCode::NONE});
            next();
          };
          await_metadata_everywhere(ctx, [&ctx, t] { return !ctx.metadata.has_topic(t); }, timeout_ms, answer);
        });
      },
      [&ctx, req, resp] { ctx.channel.respond(req, *resp); });
}

}  // namespace gregor::broker
