#include "sim/check/checkers.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include "sim/check/scratch_keys.h"

namespace gregor::sim {

void Checker::report(Time t, std::string message) {
  if (violation_) return;  // the first one is what matters
  Violation v{name(), t, std::move(message), {}};
  if (context_)
    context_->for_each([&](const TraceEvent& e) { v.context.push_back(e.to_string()); });
  violation_ = std::move(v);
}

// The event's partition (its topic, and partition 0 for an event of a whole topic), as a view of
// the event's own topic name.
std::optional<std::pair<std::string_view, int32_t>> event_partition(const TraceEvent& e) {
  return std::visit(
      [](const auto& b) -> std::optional<std::pair<std::string_view, int32_t>> {
        if constexpr (requires { b.topic; }) {
          int32_t partition = 0;
          if constexpr (requires { b.partition; }) partition = b.partition;
          return std::pair<std::string_view, int32_t>{b.topic, partition};
        } else {
          return std::nullopt;
        }
      },
      e.body);
}

namespace {

std::string tp_name(const PartitionKey& tp) { return partition_text(tp); }
PartitionKey key_of(const auto& b) { return PartitionKey{b.topic, b.partition}; }

class SingleLeaderChecker final : public Checker {
 public:
  const char* name() const override { return "single-leader"; }
  const char* description() const override { return "at most one leader per partition per leader epoch"; }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    const auto* b = e.as<ev::BecomeLeader>();
    if (!b) return;
    auto key = std::make_pair(key_of(*b), int64_t{b->leader_epoch});
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
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    if (const auto* c = e.as<ev::LeaderChange>()) return check(e.time, key_of(*c), c->leader_epoch);
    if (const auto* o = e.as<ev::PartitionOffline>()) return check(e.time, key_of(*o), o->leader_epoch);
  }

 private:
  void check(Time t, const PartitionKey& tp, int64_t epoch) {
    auto it = last_.find(tp);
    if (it != last_.end() && epoch <= it->second)
      report(t, "the controller set leader epoch " + std::to_string(epoch) + " of " + tp_name(tp) + " after epoch " +
                    std::to_string(it->second));
    last_[tp] = std::max(epoch, it == last_.end() ? epoch : it->second);
  }
  std::map<PartitionKey, int64_t> last_;
};

class HwMonotonicChecker final : public Checker {
 public:
  const char* name() const override { return "hw-monotonic"; }
  const char* description() const override { return "a leader's high watermark never goes back"; }
  void on_event(const TraceEvent& e, const ClusterModel&) override {
    if (const auto* l = e.as<ev::BecomeLeader>()) return forget(e.node.value, l->topic, l->partition);
    if (const auto* f = e.as<ev::BecomeFollower>()) return forget(e.node.value, f->topic, f->partition);
    if (const auto* o = e.as<ev::LogOpen>()) return forget(e.node.value, o->topic, o->partition);
    const auto* a = e.as<ev::HwAdvance>();
    if (!a || a->role != "leader") return;
    int64_t* last = last_.find(e.node.value, a->topic, a->partition);
    if (!last) last = &(last_.get(e.node.value, a->topic, a->partition) = kUnwatched);
    if (*last != kUnwatched && a->hw < *last)
      report(e.time, "leader " + std::to_string(e.node.value) + " moved the HW of " + tp_name(key_of(*a)) + " back from " +
                         std::to_string(*last) + " to " + std::to_string(a->hw));
    *last = a->hw;
  }

 private:
  static constexpr int64_t kUnwatched = std::numeric_limits<int64_t>::min();
  // A new role or a reopened log starts a new watch.
  void forget(int32_t broker, std::string_view topic, int32_t partition) {
    if (int64_t* last = last_.find(broker, topic, partition)) *last = kUnwatched;
  }
  IndexedMap<std::pair<int32_t, PartitionKey>, int64_t> last_;  // kUnwatched: no HW since the last forget
};

class HwWithinIsrChecker final : public Checker {
 public:
  const char* name() const override { return "hw-within-isr"; }
  const char* description() const override { return "the leader's HW <= the LEO of every ISR member"; }
  void on_event(const TraceEvent& e, const ClusterModel& model) override {
    // Only an event that changed a partition or replica can break the rule (the world's events,
    // which the model does not count as such, only take leadership away): a check would repeat the
    // last one's verdict.
    if (!model.last_changed_partitions()) return;
    // The event's partition, in a key reused from event to event (no copy of the topic name).
    const bool has_partition = std::visit(
        [this](const auto& b) {
          if constexpr (requires { b.topic; }) {
            tp_.first.assign(b.topic);
            if constexpr (requires { b.partition; })
              tp_.second = b.partition;
            else
              tp_.second = 0;
            return true;
          } else {
            return false;
          }
        },
        e.body);
    if (!has_partition) return;
    const PartitionKey& tp = tp_;
    const PartitionView* p = model.partition(tp);
    if (!p || p->acting.leader < 0) return;
    const ReplicaLog* lr = model.replica(p->acting.leader, tp);
    if (!lr || !lr->leader || lr->leader_epoch != p->acting.leader_epoch) return;
    for (int32_t m : p->acting.isr) {
      const ReplicaLog* r = model.replica(m, tp);
      int64_t leo = r ? r->leo : 0;
      if (leo < lr->hw) {
        report(e.time, "the HW of " + tp_name(tp) + " at leader " + std::to_string(p->acting.leader) + " is " +
                           std::to_string(lr->hw) + " but ISR member " + std::to_string(m) + " has LEO " +
                           std::to_string(leo));
        return;
      }
    }
  }

