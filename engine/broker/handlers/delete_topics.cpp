// DeleteTopics (the controller answers; others say NOT_CONTROLLER): each known topic is marked for
// deletion in zk; the controller's watch deletes it.
#include "engine/broker/async_steps.h"
#include "engine/broker/request_handler.h"
#include "engine/protocol/delete_topics.h"

namespace gregor::broker {

void handle_delete_topics(HandlerContext& ctx, const Request& req, protocol::DeleteTopicsRequest request) {
  auto resp = std::make_shared<protocol::DeleteTopicsResponse>();
  if (!ctx.controller.is_active()) {
    for (const auto& t : request.topic_names) resp->responses.push_back({.name = t, .error_code = ErrorCode::NOT_CONTROLLER});
    return ctx.channel.respond(req, *resp);
  }
  sequentially<std::string>(
      request.topic_names,
      [&ctx, resp](const std::string& t, std::function<void()> next) {
        if (!ctx.metadata.has_topic(t)) {
          resp->responses.push_back({.name = t, .error_code = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION});
          return next();
        }
        ctx.admin.request_deletion(t, [resp, t, next](ErrorCode code) {
          resp->responses.push_back({.name = t, .error_code = code});
          next();
        });
      },
      [&ctx, req, resp] { ctx.channel.respond(req, *resp); });
}

}  // namespace gregor::broker
