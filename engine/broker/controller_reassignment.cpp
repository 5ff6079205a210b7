// Partition reassignment (KIP-455) in the controller, as ZooKeeper-mode Kafka's
// KafkaController.onPartitionReassignment runs it. With ORS the original replicas, TRS the target
// and RS = TRS + ORS (distinct, the target's first):
//   start   the assignment znode /brokers/topics/T lists RS for the partition, with
//           adding_replicas = RS - ORS and removing_replicas = RS - TRS; the state gets a new leader
//           epoch and every replica of RS gets LeaderAndIsr: the added ones start as followers and
//           fetch from the leader until it takes them into the ISR (reassignment_started).
//   finish  once every replica of TRS is in the ISR (checked when an ISR change is notified, a
//           broker comes or goes, a controller takes over): the leader moves to a replica of TRS if
//           it is being removed or is not live (a new leader epoch either way), the removed replicas
//           leave the ISR, the znode holds TRS alone, the replicas of TRS get LeaderAndIsr and the
//           removed ones StopReplica with delete (reassignment_completed).
//   cancel  (null replicas) finishes towards ORS at once: the replicas that were being added are
//           deleted (reassignment_cancelled).
// The znode is the reassignment's only record, so a new controller resumes what it finds there.
#include <algorithm>

#include "engine/broker/async_steps.h"
#include "engine/broker/controller.h"

namespace gregor::broker {

using coord::ZkError;
using coord::ZkOp;
using protocol::ErrorCode;

namespace {
bool has(const std::vector<int32_t>& v, int32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The members of `a` that are not in `b`, in a's order.
std::vector<int32_t> minus(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  std::vector<int32_t> out;
  for (int32_t x : a)
    if (!has(b, x)) out.push_back(x);
  return out;
}

std::vector<int32_t> in_both(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  std::vector<int32_t> out;
  for (int32_t x : a)
    if (has(b, x)) out.push_back(x);
  return out;
}

std::string list_text(const std::vector<int32_t>& v) { return "[" + int_list(v) + "]"; }
}  // namespace

// ---------------------------------------------------------------------------------------------
// Requests.

void Controller::alter_partition_reassignments(ReassignmentTargets targets,
                                               std::function<void(ErrorCode, PartitionResults)> reply) {
  if (!active_) return reply(ErrorCode::NOT_CONTROLLER, {});
  queue_.enqueue("api partition reassignment", [this, targets, reply](Done done) {
    auto results = std::make_shared<PartitionResults>();
    std::vector<std::pair<TopicPartition, std::optional<std::vector<int32_t>>>> accepted;
    const std::set<int32_t> live = context_.live_ids();
    for (const auto& [tp, target] : targets) {
      auto it = context_.partitions.find(tp);
      if (it == context_.partitions.end() || it->second.zk_version < 0) {
        (*results)[tp] = {ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist."};
        continue;
      }
      const ControllerPartition& p = it->second;
      if (!target) {
        if (!p.reassigning()) {
          (*results)[tp] = {ErrorCode::NO_REASSIGNMENT_IN_PROGRESS, "No ongoing reassignment for partition " + tp.str() + "."};
          continue;
        }
      } else {
        // Kafka's KafkaController.validateReplicas.
        const std::vector<int32_t>& r = *target;
        const std::set<int32_t> distinct(r.begin(), r.end());
        std::string problem;
        if (r.empty()) {
          problem = "Empty replica list specified in partition reassignment.";
        } else if (distinct.size() != r.size()) {
          problem = "Duplicate replica ids in partition reassignment replica list: " + list_text(r);
        } else if (std::any_of(r.begin(), r.end(), [](int32_t b) { return b < 0; })) {
          problem = "Invalid broker id in replica list: " + list_text(r);
        } else {
          const std::vector<int32_t> origin = minus(p.replicas, p.adding);
          const std::vector<int32_t> added = minus(r, origin);
          if (std::any_of(added.begin(), added.end(), [&](int32_t b) { return !live.count(b); }))
            problem = "Replica assignment has brokers that are not alive. Replica list: " + list_text(added) +
                      ", live broker list: " + list_text(std::vector<int32_t>(live.begin(), live.end()));
        }
        if (!problem.empty()) {
          (*results)[tp] = {ErrorCode::INVALID_REPLICA_ASSIGNMENT, problem};
          continue;
        }
      }
      (*results)[tp] = {ErrorCode::NONE, ""};
      accepted.emplace_back(tp, target);
    }
    using Item = std::pair<TopicPartition, std::optional<std::vector<int32_t>>>;
    sequentially<Item>(
        std::move(accepted),
        [this](const Item& item, Done next) {
          if (!active_ || !context_.partitions.count(item.first)) return next();
          if (item.second) return start_reassignment(item.first, *item.second, next);
          const ControllerPartition& p = context_.partitions.at(item.first);
          finish_reassignment(item.first, minus(p.replicas, p.adding), true, next);
        },
        [results, reply, done] {
          reply(ErrorCode::NONE, *results);
          done();
        });
  });
}

void Controller::list_partition_reassignments(std::optional<std::vector<TopicPartition>> tps,
                                              std::function<void(ErrorCode, OngoingReassignments)> reply) {
  if (!active_) return reply(ErrorCode::NOT_CONTROLLER, {});
  queue_.enqueue("list partition reassignments", [this, tps, reply](Done done) {
    OngoingReassignments out;
    for (const auto& [tp, p] : context_.partitions) {
      if (!p.reassigning()) continue;
      if (tps && std::find(tps->begin(), tps->end(), tp) == tps->end()) continue;
      out[tp] = OngoingReassignment{p.replicas, p.adding, p.removing};
    }
    reply(ErrorCode::NONE, std::move(out));
    done();
  });
}

// ---------------------------------------------------------------------------------------------
// Steps.

std::vector<TopicPartition> Controller::reassigning_partitions() const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, p] : context_.partitions)
    if (p.reassigning() && p.zk_version >= 0) out.push_back(tp);
  return out;
}

