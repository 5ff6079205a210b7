// TxnConfig: the broker settings the transaction coordinator reads, with Kafka's keys and defaults.
// They are broker configs: BrokerConfig extends this struct, and engine/broker/broker_config.cpp
// declares the keys with the broker's other configs.
#pragma once

#include <cstdint>

namespace gregor::txn {

struct TxnConfig {
  int32_t transaction_state_log_num_partitions = 50;         // transaction.state.log.num.partitions
  int16_t transaction_state_log_replication_factor = 3;      // transaction.state.log.replication.factor
  int32_t transaction_state_log_min_isr = 2;                 // transaction.state.log.min.isr
  int32_t transaction_state_log_segment_bytes = 104857600;   // transaction.state.log.segment.bytes
  int32_t transaction_max_timeout_ms = 900000;               // transaction.max.timeout.ms
  int32_t transaction_abort_timed_out_transaction_cleanup_interval_ms = 10000;
  int32_t transactional_id_expiration_ms = 604800000;        // transactional.id.expiration.ms
  int32_t transaction_remove_expired_transaction_cleanup_interval_ms = 3600000;
  // Gregor's teaching switch (Kafka's feature of that name, KIP-890): 1 = the epoch stays the same
  // for a producer's life (Kafka 3.9); 2 = the coordinator bumps the epoch at every EndTxn.
  int16_t transaction_version = 1;
};

}  // namespace gregor::txn
