// Heartbeat: a member is alive (or learns that the group rebalances).
#include "engine/broker/request_handler.h"
#include "engine/protocol/heartbeat.h"

namespace gregor::broker {

void handle_heartbeat(HandlerContext& ctx, const Request& req, protocol::HeartbeatRequest request) {
  ctx.groups.heartbeat(request, ctx.channel.error_responder<protocol::HeartbeatResponse>(req));
}

}  // namespace gregor::broker
