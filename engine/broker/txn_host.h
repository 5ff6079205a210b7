// TxnHostImpl: the broker's side of txn::TxnHost: the transaction coordinator's view of this
// broker's metadata cache, its replicas of __transaction_state, its producer ids, and the
// inter-broker network for WriteTxnMarkers.
#pragma once

#include "engine/broker/admin_manager.h"
#include "engine/broker/broker_config.h"
#include "engine/broker/group_host.h"
#include "engine/broker/metadata_cache.h"
#include "engine/broker/producer_id_manager.h"
#include "engine/broker/replica_manager.h"
#include "engine/protocol/network_client.h"
#include "engine/txn/txn_host.h"

namespace gregor::broker {

class TxnHostImpl final : public txn::TxnHost {
 public:
  TxnHostImpl(Runtime& rt, const BrokerConfig& config, GroupHost& groups, ReplicaManager& replicas, AdminManager& admin,
              ProducerIdManager& producer_ids, protocol::NetworkClient& net)
      : rt_(rt), config_(config), groups_(groups), replicas_(replicas), admin_(admin), producer_ids_(producer_ids), net_(net) {}

  int32_t live_broker_count() const override { return groups_.live_broker_count(); }
  int32_t partition_count(const std::string& topic) const override { return groups_.partition_count(topic); }
  std::optional<group::BrokerAddress> partition_leader(const TopicPartition& tp) const override {
    return groups_.partition_leader(tp);
  }
  void create_transaction_state_topic(int32_t partitions, int32_t replication_factor, int32_t min_isr, int32_t segment_bytes,
                                      std::function<void(ErrorCode)> done) override;
  std::optional<int32_t> local_leader_epoch(const TopicPartition& tp) const override { return groups_.local_leader_epoch(tp); }
  group::OffsetsAppend append_as_leader(const TopicPartition& tp, Bytes batch) override {
    return groups_.append_as_leader(tp, std::move(batch));
  }
  ErrorCode check_replicated(const TopicPartition& tp, Offset required) const override {
    return groups_.check_replicated(tp, required);
  }
  Status read_log(const TopicPartition& tp, const std::function<Status(ByteView batch)>& each) override;
  void generate_producer_id(std::function<void(ErrorCode, int64_t)> done) override { producer_ids_.generate(std::move(done)); }
  void send_write_txn_markers(int32_t broker, const protocol::WriteTxnMarkersRequest& req,
                              std::function<void(ErrorCode, const protocol::WriteTxnMarkersResponse*)> done) override;

 private:
  Runtime& rt_;
  const BrokerConfig& config_;
  GroupHost& groups_;
  ReplicaManager& replicas_;
  AdminManager& admin_;
  ProducerIdManager& producer_ids_;
  protocol::NetworkClient& net_;
};

}  // namespace gregor::broker
