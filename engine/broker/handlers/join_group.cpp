// JoinGroup: answered when the group's rebalance completes (engine/group/group_coordinator.h).
#include "engine/broker/request_handler.h"
#include "engine/protocol/join_group.h"

namespace gregor::broker {

void handle_join_group(HandlerContext& ctx, const Request& req, protocol::JoinGroupRequest request) {
  // Kafka names the client host by its address; a connection id is what Gregor knows.
  const std::string host = "/connection" + std::to_string(-req.from.value);
  const int16_t version = req.header.api_version;
  auto respond = ctx.channel.responder<protocol::JoinGroupResponse>(req);
  if (!authorize(ctx, req, AclOperation::kRead, AclResourceType::kGroup, request.group_id)) {
    protocol::JoinGroupResponse denied;
    denied.error_code = ErrorCode::GROUP_AUTHORIZATION_FAILED;
    denied.member_id = request.member_id;
    if (version < 7) denied.protocol_name = std::string();
    return respond(denied);
  }
  ctx.groups.join_group(request, version, req.header.client_id.value_or(""), host,
                        [version, respond](const protocol::JoinGroupResponse& r) {
                          // v7+ says "no protocol" with null (an error answer); older versions with "".
                          protocol::JoinGroupResponse out = r;
                          if (version >= 7 && out.error_code != ErrorCode::NONE) {
                            out.protocol_type = std::nullopt;
                            out.protocol_name = std::nullopt;
                          }
                          if (version < 7 && !out.protocol_name) out.protocol_name = std::string();
                          respond(out);
                        });
}

}  // namespace gregor::broker
