// ModelBuilder's part for ZooKeeper-coordinated consumer groups (GroupModel::zk): Kafka 0.8's
// high-level consumer, whose whole group state is the znodes under /consumers/<group> and what each
// member does on its own (engine/client/zk_group_consumer.h). Nothing here needs an event of its
// own: the zk server's transactions say who is registered, who owns which partition and what offset
// is stored; its watch notifications and refusals say how big the herd was and where claims
// collided; the members' consumer_* events say when each rebalanced, what it claimed and what it
// went on consuming after its session was gone.
#include <algorithm>
#include <charconv>
#include <optional>

#include "gui/model_builder.h"

namespace gregor::gui {

namespace {

// A path under /consumers/<group>: the group, the child directory ("" for the group's own znode or
// /consumers itself) and what follows it.
struct ConsumersPath {
  std::string group;
  std::string dir;   // "", "ids", "owners", "offsets"
  std::string rest;  // "<member>" or "<topic>/<partition>" (or "<topic>" for its directory)
};

std::optional<ConsumersPath> parse_consumers_path(const std::string& path) {
  static const std::string kPrefix = "/consumers/";
  if (!path.starts_with(kPrefix)) return std::nullopt;
  ConsumersPath out;
  const std::string tail = path.substr(kPrefix.size());
  const size_t slash = tail.find('/');
  out.group = tail.substr(0, slash);
  if (out.group.empty()) return std::nullopt;
  if (slash == std::string::npos) return out;
  const std::string below = tail.substr(slash + 1);
  const size_t slash2 = below.find('/');
  out.dir = below.substr(0, slash2);
  if (slash2 != std::string::npos) out.rest = below.substr(slash2 + 1);
  return out;
}

// "<topic>/<partition>" of an owners/ or offsets/ path.
std::optional<sim::PartitionKey> parse_topic_partition(const std::string& rest) {
  const size_t slash = rest.find('/');
  if (slash == std::string::npos || slash == 0) return std::nullopt;
  int32_t p = -1;
  const char* first = rest.data() + slash + 1;
  const char* last = rest.data() + rest.size();
  auto [ptr, ec] = std::from_chars(first, last, p);
  if (ec != std::errc{} || ptr != last || p < 0) return std::nullopt;
  return sim::PartitionKey{rest.substr(0, slash), p};
}

std::optional<int64_t> parse_offset(const std::string& text) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string tp_name(const sim::PartitionKey& tp) { return tp.first + "-" + std::to_string(tp.second); }

}  // namespace

const ZkGroupMemberModel* ZkGroupModel::member(const std::string& id) const {
  for (const auto& m : members)
    if (m.member_id == id) return &m;
  return nullptr;
}

const ZkGroupPartitionModel* ZkGroupModel::partition(const std::string& topic, int32_t p) const {
  for (const auto& x : partitions)
    if (x.topic == topic && x.partition == p) return &x;
  return nullptr;
}

// A rebalance is over when no member that joined it is still at it (a crashed member is not).
void ModelBuilder::zk_group_maybe_close(ZkGroupState& g, Time at) {
  if (g.rebalances.empty() || !g.rebalances.back().open) return;
  for (const auto& [id, m] : g.members)
    if (m.rebalancing) return;
  g.rebalances.back().open = false;
  g.rebalances.back().end = at;
}

void ModelBuilder::zk_groups_after_crash(Time at) {
  for (auto& [name, g] : zk_groups_) {
    for (auto& [id, m] : g.members) {
      if (m.client < 0 || model_.alive(m.client)) continue;
      // A process that is gone consumes nothing and rebalances no more.
      m.rebalancing = false;
      m.believed.clear();
      m.claiming.clear();
    }
    zk_group_maybe_close(g, at);
  }
}

void ModelBuilder::on_zk_group(const TraceEvent& e) {
  const int32_t node = e.node.value;
  // The znodes, from the server whose tree the ZooKeeper view shows (every server of an ensemble
  // applies every transaction; one is enough).
  auto znode_change = [&](const std::string& path, const std::string* data, int64_t session, bool deleted) {
    if (node != zk_server_) return;
    auto p = parse_consumers_path(path);
    if (!p) return;
    if (deleted && !zk_groups_.count(p->group)) return;
    ZkGroupState& g = zk_groups_[p->group];
    if (p->dir == "ids" && !p->rest.empty()) {
      ZkMemberState& m = g.members[p->rest];
      m.registered = !deleted;
      if (!deleted && session != 0) m.session = session;
      const int32_t holder = m.session != 0 ? session_node(m.session) : -1;
      if (holder >= 0) m.client = holder;
    } else if (p->dir == "owners") {
      auto tp = parse_topic_partition(p->rest);
      if (!tp) return;
      ZkPartitionState& s = g.partitions[*tp];
      s.owned = !deleted;
      s.owner = deleted || data == nullptr ? std::string() : *data;
    } else if (p->dir == "offsets") {
      auto tp = parse_topic_partition(p->rest);
      if (!tp) return;
      ZkPartitionState& s = g.partitions[*tp];
      s.committed = -1;
      if (!deleted && data != nullptr)
        if (auto o = parse_offset(*data)) s.committed = *o;
    }
  };
  auto open_rebalance = [](ZkGroupState& g) -> ZkRebalanceModel* {
    return !g.rebalances.empty() && g.rebalances.back().open ? &g.rebalances.back() : nullptr;
  };
  auto group_of = [&](const std::string& name) -> ZkGroupState* {
    auto it = zk_groups_.find(name);
    return it == zk_groups_.end() ? nullptr : &it->second;
  };

  if (e.is<ev::ZkRecover>() && node == zk_server_) {
    // The tree is read again (zk_node events follow): what the znodes said is forgotten until then.
    for (auto& [name, g] : zk_groups_) {
      for (auto& [id, m] : g.members) m.registered = false;
      for (auto& [tp, s] : g.partitions) {
        s.owned = false;
        s.owner.clear();
        s.committed = -1;
      }
    }
    return;
  }
  if (const auto* c = e.as<ev::ZkCreate>()) return znode_change(c->path, &c->data, c->session, false);
  if (const auto* s = e.as<ev::ZkSet>()) return znode_change(s->path, &s->data, 0, false);
  if (const auto* d = e.as<ev::ZkDelete>()) return znode_change(d->path, nullptr, 0, true);
  if (const auto* n = e.as<ev::ZkNode>()) {
    // A recovered tree: an ephemeral's session is its ephemeral_owner.
    return znode_change(n->path, &n->data, n->ephemeral_owner, false);
  }
  // Watches and refusals are each server's own (a client's watches live on the server it talks to).
  if (const auto* w = e.as<ev::ZkWatchFire>()) {
    auto p = parse_consumers_path(w->path);
    if (!p || p->dir != "ids" || !p->rest.empty()) return;
    ZkGroupState* g = group_of(p->group);
    if (!g) return;
    g->watches_fired++;
    if (ZkRebalanceModel* r = open_rebalance(*g)) r->watches_fired++;
    else g->pending_watches++;
    return;
  }
  if (const auto* r = e.as<ev::ZkRefused>()) {
    auto p = parse_consumers_path(r->path);
    // A claim's owners/<topic>/<partition>; the members' creates of the persistent directories on
    // registration meet NodeExists too, and are no conflict.
    if (!p || p->dir != "owners" || r->error != "NodeExists" || !parse_topic_partition(p->rest)) return;
    ZkGroupState* g = group_of(p->group);
    if (!g) return;
    g->conflicts++;
    if (ZkRebalanceModel* open = open_rebalance(*g)) open->conflicts++;
    return;
  }

  std::visit(
      [&](const auto& b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, ev::ConsumerStart>) {
          // A (re)started process: what its previous incarnation believed is gone with it.
          ZkGroupState* g = group_of(b.group);
          if (!g) return;
          for (auto& [id, m] : g->members)
            if (m.client == node) {
              m.believed.clear();
              m.claiming.clear();
              m.rebalancing = false;
            }
          zk_group_maybe_close(*g, e.time);
        } else if constexpr (std::is_same_v<B, ev::ConsumerRejoinNeeded>) {
          ZkGroupState* g = group_of(b.group);
          if (!g || b.member.empty()) return;
          ZkMemberState& m = g->members[b.member];
          m.client = node;
          m.claiming.clear();
          ZkRebalanceModel* r = open_rebalance(*g);
          if (!r) {
            ZkRebalanceModel fresh;
            fresh.start = e.time;
            fresh.trigger = b.reason;
            fresh.first_member = b.member;
            fresh.watches_fired = g->pending_watches;
            g->pending_watches = 0;
            g->rebalances.push_back(std::move(fresh));
            while (g->rebalances.size() > kZkRebalancesMax) g->rebalances.pop_front();
            g->rebalance_count++;
            r = &g->rebalances.back();
          }
          if (!m.rebalancing) r->members++;
          m.rebalancing = true;
        } else if constexpr (std::is_same_v<B, ev::ConsumerPosition>) {
          ZkGroupState* g = group_of(b.group);
          if (!g || b.member.empty()) return;
          auto it = g->members.find(b.member);
          if (it != g->members.end() && it->second.rebalancing) it->second.claiming[{b.topic, b.partition}] = b.offset;
        } else if constexpr (std::is_same_v<B, ev::ConsumerJoin>) {
          ZkGroupState* g = group_of(b.group);
          if (!g || b.member.empty() || b.protocol != "zookeeper-range") return;
          ZkMemberState& m = g->members[b.member];
          m.client = node;
          // Its claims all succeeded: the positions it took are its share (generation: the attempt).
          m.believed = std::move(m.claiming);
          m.claiming.clear();
          m.rebalancing = false;
          m.rebalances++;
          m.last_attempts = b.generation;
          g->member_rebalances++;
          const int64_t retries = std::max<int64_t>(0, b.generation - 1);
          g->retries += retries;
          if (ZkRebalanceModel* r = open_rebalance(*g)) r->retries += retries;
          zk_group_maybe_close(*g, e.time);
        } else if constexpr (std::is_same_v<B, ev::ConsumerAssignment>) {
          // What the member now owns, as it says right after its consumer_join (traces made before
          // it said so have only the consumer_position events of its claims, taken above).
          ZkGroupState* g = group_of(b.group);
          if (!g || b.member.empty() || b.protocol != "zookeeper-range") return;
          ZkMemberState& m = g->members[b.member];
          std::map<sim::PartitionKey, int64_t> now;
          for (const PartitionName& tp : b.partitions) {
            auto it = m.believed.find({tp.topic, tp.partition});
            now[{tp.topic, tp.partition}] = it == m.believed.end() ? -1 : it->second;
          }
          m.believed = std::move(now);
        } else if constexpr (std::is_same_v<B, ev::ConsumerRevoke>) {
          ZkGroupState* g = group_of(b.group);
          if (!g) return;
          auto it = g->members.find(b.member);
          if (it == g->members.end()) return;
          for (const PartitionName& tp : b.partitions) it->second.believed.erase({tp.topic, tp.partition});
        } else if constexpr (std::is_same_v<B, ev::ConsumerGroupError>) {
          ZkGroupState* g = group_of(b.group);
          if (!g || !b.member || b.api != "rebalance") return;
          ZkMemberState& m = g->members[*b.member];
          m.failed++;
          m.rebalancing = false;
          m.claiming.clear();
          g->failed++;
          if (ZkRebalanceModel* r = open_rebalance(*g)) r->failed++;
          zk_group_maybe_close(*g, e.time);
        } else if constexpr (std::is_same_v<B, ev::Consume>) {
          ZkGroupState* g = group_of(b.group);
          if (!g) return;
          const sim::PartitionKey tp{b.topic, b.partition};
          ZkPartitionState& s = g->partitions[tp];
          if (b.offset <= s.max_processed) {
            s.duplicates++;
            g->duplicates++;
          }
          s.max_processed = std::max(s.max_processed, b.offset);
          auto it = g->members.find(b.member);
          if (it == g->members.end()) return;
          it->second.consumed++;
          auto bel = it->second.believed.find(tp);
          if (bel != it->second.believed.end()) bel->second = b.offset + 1;
        }
      },
      e.body);
}

