#include "sim/check/cluster_model.h"

#include <algorithm>
#include <type_traits>

#include "engine/broker/zk_data.h"
#include "sim/cluster.h"

namespace gregor::sim {

namespace {

// Brokers are 1..1000 (sim/cluster.h): zk servers and clients come after them.
bool is_broker(int32_t node) { return node > 0 && node < kFirstZkNodeId; }


std::string_view path_after(std::string_view path, std::string_view prefix) {
  return path.substr(0, prefix.size()) == prefix ? path.substr(prefix.size()) : std::string_view();
}

}  // namespace

std::string partition_text(const PartitionKey& tp) { return tp.first + "-" + std::to_string(tp.second); }

const NodeView* ClusterModel::node(int32_t id) const {
  auto it = nodes_.find(id);
  return it == nodes_.end() ? nullptr : &it->second;
}

bool ClusterModel::alive(int32_t id) const {
  const NodeView* n = node(id);
  return n && (n->status == NodeStatus::kAlive || n->status == NodeStatus::kPaused);
}

const PartitionView* ClusterModel::partition(const PartitionKey& tp) const { return partitions_.find(0, tp.first, tp.second); }

const ReplicaLog* ClusterModel::replica(int32_t broker, const PartitionKey& tp) const {
  return replicas_.find(broker, tp.first, tp.second);
}

bool ClusterModel::holds(int32_t broker, const PartitionKey& tp, int64_t base_offset, int64_t crc) const {
  const ReplicaLog* r = replica(broker, tp);
  if (!r) return false;
  auto it = r->batches.find(base_offset);
  if (it == r->batches.end()) return false;
  if (it->second.crc == crc) return true;
  // A batch the leader rewrote (batch_rewritten) holds the records of the one produced.
  auto alias = produced_crcs_.find({tp, it->second.crc});
  return alias != produced_crcs_.end() && alias->second.count(crc);
}

const GroupView* ClusterModel::group(const std::string& name) const {
  auto it = groups_.find(name);
  return it == groups_.end() ? nullptr : &it->second;
}

ReplicaLog& ClusterModel::replica_of(int32_t broker, const std::string& topic, int32_t partition) {
  return replicas_.get(broker, topic, partition);
}

PartitionView& ClusterModel::partition_of(const std::string& topic, int32_t partition) {
  return partitions_.get(0, topic, partition);
}

void ClusterModel::forget_roles(int32_t node) {
  if (!is_broker(node)) return;
  for (auto& [key, r] : replicas_.map())
    if (key.first == node) r.leader = false;
}

bool ClusterModel::apply(const TraceEvent& e) {
  if (e.node.value == 0) {
    on_world(e);
    return last_changed_partitions_ = false;
  }
  on_zk(e);
  on_group(e);
  return last_changed_partitions_ = on_partition(e);
}

void ClusterModel::on_world(const TraceEvent& e) {
  std::visit(
      [&](const auto& b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, ev::NodeStart> || std::is_same_v<B, ev::NodeRestart>) {
          NodeView& n = nodes_[b.target];
          n.name = b.name;
          n.status = NodeStatus::kAlive;
          n.incarnation = static_cast<uint64_t>(b.incarnation);
          forget_roles(b.target);  // a new process leads nothing yet
        } else if constexpr (std::is_same_v<B, ev::NodeCrash>) {
          nodes_[b.target].status = NodeStatus::kCrashed;
          nodes_[b.target].registered = false;
          forget_roles(b.target);
        } else if constexpr (std::is_same_v<B, ev::PowerLoss>) {
          nodes_[b.target].status = NodeStatus::kPoweredOff;
          nodes_[b.target].registered = false;
          forget_roles(b.target);
        } else if constexpr (std::is_same_v<B, ev::NodePause>) {
          nodes_[b.target].status = NodeStatus::kPaused;
        } else if constexpr (std::is_same_v<B, ev::NodeResume>) {
          nodes_[b.target].status = NodeStatus::kAlive;
        } else if constexpr (std::is_same_v<B, ev::Partition> || std::is_same_v<B, ev::Heal>) {
          for (int32_t a : b.from)
            for (int32_t c : b.to) {
              if (a == c) continue;
              if constexpr (std::is_same_v<B, ev::Partition>) {
                cuts_.insert({a, c});
                if (b.both_ways) cuts_.insert({c, a});
              } else {
                cuts_.erase({a, c});
                if (b.both_ways) cuts_.erase({c, a});
              }
            }
        } else if constexpr (std::is_same_v<B, ev::HealAll>) {
          cuts_.clear();
        }
      },
      e.body);
}

