// ListTransactions: the transactional ids this broker coordinates, filtered by state, producer id
// and (v1, KIP-994) how long they have been running; as Kafka's KafkaApis, only the ids the
// principal may Describe (the others are left out, no denial traced).
#include "engine/broker/request_handler.h"
#include "engine/protocol/list_transactions.h"

namespace gregor::broker {

void handle_list_transactions(HandlerContext& ctx, const Request& req, protocol::ListTransactionsRequest request) {
  protocol::ListTransactionsResponse resp = ctx.txns.list(request);
  std::erase_if(resp.transaction_states, [&](const auto& s) {
    return !authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kTransactionalId, s.transactional_id, false);
  });
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
