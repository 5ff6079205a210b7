// The internal topic __transaction_state: which of its partitions holds a transactional id, and the
// records the transaction coordinator writes there, in Kafka's schemas (apache/kafka
// transaction-coordinator TransactionLogKey.json and TransactionLogValue.json, version 0), so a
// dump of the topic reads as Kafka's would.
//
// A transactional id lives in partition abs(transactionalId.hashCode()) % partitions (Java's
// String.hashCode, Kafka's Utils.abs); the leader of that partition is its coordinator.
//
//   key    int16 version 0, transactional_id STRING
//   value  int16 version 0, producer_id int64, producer_epoch int16, transaction_timeout_ms int32,
//          transaction_status int8, transaction_partitions NULLABLE [topic STRING, partition_ids
//          [int32]], transaction_last_update_timestamp_ms int64, transaction_start_timestamp_ms int64
// A null value is a tombstone: the id expired (transactional.id.expiration.ms).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "engine/core/bytes.h"
#include "engine/core/status.h"
#include "engine/core/topic_partition.h"

namespace gregor::txn {

inline constexpr const char* kTransactionStateTopic = "__transaction_state";

// Kafka's TransactionState ids, as the log stores them.
enum class TxnState : int8_t {
  kEmpty = 0,
  kOngoing = 1,
  kPrepareCommit = 2,
  kPrepareAbort = 3,
  kCompleteCommit = 4,
  kCompleteAbort = 5,
  kDead = 6,
  kPrepareEpochFence = 7,
};
// Kafka's names ("Empty", "Ongoing", "PrepareCommit", ...), as DescribeTransactions reports them.
const char* txn_state_name(TxnState s);
std::optional<TxnState> txn_state_from_name(const std::string& name);
inline bool is_prepare_state(TxnState s) { return s == TxnState::kPrepareCommit || s == TxnState::kPrepareAbort; }
inline bool is_complete_state(TxnState s) { return s == TxnState::kCompleteCommit || s == TxnState::kCompleteAbort; }

int32_t partition_for_transactional_id(const std::string& transactional_id, int32_t num_partitions);

struct TxnLogValue {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t transaction_timeout_ms = 0;
  TxnState state = TxnState::kEmpty;
  std::set<TopicPartition> partitions;
  int64_t last_update_timestamp_ms = -1;
  int64_t start_timestamp_ms = -1;
};

Bytes encode_txn_key(const std::string& transactional_id);
Bytes encode_txn_value(const TxnLogValue& v);
// kCorruption for malformed bytes, kInvalidArgument for a key or value version Gregor does not know.
Result<std::string> decode_txn_key(const Bytes& key);
Result<TxnLogValue> decode_txn_value(const Bytes& value);

}  // namespace gregor::txn
