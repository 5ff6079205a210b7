// FindCoordinator: the broker coordinating a group (key type 0, engine/group/group_coordinator.h) or
// a transactional id (key type 1, engine/txn/transaction_coordinator.h); v4+: several keys at once
// (KIP-699). With an authorizer (Kafka's rules): Describe on the group (else
// GROUP_AUTHORIZATION_FAILED) or on the transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
// asked before anything is looked up or created.
#include "engine/broker/request_handler.h"
#include "engine/protocol/find_coordinator.h"

namespace gregor::broker {

namespace {

protocol::FindCoordinatorResponse find_transaction_coordinator(HandlerContext& ctx, const Request& req,
                                                               const protocol::FindCoordinatorRequest& request) {
  auto lookup = [&ctx](const std::string& key) {
    // An empty transactional id has no coordinator (Kafka answers INVALID_REQUEST).
    if (key.empty()) return txn::TransactionCoordinator::Lookup{ErrorCode::INVALID_REQUEST, {}};
    return ctx.txns.find_coordinator(key);
  };
  protocol::FindCoordinatorResponse resp;
  if (req.header.api_version >= 4) {
    for (const std::string& key : request.coordinator_keys) {
      const auto found = lookup(key);
      protocol::FindCoordinatorResponse::Coordinator c;
      c.key = key;
      c.error_code = found.error;
      c.node_id = found.error == ErrorCode::NONE ? found.leader.id : -1;
      c.host = found.error == ErrorCode::NONE ? found.leader.host : "";
      c.port = found.error == ErrorCode::NONE ? found.leader.port : -1;
      if (found.error != ErrorCode::NONE) c.error_message = std::string(protocol::error_name(found.error));
      resp.coordinators.push_back(std::move(c));
    }
    return resp;
  }
  const auto found = lookup(request.key);
  resp.error_code = found.error;
  resp.node_id = found.error == ErrorCode::NONE ? found.leader.id : -1;
  resp.host = found.error == ErrorCode::NONE ? found.leader.host : "";
  resp.port = found.error == ErrorCode::NONE ? found.leader.port : -1;
  if (found.error != ErrorCode::NONE) resp.error_message = std::string(protocol::error_name(found.error));
  return resp;
}

}  // namespace

void handle_find_coordinator(HandlerContext& ctx, const Request& req, protocol::FindCoordinatorRequest request) {
  using Response = protocol::FindCoordinatorResponse;
  const bool transaction = request.key_type == protocol::kCoordinatorKeyTypeTransaction;
  const AclResourceType type = transaction ? AclResourceType::kTransactionalId : AclResourceType::kGroup;
  const ErrorCode refusal =
      transaction ? ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED : ErrorCode::GROUP_AUTHORIZATION_FAILED;
  // The keys' coordinators: a transaction's from this broker's view at once, a group's from the
  // group coordinator (which may create __consumer_offsets first).
  auto find = [&ctx, &req, transaction](const protocol::FindCoordinatorRequest& r, std::function<void(const Response&)> done) {
    if (transaction) return done(find_transaction_coordinator(ctx, req, r));
    ctx.groups.find_coordinator(r, req.header.api_version, std::move(done));
  };
  constexpr int16_t kBatchedVersionMin = 4;
  if (req.header.api_version < kBatchedVersionMin) {
    if (!authorize(ctx, req, AclOperation::kDescribe, type, request.key)) {
      Response denied;
      denied.error_code = refusal;
      denied.error_message = protocol::error_name(refusal);
      return ctx.channel.respond(req, denied);
    }
    return find(request, ctx.channel.responder<Response>(req));
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
    return find(request, ctx.channel.responder<Response>(req));
  if (allowed.empty()) {
    Response denied;
    denied.coordinators = std::move(refused);
    return ctx.channel.respond(req, denied);
  }
  request.coordinator_keys = std::move(allowed);
  auto respond = ctx.channel.responder<Response>(req);
  find(request, [respond, refused](const Response& r) {
    Response merged = r;
    for (const auto& c : refused) merged.coordinators.push_back(c);
    respond(merged);
  });
}

}  // namespace gregor::broker