void ModelBuilder::zk_group_models(DashboardModel& m) const {
  for (const auto& [name, g] : zk_groups_) {
    auto gm_it = std::find_if(m.groups.begin(), m.groups.end(), [&](const GroupModel& x) { return x.group == name; });
    if (gm_it == m.groups.end()) {
      GroupModel fresh;
      fresh.group = name;
      m.groups.push_back(std::move(fresh));
      std::sort(m.groups.begin(), m.groups.end(), [](const GroupModel& a, const GroupModel& b) { return a.group < b.group; });
      gm_it = std::find_if(m.groups.begin(), m.groups.end(), [&](const GroupModel& x) { return x.group == name; });
    }
    GroupModel& gm = *gm_it;
    gm.coordination = "zookeeper";
    gm.generation = -1;
    gm.coordinator = -1;
    ZkGroupModel& z = gm.zk;
    z.rebalances.assign(g.rebalances.begin(), g.rebalances.end());
    z.rebalance_count = g.rebalance_count;
    z.member_rebalances = g.member_rebalances;
    z.retries = g.retries;
    z.conflicts = g.conflicts;
    z.failed = g.failed;
    z.watches_fired = g.watches_fired;
    z.duplicates = g.duplicates;

    // The partitions: those with znodes, those members consume, and every partition of its topics.
    std::set<sim::PartitionKey> tps;
    for (const auto& [tp, s] : g.partitions) tps.insert(tp);
    for (const auto& [id, mem] : g.members)
      for (const auto& [tp, pos] : mem.believed) tps.insert(tp);
    if (const auto* cg = model_.group(name))
      for (const auto& [key, p] : model_.partitions())
        if (cg->topics.count(key.first) && (p.has_leader_record || !p.replicas.empty())) tps.insert(key);

    bool rebalancing = false;
    int registered = 0;
    for (const auto& [id, mem] : g.members) {
      ZkGroupMemberModel mm;
      mm.member_id = id;
      mm.client = mem.client;
      mm.session = mem.session;
      if (mem.session != 0) {
        auto s = zk_sessions_.find(mem.session);
        mm.session_state = s == zk_sessions_.end() ? "open" : s->second.state;
      }
      mm.registered = mem.registered;
      mm.alive = mem.client < 0 || model_.alive(mem.client);
      mm.rebalancing = mem.rebalancing;
      for (const auto& [tp, s] : g.partitions)
        if (s.owned && s.owner == id) mm.owned.push_back(tp_name(tp));
      for (const auto& [tp, pos] : mem.believed) {
        mm.believed.push_back(tp_name(tp));
        auto s = g.partitions.find(tp);
        if (s == g.partitions.end() || !s->second.owned || s->second.owner != id) mm.stale = true;
      }
      mm.rebalances = mem.rebalances;
      mm.failed = mem.failed;
      mm.last_attempts = mem.last_attempts;
      mm.consumed = mem.consumed;
      rebalancing |= mm.alive && mm.rebalancing;
      registered += mm.registered;
      z.members.push_back(std::move(mm));
    }

    gm.members.clear();
    gm.offsets.clear();
    gm.total_lag = 0;
    for (const auto& mm : z.members) {
      if (!mm.registered) continue;
      GroupMemberModel member;
      member.member_id = mm.member_id;
      member.client = mm.client;
      member.client_name = mm.member_id;
      member.assignment = mm.owned;
      gm.members.push_back(std::move(member));
    }
    for (const auto& tp : tps) {
      ZkGroupPartitionModel zp;
      zp.topic = tp.first;
      zp.partition = tp.second;
      auto s = g.partitions.find(tp);
      if (s != g.partitions.end()) {
        if (s->second.owned) zp.owner = s->second.owner;
        zp.committed = s->second.committed;
        zp.duplicates = s->second.duplicates;
      }
      if (!zp.owner.empty()) {
        auto mem = g.members.find(zp.owner);
        if (mem != g.members.end()) zp.owner_client = mem->second.client;
      }
      const auto* view = model_.partition(tp);
      const auto* log = view && view->acting.leader >= 0 ? model_.replica(view->acting.leader, tp) : nullptr;
      if (log) zp.log_end = log->hw;
      if (zp.committed >= 0 && zp.log_end >= 0) zp.lag = std::max<int64_t>(0, zp.log_end - zp.committed);
      for (const auto& [id, mem] : g.members) {
        auto bel = mem.believed.find(tp);
        if (bel != mem.believed.end()) zp.consumers.emplace_back(id, bel->second);
      }
      zp.conflict = zp.consumers.size() >= 2;
      z.conflicting_partitions += zp.conflict;

      GroupOffsetModel o;
      o.topic = zp.topic;
      o.partition = zp.partition;
      o.committed = zp.committed;
      o.log_end = zp.log_end;
      o.lag = zp.lag;
      o.member = zp.owner;
      o.client = zp.owner_client;
      if (o.lag > 0) gm.total_lag += o.lag;
      gm.offsets.push_back(std::move(o));
      z.partitions.push_back(std::move(zp));
    }
    // Words of this dashboard, not of a coordinator (there is none): a member is rebalancing, or all
    // settled with someone registered, or nobody is.
    gm.state = rebalancing ? "Rebalancing" : registered > 0 ? "Stable" : "Empty";
  }
}

}  // namespace gregor::gui
