// ListTransactions: the transactional ids this broker coordinates, filtered by state, producer id
// and (v1, KIP-994) how long they have been running.
#include "engine/broker/request_handler.h"
#include "engine/protocol/list_transactions.h"

namespace gregor::broker {

void handle_list_transactions(HandlerContext& ctx, const Request& req, protocol::ListTransactionsRequest request) {
  ctx.channel.respond(req, ctx.txns.list(request));
}

}  // namespace gregor::broker
