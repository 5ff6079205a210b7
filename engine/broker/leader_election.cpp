#include "engine/broker/leader_election.h"

#include <algorithm>

namespace gregor::broker::election {

namespace {
bool contains(const std::vector<int32_t>& v, int32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::optional<int32_t> first_eligible_in_isr(const std::vector<int32_t>& replicas, const std::vector<int32_t>& isr,
                                             const Brokers& brokers) {
  for (int32_t r : replicas)
    if (brokers.eligible(r) && contains(isr, r)) return r;
  return std::nullopt;
}

std::vector<int32_t> without(std::vector<int32_t> v, int32_t x) {
  v.erase(std::remove(v.begin(), v.end(), x), v.end());
  return v;
}

// The current state with the next leader epoch, under this controller.
LeaderIsrState next_epoch(const LeaderIsrState& cur, int32_t controller_epoch) {
  LeaderIsrState s = cur;
  s.leader_epoch = cur.leader_epoch + 1;
  s.controller_epoch = controller_epoch;
  return s;
}
}  // namespace

std::optional<OfflineLeader> offline_partition_leader(const std::vector<int32_t>& assignment, const std::vector<int32_t>& isr,
                                                      const Brokers& brokers, bool unclean_enabled,
                                                      const std::set<int32_t>& damaged) {
  for (int32_t r : assignment)
    if (brokers.eligible(r) && contains(isr, r) && !damaged.count(r)) return OfflineLeader{r, false};
  if (!unclean_enabled) return std::nullopt;
  for (int32_t r : assignment)
    if (brokers.eligible(r) && !damaged.count(r)) return OfflineLeader{r, true};
  for (int32_t r : assignment)
    if (brokers.eligible(r)) return OfflineLeader{r, true};
  return std::nullopt;
}

std::optional<int32_t> reassign_partition_leader(const std::vector<int32_t>& reassignment, const std::vector<int32_t>& isr,
                                                 const Brokers& brokers) {
  return first_eligible_in_isr(reassignment, isr, brokers);
}

std::optional<int32_t> preferred_replica_partition_leader(const std::vector<int32_t>& assignment,
                                                          const std::vector<int32_t>& isr, const Brokers& brokers) {
  if (assignment.empty()) return std::nullopt;
  const int32_t preferred = assignment.front();
  if (!brokers.eligible(preferred) || !contains(isr, preferred)) return std::nullopt;
  return preferred;
}

std::optional<int32_t> controlled_shutdown_partition_leader(const std::vector<int32_t>& assignment,
                                                            const std::vector<int32_t>& isr, const Brokers& brokers) {
  return first_eligible_in_isr(assignment, isr, brokers);
}

std::optional<Change> on_brokers_changed(const ControllerPartition& p, const Brokers& brokers, bool unclean_enabled,
                                         int32_t controller_epoch, const char* reason, const std::set<int32_t>& damaged) {
  const LeaderIsrState& cur = p.state;
  if (p.zk_version < 0) {
    LeaderIsrState s;
    for (int32_t r : p.replicas)
      if (brokers.live.count(r)) s.isr.push_back(r);
    if (s.isr.empty()) return std::nullopt;
    s.leader = s.isr.front();
    s.leader_epoch = 0;
    s.controller_epoch = controller_epoch;
    return Change{s, "new_partition"};
  }
  // The ISR without its damaged members (they never stay), and of that the live ones.
  std::vector<int32_t> isr_intact, isr_live;
  bool damaged_member = false;
  for (int32_t r : cur.isr) {
    if (damaged.count(r)) {
      damaged_member = true;
      continue;
    }
    isr_intact.push_back(r);
    if (brokers.live.count(r)) isr_live.push_back(r);
  }
  if (cur.leader >= 0 && brokers.live.count(cur.leader) && !damaged.count(cur.leader)) {
    if (isr_live.size() == cur.isr.size()) return std::nullopt;
    // Replicas died or are damaged: they leave the ISR (the leader stays, so the ISR is not empty).
    LeaderIsrState s = next_epoch(cur, controller_epoch);
    s.isr = isr_live;
    return Change{s, damaged_member ? "replica_damaged" : "replica_offline"};
  }
  LeaderIsrState s = next_epoch(cur, controller_epoch);
  if (auto elected = offline_partition_leader(p.replicas, isr_intact, brokers, unclean_enabled, damaged)) {
    s.leader = elected->leader;
    s.isr = elected->unclean ? std::vector<int32_t>{elected->leader} : isr_live;
    return Change{s, elected->unclean ? "unclean" : damaged_member ? "replica_damaged" : reason};
  }
  // Offline: no leader; the last intact ISR member is kept so that it can come back as leader.
  s.leader = -1;
  s.isr = isr_live.empty() ? isr_intact : isr_live;
  if (cur.leader == -1 && s.isr == cur.isr) return std::nullopt;  // offline already
  if (cur.leader == -1 && !damaged_member) return std::nullopt;
  return Change{s, damaged_member ? "replica_damaged" : "offline"};
}

std::optional<ShutdownChange> on_controlled_shutdown(const ControllerPartition& p, int32_t shutting_down,
                                                     const Brokers& brokers, int32_t controller_epoch) {
  const LeaderIsrState& cur = p.state;
  if (p.zk_version < 0 || !contains(p.replicas, shutting_down)) return std::nullopt;
  if (cur.leader == shutting_down) {
    auto chosen = controlled_shutdown_partition_leader(p.replicas, cur.isr, brokers);
    if (!chosen) return std::nullopt;  // nobody else can lead: it stays (and goes offline on stop)
    LeaderIsrState s = next_epoch(cur, controller_epoch);
    s.leader = *chosen;
    s.isr = without(cur.isr, shutting_down);
    return ShutdownChange{{s, "controlled_shutdown"}, false};
  }
  if (!contains(cur.isr, shutting_down) || cur.isr.size() <= 1) return std::nullopt;
  LeaderIsrState s = next_epoch(cur, controller_epoch);
  s.isr = without(cur.isr, shutting_down);
  return ShutdownChange{{s, "controlled_shutdown"}, true};
}

std::optional<Change> on_isr_expanded(const ControllerPartition& p, const Brokers& brokers, int32_t controller_epoch) {
  const LeaderIsrState& cur = p.state;
  if (p.zk_version < 0 || cur.leader < 0) return std::nullopt;
  std::vector<int32_t> eligible;
  for (int32_t r : cur.isr)
    if (r == cur.leader || brokers.eligible(r)) eligible.push_back(r);
  if (eligible.size() == cur.isr.size()) return std::nullopt;
  LeaderIsrState s = next_epoch(cur, controller_epoch);
  s.isr = eligible;
  return Change{s, "ineligible_replica"};
}

std::optional<Change> on_preferred_election(const ControllerPartition& p, const Brokers& brokers, int32_t controller_epoch) {
  if (p.zk_version < 0 || p.replicas.empty() || p.state.leader == p.replicas.front()) return std::nullopt;
  auto preferred = preferred_replica_partition_leader(p.replicas, p.state.isr, brokers);
  if (!preferred) return std::nullopt;
  LeaderIsrState s = next_epoch(p.state, controller_epoch);
  s.leader = *preferred;
  return Change{s, "preferred"};
}

std::vector<TopicPartition> imbalanced_partitions(const std::map<TopicPartition, ControllerPartition>& partitions) {
  std::map<int32_t, std::pair<int, int>> per_broker;  // preferred count, not-leading count
  for (const auto& [tp, p] : partitions) {
    if (p.replicas.empty() || p.zk_version < 0) continue;
    auto& c = per_broker[p.replicas.front()];
    c.first++;
    if (p.state.leader != p.replicas.front()) c.second++;
  }
  std::vector<TopicPartition> tps;
  for (const auto& [b, c] : per_broker)
    if (c.first > 0 && c.second * 10 > c.first)
      for (const auto& [tp, p] : partitions)
        if (!p.replicas.empty() && p.replicas.front() == b && p.state.leader != b) tps.push_back(tp);
  return tps;
}

}  // namespace gregor::broker::election
