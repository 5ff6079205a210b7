#include "sim/check/checkers.h"

#include <algorithm>

namespace gregor::sim {

void Checker::report(Time t, std::string message) {
  if (violation_) return;  // the first one is what matters
  Violation v{name(), t, std::move(message), {}};
  if (context_) v.context.assign(context_->begin(), context_->end());
  violation_ = std::move(v);
}

namespace {

std::string tp_name(const PartitionKey& tp) { return tp.first + "-" + std::to_string(tp.second); }

class SingleLeaderChecker final : public Checker {
 public:
  const char* name() const override { return "single-leader"; }
  const char* description() const override { return "at most one leader per partition per leader epoch"; }
  void on_event(const TraceEvent& e, const ReplicaModel&) override {
    if (e.kind() != "become_leader") return;
    auto key = std::make_pair(partition_key(e), e.get_int("leader_epoch"));
    auto [it, inserted] = leaders_.emplace(key, e.node.value);
    if (!inserted && it->second != e.node.value)
      report(e.time, "brokers " + std::to_string(it->second) + " and " + std::to_string(e.node.value) +
                         " both became leader of " + tp_name(key.first) + " in epoch " + std::to_string(key.second));
  }

 private:
  std::map<std::pair<PartitionKey, int64_t>, int32_t> leaders_;
};

class EpochMonotonicChecker final : public Checker {
 public:
  const char* name() const override { return "epoch-monotonic"; }
  const char* description() const override { return "leader epochs never go backwards"; }
  void on_event(const TraceEvent& e, const ReplicaModel&) override {
    if (e.kind() != "leader_change" && e.kind() != "partition_offline") return;
    auto tp = partition_key(e);
    int64_t epoch = e.get_int("leader_epoch");
    auto it = last_.find(tp);
    if (it != last_.end() && epoch <= it->second)
      report(e.time, "the controller set leader epoch " + std::to_string(epoch) + " of " + tp_name(tp) +
                         " after epoch " + std::to_string(it->second));
    last_[tp] = std::max(epoch, it == last_.end() ? epoch : it->second);
  }

 private:
  std::map<PartitionKey, int64_t> last_;
};

class HwMonotonicChecker final : public Checker {
 public:
  const char* name() const override { return "hw-monotonic"; }
  const char* description() const override { return "a leader's high watermark never goes back"; }
  void on_event(const TraceEvent& e, const ReplicaModel&) override {
    if (e.kind() == "become_leader" || e.kind() == "become_follower" || e.kind() == "log_open") {
      last_.erase({e.node.value, partition_key(e)});
      return;
    }
    if (e.kind() != "hw_advance" || e.get_string("role") != "leader") return;
    auto key = std::make_pair(e.node.value, partition_key(e));
    int64_t hw = e.get_int("hw");
    auto it = last_.find(key);
    if (it != last_.end() && hw < it->second)
      report(e.time, "leader " + std::to_string(e.node.value) + " moved the HW of " + tp_name(key.second) + " back from " +
                         std::to_string(it->second) + " to " + std::to_string(hw));
    last_[key] = hw;
  }

 private:
  std::map<std::pair<int32_t, PartitionKey>, int64_t> last_;
};

class HwWithinIsrChecker final : public Checker {
 public:
  const char* name() const override { return "hw-within-isr"; }
  const char* description() const override { return "the leader's HW <= the LEO of every ISR member"; }
  void on_event(const TraceEvent& e, const ReplicaModel& model) override {
    if (e.has("topic") == false) return;
    const auto tp = partition_key(e);
    const PartitionView* p = model.partition(tp);
    if (!p || p->leader < 0) return;
    const ReplicaLog* lr = model.replica(p->leader, tp);
    if (!lr || !lr->leader || lr->leader_epoch != p->leader_epoch) return;
    for (int32_t m : p->isr) {
      const ReplicaLog* r = model.replica(m, tp);
      int64_t leo = r ? r->leo : 0;
      if (leo < lr->hw) {
        report(e.time, "the HW of " + tp_name(tp) + " at leader " + std::to_string(p->leader) + " is " +
                           std::to_string(lr->hw) + " but ISR member " + std::to_string(m) + " has LEO " +
                           std::to_string(leo));
        return;
      }
    }
  }
};

class LogMatchingChecker final : public Checker {
 public:
  const char* name() const override { return "log-matching"; }
  const char* description() const override { return "replica logs are identical below their high watermarks"; }
  void on_event(const TraceEvent& e, const ReplicaModel& model) override {
    if (e.kind() == "log_truncate" || e.kind() == "log_open") {
      auto key = std::make_pair(e.node.value, partition_key(e));
      auto it = verified_.find(key);
      int64_t to = e.kind() == "log_open" ? e.get_int("leo") : e.get_int("offset");
      if (it != verified_.end() && it->second > to) it->second = to;
      return;
    }
    if (e.kind() != "hw_advance") return;
    const auto tp = partition_key(e);
    const ReplicaLog* r = model.replica(e.node.value, tp);
    if (!r) return;
    int64_t& from = verified_[{e.node.value, tp}];
    auto& committed = committed_[tp];
    for (auto it = r->batches.lower_bound(from); it != r->batches.end() && it->first < r->hw; ++it) {
      auto c = committed.find(it->first);
      if (c == committed.end()) {
        committed[it->first] = {it->second.last_offset, it->second.crc, e.node.value};
      } else if (c->second.crc != it->second.crc || c->second.last_offset != it->second.last_offset) {
        report(e.time, "replica " + std::to_string(e.node.value) + " of " + tp_name(tp) + " has a different batch at offset " +
                           std::to_string(it->first) + " (crc " + std::to_string(it->second.crc) + ") than replica " +
                           std::to_string(c->second.broker) + " had committed (crc " + std::to_string(c->second.crc) + ")");
        return;
      }
      from = it->second.last_offset + 1;
    }
  }

