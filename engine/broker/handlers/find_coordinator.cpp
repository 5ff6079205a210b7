// FindCoordinator: the broker coordinating a group (key type 0, engine/group/group_coordinator.h) or
// a transactional id (key type 1, engine/txn/transaction_coordinator.h); v4+: several keys at once
// (KIP-699).
#include "engine/broker/request_handler.h"
#include "engine/protocol/find_coordinator.h"

namespace gregor::broker {

namespace {

void find_transaction_coordinator(HandlerContext& ctx, const Request& req, const protocol::FindCoordinatorRequest& request) {
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
    return ctx.channel.respond(req, resp);
  }
  const auto found = lookup(request.key);
  resp.error_code = found.error;
  resp.node_id = found.error == ErrorCode::NONE ? found.leader.id : -1;
  resp.host = found.error == ErrorCode::NONE ? found.leader.host : "";
  resp.port = found.error == ErrorCode::NONE ? found.leader.port : -1;
  if (found.error != ErrorCode::NONE) resp.error_message = std::string(protocol::error_name(found.error));
  ctx.channel.respond(req, resp);
}

}  // namespace

void handle_find_coordinator(HandlerContext& ctx, const Request& req, protocol::FindCoordinatorRequest request) {
  if (request.key_type == protocol::kCoordinatorKeyTypeTransaction) return find_transaction_coordinator(ctx, req, request);
  ctx.groups.find_coordinator(request, req.header.api_version, ctx.channel.responder<protocol::FindCoordinatorResponse>(req));
}

}  // namespace gregor::broker
