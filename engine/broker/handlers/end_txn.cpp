// EndTxn: a transactional producer commits or aborts its transaction; answered once the
// coordinator stored PrepareCommit/PrepareAbort (the markers follow, engine/txn/txn_markers.cpp).
// Needs Write on the TransactionalId (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
#include "engine/broker/request_handler.h"
#include "engine/protocol/end_txn.h"

namespace gregor::broker {

void handle_end_txn(HandlerContext& ctx, const Request& req, protocol::EndTxnRequest request) {
  const int16_t version = req.header.api_version;
  if (!authorize(ctx, req, AclOperation::kWrite, AclResourceType::kTransactionalId, request.transactional_id)) {
    protocol::EndTxnResponse resp;
    resp.error_code = ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    return ctx.channel.respond(req, resp);
  }
  ctx.txns.end_txn(request.transactional_id, request.producer_id, request.producer_epoch, request.committed,
                   [&ctx, req, version](const txn::TransactionCoordinator::ProducerIdAndEpoch& r) {
                     protocol::EndTxnResponse resp;
                     // Before v2 (KIP-588) a fenced producer hears INVALID_PRODUCER_EPOCH.
                     resp.error_code = r.error == ErrorCode::PRODUCER_FENCED && version < 2 ? ErrorCode::INVALID_PRODUCER_EPOCH : r.error;
                     ctx.channel.respond(req, resp);
                   });
}

}  // namespace gregor::broker
