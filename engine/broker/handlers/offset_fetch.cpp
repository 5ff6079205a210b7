// OffsetFetch: a group's committed offsets.
#include "engine/broker/request_handler.h"
#include "engine/protocol/offset_fetch.h"

namespace gregor::broker {

void handle_offset_fetch(HandlerContext& ctx, const Request& req, protocol::OffsetFetchRequest request) {
  ctx.channel.respond(req, ctx.groups.offset_fetch(request, req.header.api_version));
}

}  // namespace gregor::broker