 private:
  PartitionKey tp_;
};

class LogMatchingChecker final : public Checker {
 public:
  const char* name() const override { return "log-matching"; }
  const char* description() const override { return "replica logs are identical below their high watermarks"; }
  void on_event(const TraceEvent& e, const ClusterModel& model) override {
    if (const auto* t = e.as<ev::LogTruncate>()) return cut(e.node.value, t->topic, t->partition, t->offset);
    if (const auto* o = e.as<ev::LogOpen>()) return cut(e.node.value, o->topic, o->partition, o->leo);
    const auto* a = e.as<ev::HwAdvance>();
    if (!a) return;
    const ReplicaLog* r = model.replica(e.node.value, scratch_partition_key(a->topic, a->partition));
    if (!r) return;
    int64_t& from = verified_.get(e.node.value, a->topic, a->partition);
    auto& committed = committed_.get(0, a->topic, a->partition);
    for (auto it = r->batches.lower_bound(from); it != r->batches.end() && it->first < r->hw; ++it) {
      auto c = committed.find(it->first);
      if (c == committed.end()) {
        committed.emplace_hint(committed.end(), it->first, Committed{it->second.last_offset, it->second.crc, e.node.value});
      } else if (c->second.crc != it->second.crc || c->second.last_offset != it->second.last_offset) {
        report(e.time, "replica " + std::to_string(e.node.value) + " of " + tp_name(key_of(*a)) + " has a different batch at offset " +
                           std::to_string(it->first) + " (crc " + std::to_string(it->second.crc) + ") than replica " +
                           std::to_string(c->second.broker) + " had committed (crc " + std::to_string(c->second.crc) + ")");
        return;
      }
      from = it->second.last_offset + 1;
    }
  }

 private:
  // A replica's log was cut below what was verified: the part above must be checked again.
  void cut(int32_t broker, std::string_view topic, int32_t partition, int64_t to) {
    if (int64_t* verified = verified_.find(broker, topic, partition); verified && *verified > to) *verified = to;
  }
  struct Committed {
    int64_t last_offset;
    int64_t crc;
    int32_t broker;
  };
  // Looked up on every hw_advance: hash-indexed (the topic names are compared at every level of a
  // tree, and __consumer_offsets' differ only at the end).
  IndexedMap<std::pair<int32_t, PartitionKey>, int64_t> verified_;
  IndexedMap<PartitionKey, std::map<int64_t, Committed>> committed_;  // found with node 0
};

// Acknowledged writes: the producers' produce_ack events {topic, partition, base_offset, crc, acks}.
class AckedWriteChecker final : public Checker {
 public:
  explicit AckedWriteChecker(int acks) : acks_(acks) {}
  const char* name() const override { return acks_ == -1 ? "acked-write-lost" : "acks1-write-lost"; }
  const char* description() const override {
    return acks_ == -1 ? "no acknowledged acks=all write is lost" : "no acknowledged acks=1 write is lost";
  }
  void on_event(const TraceEvent& e, const ClusterModel& model) override {
    if (const auto* a = e.as<ev::ProduceAck>()) {
      if (a->acks == acks_) acked_[key_of(*a)][a->base_offset] = a->crc;
      return;
    }
    if (const auto* l = e.as<ev::BecomeLeader>()) {
      // A broker acting on a LeaderAndIsr the controller has already superseded (it was paused
      // or cut off when the newer one was sent) leads an epoch nobody follows: it cannot advance
      // its high watermark, so its log is not where acknowledged writes must be. It learns of
      // the newer epoch and truncates (swarm safe seed 1303); a real new leader is checked here,
      // and the final one at the end.
      const PartitionKey tp = key_of(*l);
      const PartitionView* p = model.partition(tp);
      if (p && l->leader_epoch < p->elected_epoch) return;
      check_leader(e.node.value, tp, model, e.time);
    }
  }
  void finish(const ClusterModel& model, Time end) override {
    for (const auto& [tp, view] : model.partitions())
      if (view.acting.leader >= 0) check_leader(view.acting.leader, tp, model, end);
  }

 private:
  void check_leader(int32_t leader, const PartitionKey& tp, const ClusterModel& model, Time t) {
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
  EventRing* ctx = &global_context_;
  if (auto tp = event_partition(e)) ctx = &context_.get(0, tp->first, tp->second);
  ctx->push(e);
  // Faults belong to every partition's story.
  if (e.node.value == 0)
    for (auto& [tp, c] : context_.map())
      if (&c != ctx) c.push(e);
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
