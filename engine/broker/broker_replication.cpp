// Requests from the controller (LeaderAndIsr, UpdateMetadata, StopReplica, ControlledShutdown) and
// OffsetForLeaderEpoch from followers.
#include <algorithm>

#include "engine/broker/async_steps.h"
#include "engine/broker/broker.h"
#include "engine/protocol/controlled_shutdown.h"
#include "engine/protocol/leader_and_isr.h"
#include "engine/protocol/offset_for_leader_epoch.h"
#include "engine/protocol/stop_replica.h"
#include "engine/protocol/update_metadata.h"

namespace gregor::broker {

using coord::ZkError;
using protocol::ErrorCode;

void Broker::handle_leader_and_isr(const Request& req, ByteReader& r) {
  auto decoded = protocol::LeaderAndIsrRequest::decode(r, req.header.api_version);
  if (!decoded) {
    return close_bad_request(req.from, "malformed LeaderAndIsr: " + decoded.status().to_string());
  }
  auto lai = std::make_shared<protocol::LeaderAndIsrRequest>(std::move(*decoded));
  if (lai->controller_epoch < highest_controller_epoch_) {
    protocol::LeaderAndIsrResponse resp;
    resp.error_code = ErrorCode::STALE_CONTROLLER_EPOCH;
    rt_.emit("stale_controller_request", {{"api", "LeaderAndIsr"}, {"controller_epoch", lai->controller_epoch},
                                          {"known_epoch", highest_controller_epoch_}});
    return respond(req, resp);
  }
  highest_controller_epoch_ = lai->controller_epoch;
  for (const auto& l : lai->live_leaders) rt_.learn_address(NodeId{l.broker_id}, l.host_name, l.port);
  // Topics this broker has not hosted yet: read their config overrides first, so their logs and
  // partitions open with them (min.insync.replicas, segment.bytes, ...).
  std::vector<std::string> unknown;
  for (const auto& ts : lai->topic_states)
    if (!topic_configs_.count(ts.topic_name)) unknown.push_back(ts.topic_name);
  sequentially<std::string>(
      unknown,
      [this](const std::string& topic, std::function<void()> next) {
        zk_.get_data(zk_paths::topic_config(topic), false, [this, topic, next](ZkError err, Bytes data, coord::Stat) {
          TopicConfig tc = config_.topic_defaults;
          if (err == ZkError::kOk) {
            auto overrides = decode_topic_config(as_view(data));
            if (overrides) {
              Status s = tc.apply(*overrides);
              if (!s.is_ok()) rt_.log("topic " + topic + ": " + s.to_string());
            }
          }
          topic_configs_[topic] = tc;
          next();
        });
      },
      [this, req, lai] {
        protocol::LeaderAndIsrResponse resp;
        for (const auto& ts : lai->topic_states) {
          for (const auto& ps : ts.partition_states) {
            TopicPartition tp{ts.topic_name, ps.partition_index};
            ErrorCode code = ErrorCode::NONE;
            if (std::find(ps.replicas.begin(), ps.replicas.end(), config_.broker_id) == ps.replicas.end()) {
              code = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
            } else if (Partition* p = get_or_create_partition(tp)) {
              PartitionAssignmentState st;
              st.controller_epoch = ps.controller_epoch;
              st.leader = ps.leader;
              st.leader_epoch = ps.leader_epoch;
              st.isr = ps.isr;
              st.zk_version = ps.zk_version;
              st.replicas = ps.replicas;
              st.is_new = ps.is_new;
              if (ps.leader == config_.broker_id) {
                if (p->make_leader(st, rt_.now()))
                  fetcher_.remove_partition(tp);
                else
                  code = ErrorCode::STALE_CONTROLLER_EPOCH;
              } else {
                if (p->make_follower(st, rt_.now())) {
                  fetcher_.remove_partition(tp);
                  if (ps.leader >= 0) fetcher_.add_partition(tp, ps.leader, ps.leader_epoch);
                } else {
                  code = ErrorCode::STALE_CONTROLLER_EPOCH;
                }
              }
            } else {
              code = ErrorCode::KAFKA_STORAGE_ERROR;
            }
            resp.partition_errors.push_back({tp.topic, tp.partition, code});
          }
        }
        schedule_delayed_check();  // leaders that became followers fail their waiting produces
        group_coordinator_.on_partitions_changed();  // load or unload __consumer_offsets partitions
        respond(req, resp);
      });
}

void Broker::handle_update_metadata(const Request& req, ByteReader& r) {
  auto decoded = protocol::UpdateMetadataRequest::decode(r, req.header.api_version);
  if (!decoded) {
    return close_bad_request(req.from, "malformed UpdateMetadata: " + decoded.status().to_string());
  }
  protocol::UpdateMetadataResponse resp;
  if (decoded->controller_epoch < highest_controller_epoch_) {
    resp.error_code = ErrorCode::STALE_CONTROLLER_EPOCH;
    return respond(req, resp);
  }
  highest_controller_epoch_ = decoded->controller_epoch;
  std::map<int32_t, BrokerEndpoint> brokers;
  for (const auto& b : decoded->live_brokers) {
    if (b.endpoints.empty()) continue;
    brokers[b.id] = BrokerEndpoint{b.id, b.endpoints.front().host, b.endpoints.front().port};
    rt_.learn_address(NodeId{b.id}, b.endpoints.front().host, b.endpoints.front().port);
  }
  std::map<TopicPartition, PartitionMetadata> parts;
  for (const auto& ts : decoded->topic_states)
    for (const auto& ps : ts.partition_states)
      parts[TopicPartition{ts.topic_name, ps.partition_index}] =
          PartitionMetadata{ps.leader, ps.leader_epoch, ps.replicas, ps.isr, ps.offline_replicas};
  metadata_.update(decoded->controller_id, decoded->controller_epoch, std::move(brokers), std::move(parts));
  respond(req, resp);
  check_metadata_waits();
}

void Broker::handle_stop_replica(const Request& req, ByteReader& r) {
  auto decoded = protocol::StopReplicaRequest::decode(r, req.header.api_version);
  if (!decoded) {
    return close_bad_request(req.from, "malformed StopReplica: " + decoded.status().to_string());
  }
  protocol::StopReplicaResponse resp;
  if (decoded->controller_epoch < highest_controller_epoch_) {
    resp.error_code = ErrorCode::STALE_CONTROLLER_EPOCH;
    return respond(req, resp);
  }
  highest_controller_epoch_ = decoded->controller_epoch;
  for (const auto& t : decoded->topics)
    for (int32_t pi : t.partition_indexes) {
      TopicPartition tp{t.name, pi};
      fetcher_.remove_partition(tp);
      ErrorCode code = ErrorCode::NONE;
      if (Partition* p = partition(tp)) {
        p->make_offline();
        if (decoded->delete_partitions) {
          partitions_.erase(tp);
          checkpointed_hw_.erase(tp);
          // Remove the partition's directory.
          auto files = rt_.disk().list(tp.str());
          if (files)
            for (const auto& f : *files) (void)rt_.disk().remove(tp.str() + "/" + f);
          rt_.emit("partition_deleted", {{"topic", tp.topic}, {"partition", tp.partition}});
        }
      }
      resp.partition_errors.push_back({tp.topic, tp.partition, code});
    }
  if (decoded->delete_partitions)
    for (const auto& t : decoded->topics) topic_configs_.erase(t.name);
  schedule_delayed_check();
  group_coordinator_.on_partitions_changed();
  respond(req, resp);
}

void Broker::handle_controlled_shutdown(const Request& req, ByteReader& r) {
  auto decoded = protocol::ControlledShutdownRequest::decode(r, req.header.api_version);
  if (!decoded) {
    return close_bad_request(req.from, "malformed ControlledShutdown: " + decoded.status().to_string());
  }
  controller_.controlled_shutdown(decoded->broker_id, [this, req](ErrorCode code, std::vector<TopicPartition> remaining) {
    protocol::ControlledShutdownResponse resp;
    resp.error_code = code;
    for (const auto& tp : remaining) resp.remaining_partitions.push_back({tp.topic, tp.partition});
    respond(req, resp);
  });
}

void Broker::handle_offset_for_leader_epoch(const Request& req, ByteReader& r) {
  auto decoded = protocol::OffsetForLeaderEpochRequest::decode(r, req.header.api_version);
  if (!decoded) {
    return close_bad_request(req.from, "malformed OffsetForLeaderEpoch: " + decoded.status().to_string());
  }
  protocol::OffsetForLeaderEpochResponse resp;
  for (const auto& t : decoded->topics) {
    protocol::OffsetForLeaderEpochResponse::OffsetForLeaderTopicResult tr;
    tr.topic = t.topic;
    for (const auto& op : t.partitions) {
      protocol::OffsetForLeaderEpochResponse::EpochEndOffset e;
      e.partition = op.partition;
      Partition* p = partition(TopicPartition{t.topic, op.partition});
      if (!p || !p->is_leader()) {
        e.error_code = ErrorCode::NOT_LEADER_OR_FOLLOWER;
      } else if (op.current_leader_epoch >= 0 && op.current_leader_epoch < p->leader_epoch()) {
        e.error_code = ErrorCode::FENCED_LEADER_EPOCH;
      } else if (op.current_leader_epoch > p->leader_epoch()) {
        e.error_code = ErrorCode::UNKNOWN_LEADER_EPOCH;
      } else {
        auto [epoch, end] = p->end_offset_for_epoch(op.leader_epoch);
        e.leader_epoch = epoch;
        e.end_offset = end;
      }
      tr.partitions.push_back(e);
    }
    resp.topics.push_back(std::move(tr));
  }
  respond(req, resp);
}

}  // namespace gregor::broker
