#include "engine/broker/txn_host.h"

#include "engine/record/batch_split.h"
#include "engine/txn/transaction_coordinator.h"

namespace gregor::broker {

void TxnHostImpl::create_transaction_state_topic(int32_t partitions, int32_t replication_factor, int32_t min_isr,
                                                 int32_t segment_bytes, std::function<void(ErrorCode)> done) {
  admin_.create_topic(txn::kTransactionStateTopic, partitions, replication_factor,
                      {{"min.insync.replicas", std::to_string(min_isr)}, {"segment.bytes", std::to_string(segment_bytes)}},
                      [done](ErrorCode code, std::string) { done(code); });
}

Status TxnHostImpl::read_log(const TopicPartition& tp, const std::function<Status(ByteView batch)>& each) {
  Partition* p = replicas_.partition(tp);
  if (!p) return Status::error(StatusCode::kNotFound, "no local replica");
  log::Log& log = p->log();
  Offset from = log.log_start_offset();
  const Offset end = log.log_end_offset();
  constexpr size_t kReadBytes = 1 << 20;
  while (from < end) {
    auto read = log.read(from, kReadBytes, end);
    if (!read) return read.status();
    if (read->records.empty()) break;
    auto split = record::split_batches(as_view(read->records), true);
    if (!split) return split.status();
    if (split->batches.empty()) break;
    for (const auto& b : split->batches) {
      from = Offset{b.header.next_offset()};
      GREGOR_RETURN_IF_ERROR(each(b.bytes));
    }
  }
  return Status::ok();
}

void TxnHostImpl::send_write_txn_markers(int32_t broker, const protocol::WriteTxnMarkersRequest& req,
                                         std::function<void(ErrorCode, const protocol::WriteTxnMarkersResponse*)> done) {
  // Kafka 3.9's brokers send v1 (flexible); every Gregor broker serves it. On a connection of its
  // own (Kafka's TransactionMarkerChannelManager has its own NetworkClient): the leader holds the
  // request until its followers fetched the marker, and a follower's fetches share this broker's
  // connection to the leader, so they would wait behind it for good.
  net_.send(lane_connection(NodeId{broker}, Lane::kTxnMarkers), req, txn::kWriteTxnMarkersVersion, Duration::millis(txn::kMarkerRequestTimeoutMs),
            [done](ErrorCode transport, ByteReader* body) {
              if (transport != ErrorCode::NONE || !body) return done(transport == ErrorCode::NONE ? ErrorCode::NETWORK_EXCEPTION : transport, nullptr);
              auto resp = protocol::WriteTxnMarkersResponse::decode(*body, txn::kWriteTxnMarkersVersion);
              if (!resp) return done(ErrorCode::NETWORK_EXCEPTION, nullptr);
              done(ErrorCode::NONE, &*resp);
            });
}

}  // namespace gregor::broker