bool ClusterModel::on_partition(const TraceEvent& e) {
  const int32_t node = e.node.value;
  return std::visit(
      [&](const auto& b) -> bool {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, ev::LogOpen>) {
          // What survived on disk: the batches below the recovered LEO.
          ReplicaLog& r = replica_of(node, b.topic, b.partition);
          r.batches.erase(r.batches.lower_bound(b.leo), r.batches.end());
          if (!r.batches.empty() && r.batches.rbegin()->second.last_offset >= b.leo) r.batches.erase(std::prev(r.batches.end()));
          r.batches.erase(r.batches.begin(), r.batches.lower_bound(b.log_start));
          r.leo = b.leo;
          r.hw = 0;
          r.leader = false;
          r.leader_epoch = -1;
          return true;
        } else if constexpr (std::is_same_v<B, ev::LogAppend>) {
          ReplicaLog& r = replica_of(node, b.topic, b.partition);
          r.batches.insert_or_assign(r.batches.end(), b.base_offset, BatchRecord{b.last_offset, b.crc, b.epoch});
          r.leo = b.last_offset + 1;
          return true;
        } else if constexpr (std::is_same_v<B, ev::BatchRewritten>) {
          produced_crcs_[{PartitionKey{b.topic, b.partition}, b.crc}].insert(b.producer_crc);
          return true;
        } else if constexpr (std::is_same_v<B, ev::LogTruncate>) {
          ReplicaLog& r = replica_of(node, b.topic, b.partition);
          if (b.full.value_or(false))
            r.batches.clear();
          else
            r.batches.erase(r.batches.lower_bound(b.offset), r.batches.end());
          r.leo = b.offset;
          if (r.hw > b.offset) r.hw = b.offset;
          return true;
        } else if constexpr (std::is_same_v<B, ev::HwAdvance>) {
          replica_of(node, b.topic, b.partition).hw = b.hw;
          return true;
        } else if constexpr (std::is_same_v<B, ev::BecomeLeader>) {
          ReplicaLog& r = replica_of(node, b.topic, b.partition);
          r.leader = true;
          r.leader_epoch = b.leader_epoch;
          PartitionView& p = partition_of(b.topic, b.partition);
          if (r.leader_epoch >= p.acting.leader_epoch) p.acting = LeaderView{node, r.leader_epoch, b.isr};
          return true;
        } else if constexpr (std::is_same_v<B, ev::BecomeFollower>) {
          ReplicaLog& r = replica_of(node, b.topic, b.partition);
          r.leader = false;
          r.leader_epoch = b.leader_epoch;
          return true;
        } else if constexpr (std::is_same_v<B, ev::IsrChange>) {
          PartitionView& p = partition_of(b.topic, b.partition);
          // The brokers' view takes its acting leader's change; Kafka's metadata takes the change
          // of the epoch the controller wrote last.
          if (p.acting.leader == node && b.leader_epoch == p.acting.leader_epoch) p.acting.isr = b.isr;
          if (b.leader_epoch == p.written.leader_epoch) {
            p.written.isr = b.isr;
            p.isr_changes++;
          }
          return true;
        } else if constexpr (std::is_same_v<B, ev::LeaderChange> || std::is_same_v<B, ev::PartitionOffline>) {
          PartitionView& p = partition_of(b.topic, b.partition);
          if constexpr (std::is_same_v<B, ev::LeaderChange>) {
            p.elected_epoch = std::max(p.elected_epoch, b.leader_epoch);
          } else {
            // No leader: the brokers' view has none either from this epoch on (the new leader's
            // become_leader carries the ISR as the leader sees it; the model takes it from there).
            if (b.leader_epoch >= p.acting.leader_epoch) p.acting.leader = -1;
          }
          if (b.leader_epoch >= p.written.leader_epoch) {
            const int32_t old_leader = p.written.leader;
            p.written = LeaderView{b.leader, b.leader_epoch, b.isr};
            if (p.has_leader_record && old_leader != p.written.leader) p.leader_changes++;
            p.has_leader_record = true;
          }
          return true;
        } else if constexpr (std::is_same_v<B, ev::ReassignmentStarted>) {
          PartitionView& p = partition_of(b.topic, b.partition);
          p.replicas = b.replicas;
          p.adding = b.adding;
          p.removing = b.removing;
          return true;
        } else if constexpr (std::is_same_v<B, ev::ReassignmentCompleted> || std::is_same_v<B, ev::ReassignmentCancelled>) {
          PartitionView& p = partition_of(b.topic, b.partition);
          p.replicas = b.replicas;
          p.adding.clear();
          p.removing.clear();
          return true;
        } else if constexpr (std::is_same_v<B, ev::TopicCreated>) {
          if (b.replicas)
            for (size_t i = 0; i < b.replicas->size(); i++)
              partition_of(b.topic, static_cast<int32_t>(i)).replicas = (*b.replicas)[i];
          return true;
        } else if constexpr (std::is_same_v<B, ev::TopicDeleted>) {
          // The topic's metadata goes; what the replicas did stays (checkers judge it at the end).
          for (auto& [key, p] : partitions_.map()) {
            if (key.first != b.topic) continue;
            p.replicas.clear();
            p.written = LeaderView{};
            p.has_leader_record = false;
            p.leader_changes = p.isr_changes = 0;
          }
          topic_configs_.erase(b.topic);
          return true;
        } else if constexpr (std::is_same_v<B, ev::BrokerRegister>) {
          nodes_[node].registered = true;
          return false;
        } else if constexpr (std::is_same_v<B, ev::BrokerSessionExpired>) {
          nodes_[node].registered = false;
          return false;
        } else if constexpr (std::is_same_v<B, ev::ControllerElected>) {
          controller_ = node;
          controller_epoch_ = b.controller_epoch;
          return false;
        } else if constexpr (std::is_same_v<B, ev::ControllerResigned>) {
          if (controller_ == node) controller_ = -1;
          return false;
        } else {
          return false;
        }
      },
      e.body);
}

