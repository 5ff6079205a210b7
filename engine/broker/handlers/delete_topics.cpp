// DeleteTopics (the controller answers; others say NOT_CONTROLLER): each known topic is marked for
// deletion in zk; the controller's watch deletes it.
#include "engine/broker/async_steps.h"
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
  sequentially<protocol::DeleteTopicsRequest::DeleteTopicState>(
      topics,
      [&ctx, resp, answer](const protocol::DeleteTopicsRequest::DeleteTopicState& t, std::function<void()> next) {
        std::optional<std::string> name = t.name;
        if (!t.topic_id.is_zero()) {
          auto known = ctx.metadata.topic_name(t.topic_id);
          if (!known || (name && name != known)) {
            resp->responses.push_back(answer(name, t.topic_id, known ? ErrorCode::INVALID_REQUEST : ErrorCode::UNKNOWN_TOPIC_ID));
            return next();
          }
          name = known;
        }
        if (!name || !ctx.metadata.has_topic(*name)) {
          resp->responses.push_back(answer(name, t.topic_id, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION));
          return next();
        }
        const Uuid id = ctx.metadata.topic_id(*name);
        ctx.admin.request_deletion(*name, [resp, answer, name, id, next](ErrorCode code) {
          resp->responses.push_back(answer(name, id, code));
          next();
        });
      },
      [&ctx, req, resp] { ctx.channel.respond(req, *resp); });
}

}  // namespace gregor::broker
