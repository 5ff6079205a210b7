// OffsetCommit: answered once the offsets are replicated in __consumer_offsets.
#include "engine/broker/request_handler.h"
#include "engine/protocol/offset_commit.h"

namespace gregor::broker {

void handle_offset_commit(HandlerContext& ctx, const Request& req, protocol::OffsetCommitRequest request) {
  ctx.groups.offset_commit(request, ctx.channel.responder<protocol::OffsetCommitResponse>(req));
}

}  // namespace gregor::broker