void Controller::write_assignment_and_state(const TopicPartition& tp, const LeaderIsrState& state,
                                            std::function<void(WriteOutcome)> done) {
  auto topic = context_.topics.find(tp.topic);
  auto part = context_.partitions.find(tp);
  if (topic == context_.topics.end() || part == context_.partitions.end()) return done(WriteOutcome::kGone);
  const ControllerPartition& p = part->second;
  GREGOR_ASSERT_MSG(state.leader < 0 || has(state.isr, state.leader), "a leader outside its ISR: " + int_list(state.isr));
  for (int32_t r : state.isr) GREGOR_ASSERT_MSG(has(p.replicas, r), "ISR member " + std::to_string(r) + " is not a replica");
  GREGOR_ASSERT_MSG(state.leader_epoch > p.state.leader_epoch, "a leader epoch that does not rise");
  TopicAssignment a = topic->second;
  a.partitions[tp.partition] = p.replicas;
  if (p.adding.empty()) a.adding.erase(tp.partition); else a.adding[tp.partition] = p.adding;
  if (p.removing.empty()) a.removing.erase(tp.partition); else a.removing[tp.partition] = p.removing;
  std::vector<ZkOp> ops;
  ops.push_back(ZkOp::check(zk_paths::controller_epoch(), context_.epoch_zk_version));
  ops.push_back(ZkOp::set_data(zk_paths::topic(tp.topic), a.encode(), -1));
  ops.push_back(ZkOp::set_data(zk_paths::partition_state(tp.topic, tp.partition), state.encode(), p.zk_version));
  zk_.multi(ops, [this, tp, a, state, done](ZkError err, std::vector<coord::ZkOpResult> results) {
    if (err == ZkError::kOk) {
      context_.topics[tp.topic] = a;
      auto& cp = context_.partitions[tp];
      cp.state = state;
      cp.zk_version = results.at(2).stat.version;
      emit_leader_change(tp, state, "reassignment");
      return done(WriteOutcome::kWritten);
    }
    if (!results.empty() && results[0].error != ZkError::kOk) {
      resign("controller epoch changed (fenced)");
      return;
    }
    // A leader changed the ISR meanwhile (the state's version moved): read it and decide again.
    // Anything else (the topic is being deleted) ends the step.
    done(results.size() > 2 && results[2].error == ZkError::kBadVersion ? WriteOutcome::kStale : WriteOutcome::kGone);
  });
}

