// TxnHost: what the transaction coordinator needs from the broker it lives in: its view of the
// cluster (MetadataCache), its replicas of __transaction_state (ReplicaManager), producer ids
// (ProducerIdManager) and the inter-broker network (WriteTxnMarkers to partition leaders). The
// broker implements it (engine/broker/txn_host.h), so that engine/txn never sees the broker.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "engine/group/coordinator_host.h"
#include "generated/protocol/write_txn_markers.h"

namespace gregor::txn {

using group::BrokerAddress;
using group::OffsetsAppend;

class TxnHost {
 public:
  virtual ~TxnHost() = default;

  virtual int32_t live_broker_count() const = 0;
  virtual int32_t partition_count(const std::string& topic) const = 0;  // 0: no such topic (yet)
  virtual std::optional<BrokerAddress> partition_leader(const TopicPartition& tp) const = 0;
  // Creates __transaction_state (through zk, as any topic) with its configs.
  virtual void create_transaction_state_topic(int32_t partitions, int32_t replication_factor, int32_t min_isr,
                                              int32_t segment_bytes, std::function<void(protocol::ErrorCode)> done) = 0;

  virtual std::optional<int32_t> local_leader_epoch(const TopicPartition& tp) const = 0;
  virtual OffsetsAppend append_as_leader(const TopicPartition& tp, Bytes batch) = 0;
  virtual protocol::ErrorCode check_replicated(const TopicPartition& tp, Offset required) const = 0;
  // Reads the local replica's log of a partition from its start to its end, one batch at a time;
  // an error when there is no local replica or it cannot be read.
  virtual Status read_log(const TopicPartition& tp, const std::function<Status(ByteView batch)>& each) = 0;

  // A new producer id (ProducerIdManager): done(NONE, id) or done(COORDINATOR_NOT_AVAILABLE, -1).
  virtual void generate_producer_id(std::function<void(protocol::ErrorCode, int64_t)> done) = 0;
  // Sends WriteTxnMarkers to a broker; done(NONE, response) or done(transport error, nullptr).
  virtual void send_write_txn_markers(int32_t broker, const protocol::WriteTxnMarkersRequest& req,
                                      std::function<void(protocol::ErrorCode, const protocol::WriteTxnMarkersResponse*)> done) = 0;
};

}  // namespace gregor::txn