void ClusterModel::on_zk(const TraceEvent& e) {
  if (const auto* d = e.as<ev::ZkDelete>()) {
    if (d->path == "/controller") controller_ = -1;
    return;
  }
  const std::string* path = nullptr;
  const std::string* data = nullptr;
  if (const auto* c = e.as<ev::ZkCreate>()) path = &c->path, data = &c->data;
  if (const auto* s = e.as<ev::ZkSet>()) path = &s->path, data = &s->data;
  if (const auto* n = e.as<ev::ZkNode>()) path = &n->path, data = &n->data;
  if (!path) return;
  // A topic's config znode holds its non-default configs as JSON (Kafka's format); the model
  // reads it with the broker's own decoder.
  const std::string_view topic = path_after(*path, "/config/topics/");
  if (topic.empty() || topic.find('/') != std::string_view::npos) return;
  auto config = broker::decode_topic_config(as_view(*data));
  if (config.is_ok()) topic_configs_[std::string(topic)] = std::move(*config);
}

void ClusterModel::on_group(const TraceEvent& e) {
  const int32_t node = e.node.value;
  std::visit(
      [&](const auto& b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (requires { b.group; }) {
          GroupView& g = groups_[b.group];
          const bool from_broker = is_broker(node);
          // The coordinator's events carry the group's state; its generation is the truth, a
          // member's stands in until the coordinator speaks.
          if constexpr (requires { b.state; }) g.state = b.state;
          if constexpr (requires { b.generation; }) {
            std::optional<int32_t> generation = b.generation;
            if (generation && (from_broker || g.generation < 0)) g.generation = *generation;
          }
          // The coordinator is the broker that speaks for the group; a consumer's FindCoordinator
          // answer stands in until one does.
          if (from_broker) g.coordinator = node;
          if constexpr (std::is_same_v<B, ev::ConsumerCoordinator>)
            if (g.coordinator < 0) g.coordinator = b.coordinator;

          auto drop_owner = [&](const std::string& member) {
            for (auto it = g.owners.begin(); it != g.owners.end();) it = it->second.first == member ? g.owners.erase(it) : std::next(it);
          };
          auto assign = [&](const std::string& member, const PartitionList& partitions) {
            drop_owner(member);
            GroupMemberView& m = g.members[member];
            m.member_id = member;
            m.assignment = partitions;
            for (const PartitionName& tp : partitions) g.owners[{tp.topic, tp.partition}] = {member, m.client};
          };

          if constexpr (std::is_same_v<B, ev::ConsumerStart>) {
            if (g.mode.empty()) g.mode = b.mode;
            g.topics.insert(b.topics.begin(), b.topics.end());
          } else if constexpr (std::is_same_v<B, ev::MemberJoin>) {
            if (b.member.empty()) return;
            GroupMemberView& m = g.members[b.member];
            m.member_id = b.member;
            m.client_name = b.client_id;
            // The client node of that client.id (clients are named by their client.id).
            for (const auto& [id, n] : nodes_)
              if (m.client < 0 && id >= kFirstClientNodeId && n.name == m.client_name) m.client = id;
          } else if constexpr (std::is_same_v<B, ev::MemberLeave>) {
            g.members.erase(b.member);
            drop_owner(b.member);
          } else if constexpr (std::is_same_v<B, ev::GroupJoinComplete> || std::is_same_v<B, ev::GroupStable> ||
                               std::is_same_v<B, ev::GroupEmpty>) {
            // The coordinator's member list is the truth: members it does not list have left.
            for (auto it = g.members.begin(); it != g.members.end();) {
              if (std::find(b.members.begin(), b.members.end(), it->first) == b.members.end()) {
                drop_owner(it->first);
                it = g.members.erase(it);
              } else {
                ++it;
              }
            }
            // group_stable carries the leader's assignment.
            if constexpr (std::is_same_v<B, ev::GroupStable>)
              for (const MemberAssignment& a : b.assignment)
                if (g.members.count(a.member)) assign(a.member, a.partitions.value_or(PartitionList{}));
          } else if constexpr (std::is_same_v<B, ev::ConsumerJoin>) {
            if (b.member.empty()) return;
            GroupMemberView& m = g.members[b.member];
            m.member_id = b.member;
            m.client = node;
            for (auto& [tp, owner] : g.owners)
              if (owner.first == b.member) owner.second = node;
          } else if constexpr (std::is_same_v<B, ev::ConsumerAssignment>) {
            if (b.member.empty()) return;
            g.members[b.member].client = node;
            assign(b.member, b.partitions);
          } else if constexpr (std::is_same_v<B, ev::ConsumerRevoke>) {
            auto it = g.members.find(b.member);
            if (it != g.members.end()) {
              auto& a = it->second.assignment;
              for (const PartitionName& tp : b.partitions) a.erase(std::remove(a.begin(), a.end(), tp), a.end());
            }
            for (const PartitionName& tp : b.partitions) {
              auto o = g.owners.find({tp.topic, tp.partition});
              if (o != g.owners.end() && o->second.first == b.member) g.owners.erase(o);
            }
          } else if constexpr (std::is_same_v<B, ev::OffsetCommit> || std::is_same_v<B, ev::Commit>) {
            g.committed[{b.topic, b.partition}] = b.offset;
          } else if constexpr (std::is_same_v<B, ev::Consume>) {
            g.consumed++;
          }
        }
      },
      e.body);
}

}  // namespace gregor::sim