void Controller::start_reassignment(const TopicPartition& tp, std::vector<int32_t> target, Done done) {
  ControllerPartition& p = context_.partitions.at(tp);
  const std::vector<int32_t> origin = minus(p.replicas, p.adding);
  std::vector<int32_t> all = target;
  for (int32_t r : origin)
    if (!has(all, r)) all.push_back(r);
  std::vector<int32_t> adding = minus(all, origin);
  std::vector<int32_t> removing = minus(all, target);
  if (adding.empty() && removing.empty()) {
    // The same replicas (perhaps in another order): nothing to copy; the target is the assignment.
    if (!p.reassigning() && p.replicas == target) return done();
    return finish_reassignment(tp, target, false, done);
  }
  // Replicas an earlier reassignment was adding that this one does not want.
  const std::vector<int32_t> abandoned = minus(p.replicas, all);
  const ControllerPartition before = p;
  LeaderIsrState state = p.state;
  state.leader_epoch++;
  state.controller_epoch = context_.epoch;
  state.isr = in_both(state.isr, all);
  if (state.leader >= 0 && !has(all, state.leader)) {
    auto l = election::reassign_partition_leader(all, state.isr, context_.brokers());
    state.leader = l ? *l : -1;
  }
  p.replicas = all;
  p.adding = adding;
  p.removing = removing;
  write_assignment_and_state(tp, state, [this, tp, target, before, abandoned, done](WriteOutcome outcome) {
    if (!active_) return;
    if (outcome != WriteOutcome::kWritten) {
      // The state changed under us (the leader changed the ISR): read it and start again.
      context_.partitions[tp].replicas = before.replicas;
      context_.partitions[tp].adding = before.adding;
      context_.partitions[tp].removing = before.removing;
      if (outcome == WriteOutcome::kGone) return done();
      return read_partition_states({tp}, [this, tp, target, done] {
        if (!active_) return;
        start_reassignment(tp, target, done);
      });
    }
    const ControllerPartition& moving = context_.partitions.at(tp);
    rt_.emit(ev::ReassignmentStarted{.topic = tp.topic,
                                     .partition = tp.partition,
                                     .target = target,
                                     .replicas = moving.replicas,
                                     .adding = moving.adding,
                                     .removing = moving.removing});
    send_leader_and_isr({tp}, context_.live_ids());
    for (int32_t r : abandoned) send_stop_replica(r, {tp}, true);
    send_update_metadata(context_.live_ids());
    check_reassignments({tp}, done);
  });
}

void Controller::finish_reassignment(const TopicPartition& tp, std::vector<int32_t> final_replicas, bool cancelled, Done done) {
  ControllerPartition& p = context_.partitions.at(tp);
  const std::vector<int32_t> removed = minus(p.replicas, final_replicas);
  LeaderIsrState state = p.state;
  state.leader_epoch++;
  state.controller_epoch = context_.epoch;
  state.isr = in_both(state.isr, final_replicas);
  const election::Brokers brokers = context_.brokers();
  if (state.leader < 0 || !has(final_replicas, state.leader) || !brokers.eligible(state.leader)) {
    auto l = election::reassign_partition_leader(final_replicas, state.isr, brokers);
    if (l) {
      state.leader = *l;
    } else if (!cancelled) {
      return done();  // no replica of the target can lead yet: wait for the next ISR or broker change
    } else {
      // Back to the original replicas, none of which can lead now: offline until one comes back.
      state.leader = -1;
    }
  }
  const ControllerPartition before = p;
  p.replicas = final_replicas;
  p.adding.clear();
  p.removing.clear();
  write_assignment_and_state(tp, state, [this, tp, final_replicas, cancelled, before, removed, done](WriteOutcome outcome) {
    if (!active_) return;
    if (outcome != WriteOutcome::kWritten) {
      context_.partitions[tp].replicas = before.replicas;
      context_.partitions[tp].adding = before.adding;
      context_.partitions[tp].removing = before.removing;
      if (outcome == WriteOutcome::kGone) return done();
      return read_partition_states({tp}, [this, tp, final_replicas, cancelled, done] {
        if (!active_) return;
        if (cancelled) return finish_reassignment(tp, final_replicas, true, done);
        check_reassignments({tp}, done);
      });
    }
    if (cancelled)
      rt_.emit(ev::ReassignmentCancelled{.topic = tp.topic, .partition = tp.partition, .replicas = final_replicas, .removed = removed});
    else
      rt_.emit(ev::ReassignmentCompleted{.topic = tp.topic, .partition = tp.partition, .replicas = final_replicas, .removed = removed});
    send_leader_and_isr({tp}, context_.live_ids());
    for (int32_t r : removed) send_stop_replica(r, {tp}, true);
    send_update_metadata(context_.live_ids());
    done();
  });
}

void Controller::check_reassignments(std::vector<TopicPartition> tps, Done done) {
  sequentially<TopicPartition>(
      std::move(tps),
      [this](const TopicPartition& tp, Done next) {
        auto it = context_.partitions.find(tp);
        if (!active_ || it == context_.partitions.end() || !it->second.reassigning()) return next();
        const ControllerPartition& p = it->second;
        const std::vector<int32_t> target = minus(p.replicas, p.removing);
        for (int32_t r : target)
          if (!has(p.state.isr, r)) return next();  // still catching up
        finish_reassignment(tp, target, false, next);
      },
      std::move(done));
}

}  // namespace gregor::broker
