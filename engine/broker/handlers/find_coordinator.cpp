// FindCoordinator: the broker coordinating a group (v4+: several groups at once, KIP-699)
// (engine/group/group_coordinator.h). With an authorizer (Kafka's rules): Describe on the group
// (else GROUP_AUTHORIZATION_FAILED) or on the transactional id (else
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED), asked before anything is looked up or created.
#include "engine/broker/request_handler.h"
#include "engine/protocol/find_coordinator.h"

namespace gregor::broker {

void handle_find_coordinator(HandlerContext& ctx, const Request& req, protocol::FindCoordinatorRequest request) {
  using Response = protocol::FindCoordinatorResponse;
  const bool transaction = request.key_type == 1;  // Kafka's CoordinatorType.TRANSACTION
  const AclResourceType type = transaction ? AclResourceType::kTransactionalId : AclResourceType::kGroup;
  const ErrorCode refusal =
      transaction ? ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED : ErrorCode::GROUP_AUTHORIZATION_FAILED;
  constexpr int16_t kBatchedVersionMin = 4;
  if (req.header.api_version < kBatchedVersionMin) {
    if (!authorize(ctx, req, AclOperation::kDescribe, type, request.key)) {
      Response denied;
      denied.error_code = refusal;
      denied.error_message = protocol::error_name(refusal);
      return ctx.channel.respond(req, denied);
    }
    return ctx.groups.find_coordinator(request, req.header.api_version, ctx.channel.responder<Response>(req));
  }
  std::vector<Response::Coordinator> refused;
  std::vector<std::string> allowed;
  for (const auto& key : request.coordinator_keys) {
    if (authorize(ctx, req, AclOperation::kDescribe, type, key)) {
      allowed.push_back(key);
      continue;
    }
    Response::Coordinator c;
    c.key = key;
    c.node_id = -1;
    c.port = -1;
    c.error_code = refusal;
    c.error_message = protocol::error_name(refusal);
    refused.push_back(std::move(c));
  }
  if (refused.empty())
    return ctx.groups.find_coordinator(request, req.header.api_version, ctx.channel.responder<Response>(req));
  if (allowed.empty()) {
    Response denied;
    denied.coordinators = std::move(refused);
    return ctx.channel.respond(req, denied);
  }
  request.coordinator_keys = std::move(allowed);
  auto respond = ctx.channel.responder<Response>(req);
  ctx.groups.find_coordinator(request, req.header.api_version, [respond, refused](const Response& r) {
    Response merged = r;
    for (const auto& c : refused) merged.coordinators.push_back(c);
    respond(merged);
  });
}

}  // namespace gregor::broker
