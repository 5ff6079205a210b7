// TxnOffsetCommit: a transactional producer's offsets for a group, stored in __consumer_offsets and
// pending until its transaction ends (engine/group/group_txn_offsets.cpp).
#include "engine/broker/request_handler.h"
#include "engine/protocol/txn_offset_commit.h"

namespace gregor::broker {

void handle_txn_offset_commit(HandlerContext& ctx, const Request& req, protocol::TxnOffsetCommitRequest request) {
  ctx.groups.txn_offset_commit(request, req.header.api_version, ctx.channel.responder<protocol::TxnOffsetCommitResponse>(req));
}

}  // namespace gregor::broker
