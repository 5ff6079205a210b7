// ApiVersions: the API keys and versions this broker serves (engine/protocol/api_versions_table.h).
#include "engine/broker/request_handler.h"
#include "engine/protocol/api_versions.h"

namespace gregor::broker {

void handle_api_versions(HandlerContext& ctx, const Request& req, protocol::ApiVersionsRequest) {
  ByteWriter body;
  protocol::make_api_versions_response().encode(body, req.header.api_version);
  ctx.channel.respond_raw(req, body.take(), 0);  // ApiVersions responses always use response header v0
}

}  // namespace gregor::broker
