// DescribeTransactions: the state of transactional ids this broker coordinates (NOT_COORDINATOR for
// the others, TRANSACTIONAL_ID_NOT_FOUND for unknown ones). As Kafka's KafkaApis: an id the
// principal may not Describe is TRANSACTIONAL_ID_AUTHORIZATION_FAILED, and a transaction's topics
// are only those the principal may Describe.
#include <algorithm>

#include "engine/broker/request_handler.h"
#include "engine/protocol/describe_transactions.h"

namespace gregor::broker {

void handle_describe_transactions(HandlerContext& ctx, const Request& req, protocol::DescribeTransactionsRequest request) {
  protocol::DescribeTransactionsResponse resp;
  for (const auto& id : request.transactional_ids) {
    if (!authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kTransactionalId, id)) {
      protocol::DescribeTransactionsResponse::TransactionState denied;
      denied.transactional_id = id;
      denied.error_code = ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
      resp.transaction_states.push_back(std::move(denied));
      continue;
    }
    auto state = ctx.txns.describe(id);
    std::erase_if(state.topics, [&](const auto& t) {
      return !authorize(ctx, req, AclOperation::kDescribe, AclResourceType::kTopic, t.topic);
    });
    resp.transaction_states.push_back(std::move(state));
  }
  ctx.channel.respond(req, resp);
}

}  // namespace gregor::broker
