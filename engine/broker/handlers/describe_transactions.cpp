// DescribeTransactions: the state of transactional ids this broker coordinates (NOT_COORDINATOR for
// the others, TRANSACTIONAL_ID_NOT_FOUND for unknown ones).
#include "engine/broker/request_handler.h"
#include "engine/protocol/describe_transactions.h"

namespace gregor::broker {

void handle_describe_transactions(HandlerContext& ctx, const Request& req, protocol::DescribeTransactionsRequest request) {
  protocol::DescribeTransactionsResponse resp;
  for (const auto& id : request.transactional_ids) resp.transaction_states.push_back(ctx.txns.describe(id));
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
