#include "sim/check/zk_checkers.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/coord/zxid.h"

namespace gregor::sim {

namespace {

class ZkQuorumCommitChecker final : public Checker {
 public:
  const char* name() const override { return "zk-quorum-commit"; }
  const char* description() const override {
    return "every zk write committed on a quorum, and every later zk leader holds it";
  }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    if (violation_) return;
    if (const auto* c = e.as<ev::ZkCommit>()) {
      std::set<int32_t> distinct(c->acks.begin(), c->acks.end());
      if (c->servers <= 0 || static_cast<int64_t>(distinct.size()) * 2 <= c->servers)
        return report(e.time, "zk-" + std::to_string(e.node.value) + " committed zxid " + coord::zxid_hex(c->zxid) +
                                  " with " + std::to_string(distinct.size()) + " ack(s) of " + std::to_string(c->servers) +
                                  " servers: not a quorum");
      // A zxid carries its leader's epoch, and a leader's commits count 1, 2, 3, ... in it.
      if (coord::zxid_epoch(c->zxid) != c->epoch)
        return report(e.time, "zk-" + std::to_string(e.node.value) + " committed zxid " + coord::zxid_hex(c->zxid) +
                                  " in epoch " + std::to_string(c->epoch) + ": the zxid's epoch differs");
      int64_t& last = last_counter_[c->epoch];
      if (coord::zxid_counter(c->zxid) != last + 1)
        return report(e.time, "zxid " + coord::zxid_hex(c->zxid) + " committed after " +
                                  (last == 0 ? std::string("none") : coord::zxid_hex(coord::make_zxid(c->epoch, last))) +
                                  " in epoch " + std::to_string(c->epoch) + ": counters must go 1, 2, 3, ...");
      last = coord::zxid_counter(c->zxid);
      newest_committed_ = std::max(newest_committed_, c->zxid);
      return;
    }
    if (const auto* l = e.as<ev::ZkLeader>()) {
      // An election raises the epoch, above every epoch in the new leader's log.
      if (l->epoch <= leader_epoch_)
        return report(e.time, "zk-" + std::to_string(l->leader) + " leads epoch " + std::to_string(l->epoch) +
                                  " after epoch " + std::to_string(leader_epoch_) + " had a leader");
      if (coord::zxid_epoch(l->zxid) >= l->epoch)
        return report(e.time, "zk-" + std::to_string(l->leader) + " leads epoch " + std::to_string(l->epoch) +
                                  " with zxid " + coord::zxid_hex(l->zxid) + " of that epoch or a newer one in its log");
      if (l->zxid < newest_committed_)
        return report(e.time, "zk-" + std::to_string(l->leader) + " leads epoch " + std::to_string(l->epoch) +
                                  " from zxid " + coord::zxid_hex(l->zxid) + ", without the committed zxid " +
                                  coord::zxid_hex(newest_committed_) + ": a committed write is lost");
      leader_epoch_ = l->epoch;
    }
  }

 private:
  int64_t leader_epoch_ = 0;
  std::map<int64_t, int64_t> last_counter_;  // epoch -> counter of its newest commit
  int64_t newest_committed_ = 0;
};

class ZkZnodeVersionsChecker final : public Checker {
 public:
  const char* name() const override { return "zk-znode-versions"; }
  const char* description() const override {
    return "one zxid one change on every zk server; zxids and a znode's version only go up";
  }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    if (violation_) return;
    if (const auto* r = e.as<ev::NodeRestart>()) return forget(r->target);
    if (const auto* s = e.as<ev::NodeStart>()) return forget(s->target);
    if (const auto* y = e.as<ev::ZkSync>()) {
      // A SNAP replaces the follower's tree without events; its versions are known again as it
      // applies new txns.
      if (y->mode == "snap") versions_.erase(y->follower);
      return;
    }
    const int32_t node = e.node.value;
    if (const auto* c = e.as<ev::ZkCreate>()) {
      versions_[node][c->path] = 0;
      return same_change(e, c->zxid, "create " + c->path + " v0 " + c->data);
    }
    if (const auto* d = e.as<ev::ZkDelete>()) {
      versions_[node].erase(d->path);
      return same_change(e, d->zxid, "delete " + d->path);
    }
    if (const auto* s = e.as<ev::ZkSet>()) {
      auto& known = versions_[node];
      auto it = known.find(s->path);
      if (it != known.end() && s->version <= it->second)
        return report(e.time, "zk-" + std::to_string(node) + " set " + s->path + " to version " + std::to_string(s->version) +
                                  " after version " + std::to_string(it->second));
      known[s->path] = s->version;
      return same_change(e, s->zxid, "set " + s->path + " v" + std::to_string(s->version) + " " + s->data);
    }
  }

