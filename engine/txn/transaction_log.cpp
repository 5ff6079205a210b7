#include "engine/txn/transaction_log.h"

#include <map>
#include <vector>

#include "engine/group/offsets_topic.h"

namespace gregor::txn {

const char* txn_state_name(TxnState s) {
  switch (s) {
    case TxnState::kEmpty: return "Empty";
    case TxnState::kOngoing: return "Ongoing";
    case TxnState::kPrepareCommit: return "PrepareCommit";
    case TxnState::kPrepareAbort: return "PrepareAbort";
    case TxnState::kCompleteCommit: return "CompleteCommit";
    case TxnState::kCompleteAbort: return "CompleteAbort";
    case TxnState::kDead: return "Dead";
    case TxnState::kPrepareEpochFence: return "PrepareEpochFence";
  }
  return "Unknown";
}

std::optional<TxnState> txn_state_from_name(const std::string& name) {
  for (int8_t i = 0; i <= 7; i++) {
    auto s = static_cast<TxnState>(i);
    if (name == txn_state_name(s)) return s;
  }
  return std::nullopt;
}

int32_t partition_for_transactional_id(const std::string& transactional_id, int32_t num_partitions) {
  GREGOR_ASSERT(num_partitions > 0);
  return group::kafka_abs(group::java_string_hash(transactional_id)) % num_partitions;
}

Bytes encode_txn_key(const std::string& transactional_id) {
  ByteWriter w;
  w.i16(0);
  w.string(transactional_id);
  return w.take();
}

Bytes encode_txn_value(const TxnLogValue& v) {
  ByteWriter w;
  w.i16(0);
  w.i64(v.producer_id);
  w.i16(v.producer_epoch);
  w.i32(v.transaction_timeout_ms);
  w.i8(static_cast<int8_t>(v.state));
  // Partitions by topic, as Kafka writes them (an empty transaction writes an empty array).
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& tp : v.partitions) by_topic[tp.topic].push_back(tp.partition);
  w.i32(static_cast<int32_t>(by_topic.size()));
  for (const auto& [topic, parts] : by_topic) {
    w.string(topic);
    w.i32(static_cast<int32_t>(parts.size()));
    for (int32_t p : parts) w.i32(p);
  }
  w.i64(v.last_update_timestamp_ms);
  w.i64(v.start_timestamp_ms);
  return w.take();
}

Result<std::string> decode_txn_key(const Bytes& key) {
  ByteReader r(as_view(key));
  const int16_t version = r.i16();
  if (!r.ok()) return Status::error(StatusCode::kCorruption, "malformed TransactionLogKey");
  if (version != 0) return Status::error(StatusCode::kInvalidArgument, "TransactionLogKey version " + std::to_string(version));
  std::string id = r.string();
  if (!r.ok()) return Status::error(StatusCode::kCorruption, "malformed TransactionLogKey");
  return id;
}

Result<TxnLogValue> decode_txn_value(const Bytes& value) {
  ByteReader r(as_view(value));
  const int16_t version = r.i16();
  if (!r.ok()) return Status::error(StatusCode::kCorruption, "malformed TransactionLogValue");
  if (version != 0) return Status::error(StatusCode::kInvalidArgument, "TransactionLogValue version " + std::to_string(version));
  TxnLogValue v;
  v.producer_id = r.i64();
  v.producer_epoch = r.i16();
  v.transaction_timeout_ms = r.i32();
  const int8_t state = r.i8();
  if (state < 0 || state > 7) return Status::error(StatusCode::kCorruption, "transaction status " + std::to_string(state));
  v.state = static_cast<TxnState>(state);
  const int32_t topics = r.i32();  // -1: null
  for (int32_t t = 0; t < topics && r.ok(); t++) {
    std::string topic = r.string();
    const int32_t n = r.array_count(4);
    for (int32_t i = 0; i < n && r.ok(); i++) v.partitions.insert(TopicPartition{topic, r.i32()});
  }
  v.last_update_timestamp_ms = r.i64();
  v.start_timestamp_ms = r.i64();
  if (!r.ok()) return Status::error(StatusCode::kCorruption, "malformed TransactionLogValue");
  return v;
}

}  // namespace gregor::txn