 private:
  struct Committed {
    int64_t last_offset;
    int64_t crc;
    int32_t broker;
  };
  std::map<std::pair<int32_t, PartitionKey>, int64_t> verified_;
  std::map<PartitionKey, std::map<int64_t, Committed>> committed_;
};

// Acknowledged writes: "produce_ack" events from producers {topic, partition, base_offset, crc, acks}.
class AckedWriteChecker final : public Checker {
 public:
  explicit AckedWriteChecker(int acks) : acks_(acks) {}
  const char* name() const override { return acks_ == -1 ? "acked-write-lost" : "acks1-write-lost"; }
  const char* description() const override {
    return acks_ == -1 ? "no acknowledged acks=all write is lost" : "no acknowledged acks=1 write is lost";
  }
  void on_event(const TraceEvent& e, const ReplicaModel& model) override {
    if (e.kind() == "produce_ack" && e.get_int("acks") == acks_) {
      acked_[partition_key(e)][e.get_int("base_offset")] = e.get_int("crc");
      return;
    }
    if (e.kind() == "become_leader") {
      // A broker acting on a LeaderAndIsr the controller has already superseded (it was paused
      // or cut off when the newer one was sent) leads an epoch nobody follows: it cannot advance
      // its high watermark, so its log is not where acknowledged writes must be. It learns of
      // the newer epoch and truncates (swarm safe seed 1303); a real new leader is checked here,
      // and the final one at the end.
      const PartitionView* p = model.partition(partition_key(e));
      if (p && e.get_int("leader_epoch") < p->elected_epoch) return;
      check_leader(e.node.value, partition_key(e), model, e.time);
    }
  }
  void finish(const ReplicaModel& model, Time end) override {
    for (const auto& [tp, view] : model.partitions())
      if (view.leader >= 0) check_leader(view.leader, tp, model, end);
  }

 private:
  void check_leader(int32_t leader, const PartitionKey& tp, const ReplicaModel& model, Time t) {
    auto it = acked_.find(tp);
    if (it == acked_.end()) return;
    for (const auto& [offset, crc] : it->second) {
      if (!model.holds(leader, tp, offset, crc)) {
        const ReplicaLog* r = model.replica(leader, tp);
        report(t, std::string(acks_ == -1 ? "acks=all" : "acks=1") + " write acknowledged at offset " +
                      std::to_string(offset) + " of " + tp_name(tp) + " is not in the log of leader " +
                      std::to_string(leader) + " (its LEO is " + std::to_string(r ? r->leo : 0) + ")");
        return;
      }
    }
  }
  int acks_;
  std::map<PartitionKey, std::map<int64_t, int64_t>> acked_;  // base offset -> crc
};

}  // namespace

CheckerSet::CheckerSet() {
  add(std::make_unique<SingleLeaderChecker>());
  add(std::make_unique<EpochMonotonicChecker>());
  add(std::make_unique<HwMonotonicChecker>());
  add(std::make_unique<HwWithinIsrChecker>());
  add(std::make_unique<LogMatchingChecker>());
  add(std::make_unique<AckedWriteChecker>(-1));
  add(std::make_unique<AckedWriteChecker>(1));
}

void CheckerSet::add(std::unique_ptr<Checker> c) { checkers_.push_back(std::move(c)); }

Checker* CheckerSet::find(const std::string& name) {
  for (auto& c : checkers_)
    if (name == c->name()) return c.get();
  return nullptr;
}

std::vector<std::string> CheckerSet::names() const {
  std::vector<std::string> out;
  for (const auto& c : checkers_) out.push_back(c->name());
  return out;
}

void CheckerSet::on_event(const TraceEvent& e) {
  model_.apply(e);
  std::deque<std::string>* ctx = &global_context_;
  if (e.find("topic")) ctx = &context_[partition_key(e)];
  ctx->push_back(e.to_string());
  if (ctx->size() > kContextEvents) ctx->pop_front();
  // Faults belong to every partition's story.
  if (e.node.value == 0)
    for (auto& [tp, c] : context_) {
      if (&c == ctx) continue;
      c.push_back(e.to_string());
      if (c.size() > kContextEvents) c.pop_front();
    }
  for (auto& c : checkers_) {
    if (c->violation()) continue;
    c->context_ = ctx;
    c->on_event(e, model_);
  }
}

void CheckerSet::finish(Time end) {
  for (auto& c : checkers_) {
    if (c->violation()) continue;
    c->context_ = &global_context_;
    c->finish(model_, end);
  }
}

}  // namespace gregor::sim