 private:
  void forget(int32_t node) {
    versions_.erase(node);
    position_.erase(node);
  }
  // The i-th change a server applies under zxid z must be the i-th change of z everywhere.
  void same_change(const TraceEvent& e, int64_t zxid, std::string change) {
    const int32_t node = e.node.value;
    auto& pos = position_[node];
    if (zxid < pos.first)
      return report(e.time, "zk-" + std::to_string(node) + " applied zxid " + coord::zxid_hex(zxid) + " after zxid " +
                                coord::zxid_hex(pos.first));
    if (pos.first != zxid) pos = {zxid, 0};
    auto& list = changes_[zxid];
    const size_t i = pos.second++;
    if (i == list.size()) {
      list.push_back(std::move(change));
      return;
    }
    if (list[i] != change)
      report(e.time, "zk-" + std::to_string(node) + " applied '" + change + "' under zxid " + coord::zxid_hex(zxid) +
                         " where another server applied '" + list[i] + "'");
  }
  std::map<int32_t, std::map<std::string, int32_t>> versions_;   // server -> path -> version
  std::map<int32_t, std::pair<int64_t, size_t>> position_;       // server -> (zxid, changes so far)
  std::map<int64_t, std::vector<std::string>> changes_;          // zxid -> its changes
};

class ZkEphemeralSessionChecker final : public Checker {
 public:
  const char* name() const override { return "zk-ephemeral-session"; }
  const char* description() const override { return "an ephemeral znode lives exactly as long as its session"; }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    if (violation_) return;
    // A restarted server rebuilds its tree (zk_node events follow); a SNAP replaces it silently.
    if (const auto* r = e.as<ev::NodeRestart>()) return servers_[r->target].owner.clear();
    if (const auto* y = e.as<ev::ZkSync>()) {
      if (y->mode == "snap") servers_[y->follower].owner.clear();
      return;
    }
    const int32_t node = e.node.value;
    if (const auto* n = e.as<ev::ZkNode>()) {
      if (n->ephemeral_owner != 0) servers_[node].owner[n->path] = n->ephemeral_owner;
      return;
    }
    if (const auto* c = e.as<ev::ZkCreate>()) {
      Server& s = servers_[node];
      if (!c->ephemeral) return;
      if (s.ended.count(c->session))
        return report(e.time, "zk-" + std::to_string(node) + " created ephemeral " + c->path + " for session " +
                                  std::to_string(c->session) + ", which ended before");
      s.owner[c->path] = c->session;
      return;
    }
    if (const auto* d = e.as<ev::ZkDelete>()) return servers_[node].owner.erase(d->path), void();
    int64_t ended = 0;
    if (const auto* x = e.as<ev::ZkSessionExpire>()) ended = x->session;
    if (const auto* x = e.as<ev::ZkSessionClose>()) ended = x->session;
    if (ended == 0) return;
    Server& s = servers_[node];
    s.ended.insert(ended);
    for (const auto& [path, owner] : s.owner)
      if (owner == ended)
        return report(e.time, "session " + std::to_string(ended) + " ended on zk-" + std::to_string(node) +
                                  " but its ephemeral " + path + " remains");
  }

 private:
  struct Server {
    std::map<std::string, int64_t> owner;  // ephemeral path -> session
    std::set<int64_t> ended;
  };
  std::map<int32_t, Server> servers_;
};

}  // namespace

void add_zk_checkers(CheckerSet& set) {
  set.add(std::make_unique<ZkQuorumCommitChecker>());
  set.add(std::make_unique<ZkZnodeVersionsChecker>());
  set.add(std::make_unique<ZkEphemeralSessionChecker>());
}

}  // namespace gregor::sim
