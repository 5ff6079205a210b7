#include "engine/broker/partition.h"

#include <algorithm>

#include "engine/record/control_record.h"
#include "engine/record/record_batch.h"

namespace gregor::broker {

namespace {
// "Never caught up": far enough in the past that no lag window reaches it.
constexpr Time kNever{-(int64_t{1} << 60)};

bool contains(const Replicas& v, NodeId x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The log's refusals are Kafka's codes by number.
static_assert(static_cast<int16_t>(log::BatchError::kCorruptMessage) == static_cast<int16_t>(ErrorCode::CORRUPT_MESSAGE));
static_assert(static_cast<int16_t>(log::BatchError::kMessageTooLarge) == static_cast<int16_t>(ErrorCode::MESSAGE_TOO_LARGE));
static_assert(static_cast<int16_t>(log::BatchError::kInvalidRecord) == static_cast<int16_t>(ErrorCode::INVALID_RECORD));
static_assert(static_cast<int16_t>(log::BatchError::kUnsupportedCompressionType) ==
              static_cast<int16_t>(ErrorCode::UNSUPPORTED_COMPRESSION_TYPE));
ErrorCode error_for(log::BatchError e) { return static_cast<ErrorCode>(static_cast<int16_t>(e)); }

ErrorCode error_for(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk: return ErrorCode::NONE;
    case StatusCode::kOutOfRange: return ErrorCode::OFFSET_OUT_OF_RANGE;
    case StatusCode::kCorruption: return ErrorCode::CORRUPT_MESSAGE;
    case StatusCode::kInvalidArgument: return ErrorCode::CORRUPT_MESSAGE;
    default: return ErrorCode::KAFKA_STORAGE_ERROR;
  }
}

// Whole batches from `from` up to `upto` (at most max_bytes, at least one batch) into out, or the
// error that stopped the read.
void read_records(log::Log& log, Offset from, int32_t max_bytes, Offset upto, ReadLog how, LeaderRead& out) {
  auto read = log.read(from, static_cast<size_t>(std::max(max_bytes, 1)), upto, how == ReadLog::kFiles);
  if (!read) {
    out.error = error_for(read.status());
    return;
  }
  out.records = std::move(read->records);
  out.files = std::move(read->files);
  out.files_bytes = read->files_bytes;
}
}  // namespace

Replicas to_replicas(const std::vector<int32_t>& ids) {
  Replicas out;
  for (int32_t id : ids) out.push_back(NodeId{id});
  return out;
}

std::vector<int32_t> to_ids(const Replicas& replicas) {
  std::vector<int32_t> out;
  for (NodeId r : replicas) out.push_back(r.value);
  return out;
}

std::string int_list(const Replicas& replicas) { return int_list(to_ids(replicas)); }

Partition::Partition(Runtime& rt, PartitionOwner& owner, TopicPartition tp, NodeId local_broker,
                     std::unique_ptr<log::Log> log, TopicConfig config, const BrokerConfig& broker_config)
    : rt_(rt),
      owner_(owner),
      tp_(std::move(tp)),
      local_broker_(local_broker),
      log_(std::move(log)),
      config_(config),
      broker_config_(broker_config) {
  GREGOR_ASSERT(log_ != nullptr);
  rt_.emit(ev::LogOpen{.topic = tp_.topic,
                       .partition = tp_.partition,
                       .leo = log_->log_end_offset().value,
                       .log_start = log_->log_start_offset().value});
  // A producer snapshot at every roll (Kafka's UnifiedLog.roll -> producerStateManager.takeSnapshot),
  // so that recovery scans only the log after it.
  producer_state_.set_problem_listener([this](const std::string& what) {
    rt_.log("producer state of " + tp_.str() + ": " + what);
    rt_.emit(ev::LogError{.topic = tp_.topic, .partition = tp_.partition, .error = what});
  });
  log_->set_roll_hook([this](Offset) {
    if (Status s = producer_state_.take_snapshot(*log_); !s.is_ok())
      rt_.log("producer snapshot of " + tp_.str() + " failed: " + s.to_string());
  });
}

Partition::~Partition() { log_->set_roll_hook(nullptr); }

void Partition::take_producer_snapshot() {
  if (Status s = producer_state_.take_snapshot(*log_); !s.is_ok())
    rt_.log("producer snapshot of " + tp_.str() + " failed: " + s.to_string());
}

void Partition::restore_high_watermark(Offset hw) {
  Offset bounded = std::min(std::max(hw, log_->log_start_offset()), log_->log_end_offset());
  hw_ = bounded;
  check_invariants();
}

void Partition::check_invariants() const {
  GREGOR_ASSERT_MSG(hw_ <= log_->log_end_offset(), tp_.str() + ": high watermark " + std::to_string(hw_.value) +
                                                       " beyond the log end " + std::to_string(log_->log_end_offset().value));
  if (role_ != Role::kLeader) return;
  GREGOR_ASSERT_MSG(contains(isr_, local_broker_), tp_.str() + ": a leader outside its ISR " + int_list(isr_));
  for (NodeId r : isr_) GREGOR_ASSERT_MSG(contains(replicas_, r), tp_.str() + ": ISR member " + std::to_string(r.value) + " is not a replica");
}

void Partition::take_state(Role role, const PartitionAssignmentState& st) {
  role_ = role;
  leader_ = st.leader;
  leader_epoch_ = st.leader_epoch;
  controller_epoch_ = st.controller_epoch;
  zk_version_ = st.zk_version;
  isr_ = st.isr;
  replicas_ = st.replicas;
  pending_isr_.reset();
}

bool Partition::make_leader(const PartitionAssignmentState& st, Time now) {
  if (st.leader_epoch < leader_epoch_) return false;
  if (st.leader_epoch == leader_epoch_ && role_ == Role::kLeader) return false;
  GREGOR_ASSERT(st.leader == local_broker_);
  take_state(Role::kLeader, st);
  // KAFKA-7415: a new leader records the start of its epoch at its own LEO, and never truncates.
  leader_epoch_start_offset_ = log_->log_end_offset();
  Status assigned = log_->epoch_cache().assign(leader_epoch_, leader_epoch_start_offset_);
  if (!assigned.is_ok()) rt_.log(tp_.str() + ": leader-epoch-checkpoint write failed: " + assigned.to_string());
  followers_.clear();
  for (NodeId r : replicas_) {
    if (r == local_broker_) continue;
    FollowerState f;
    f.broker = r;
    // An in-sync follower gets a fresh lag window, so a new leader does not evict it at once.
    f.last_caught_up = contains(isr_, r) ? now : kNever;
    followers_.push_back(f);
  }
  std::sort(followers_.begin(), followers_.end(), [](const FollowerState& a, const FollowerState& b) { return a.broker < b.broker; });
  check_invariants();
  rt_.emit(ev::BecomeLeader{.topic = tp_.topic,
                            .partition = tp_.partition,
                            .leader_epoch = leader_epoch_.value,
                            .isr = to_ids(isr_),
                            .leo = log_->log_end_offset().value,
                            .hw = hw_.value});
  maybe_increment_hw(now);
  return true;
}

bool Partition::make_follower(const PartitionAssignmentState& st, Time now) {
  (void)now;
  if (st.leader_epoch < leader_epoch_) return false;
  if (st.leader_epoch == leader_epoch_ && role_ == Role::kFollower && leader_ == st.leader) return false;
  take_state(Role::kFollower, st);
  followers_.clear();
  check_invariants();
  rt_.emit(ev::BecomeFollower{.topic = tp_.topic,
                              .partition = tp_.partition,
                              .leader = leader_.value,
                              .leader_epoch = leader_epoch_.value,
                              .leo = log_->log_end_offset().value,
                              .hw = hw_.value});
  return true;
}

void Partition::make_offline() {
  role_ = Role::kNone;
  leader_ = NodeId{-1};
  followers_.clear();
  pending_isr_.reset();
}

LeaderAppend Partition::append_as_leader(SharedBytes batch, int16_t required_acks, int16_t produce_version, Time now) {
  LeaderAppend out;
  if (role_ != Role::kLeader) {
    out.error = ErrorCode::NOT_LEADER_OR_FOLLOWER;
    return out;
  }
  if (required_acks == -1 && static_cast<int32_t>(isr_.size()) < config_.min_insync_replicas) {
    out.error = ErrorCode::NOT_ENOUGH_REPLICAS;
    out.message = "ISR " + int_list(isr_) + " is smaller than min.insync.replicas=" +
                  std::to_string(config_.min_insync_replicas);
    return out;
  }
  // The batch as the producer sent it (a v2 batch; magic 0/1 message sets have none of this header).
  const auto produced = record::parse_batch_header(as_view(batch), false);
  const bool produced_v2 = produced.is_ok() && produced->magic == record::kMagicV2;
  log::BatchValidation valid = log_->validate_leader_batch(std::move(batch), produce_version, rt_.wall_time_ms());
  if (valid.error != log::BatchError::kNone) {
    out.error = error_for(valid.error);
    out.message = valid.detail;
    return out;
  }
  const record::BatchHeader header = valid.batch.header;
  // Idempotent producers (KIP-98): a retried batch is acknowledged with its original offsets, a
  // gap in sequence numbers is refused (engine/broker/producer_state.h).
  const ProducerCheck producer = producer_state_.check_leader_append(*log_, header);
  if (producer.duplicate) {
    out.base_offset = Offset{producer.duplicate->first_offset};
    out.last_offset = Offset{producer.duplicate->last_offset};
    out.log_start = log_->log_start_offset();
    rt_.emit(ev::ProduceDuplicate{.topic = tp_.topic,
                                  .partition = tp_.partition,
                                  .producer_id = header.producer_id,
                                  .base_sequence = header.base_sequence,
                                  .base_offset = out.base_offset.value});
    return out;
  }
  if (producer.error != ErrorCode::NONE) {
    out.error = producer.error;
    return out;
  }
  auto info = log_->append_validated(std::move(valid.batch), leader_epoch_, now);
  if (!info) {
    out.error = ErrorCode::KAFKA_STORAGE_ERROR;
    out.message = info.status().message();
    return out;
  }
  producer_state_.on_leader_append(*log_, header, info->first_offset.value);
  if (header.is_log_append_time()) out.log_append_time_ms = header.max_timestamp;
  out.base_offset = info->first_offset;
  out.last_offset = info->last_offset;
  out.log_start = log_->log_start_offset();
  rt_.emit(ev::LogAppend{.topic = tp_.topic,
                         .partition = tp_.partition,
                         .base_offset = info->first_offset.value,
                         .last_offset = info->last_offset.value,
                         .epoch = leader_epoch_.value,
                         .crc = static_cast<int64_t>(header.crc),
                         .role = "leader"});
  if (!produced_v2 || produced->crc != header.crc) {
    const char* reason = !produced_v2                                         ? "converted"
                         : produced->compression() != header.compression()    ? "recompressed"
                         : header.is_log_append_time() && !produced->is_log_append_time() ? "log_append_time"
                                                                              : "max_timestamp";
    rt_.emit(ev::BatchRewritten{.topic = tp_.topic,
                                .partition = tp_.partition,
                                .base_offset = info->first_offset.value,
                                .crc = static_cast<int64_t>(header.crc),
                                .producer_crc = produced_v2 ? static_cast<int64_t>(produced->crc) : -1,
                                .reason = reason});
  }
  maybe_increment_hw(now);
  owner_.on_partition_progress(*this);
  return out;
}

ErrorCode Partition::check_enough_replicas_reach(Offset required_offset) const {
  if (role_ != Role::kLeader) return ErrorCode::NOT_LEADER_OR_FOLLOWER;
  if (hw_ < required_offset) return ErrorCode::REQUEST_TIMED_OUT;  // still waiting
  if (static_cast<int32_t>(isr_.size()) < config_.min_insync_replicas)
    return ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND;
  return ErrorCode::NONE;
}

ErrorCode Partition::check_fetch_epoch(LeaderEpoch current_leader_epoch) const {
  if (current_leader_epoch.value >= 0 && current_leader_epoch < leader_epoch_) return ErrorCode::FENCED_LEADER_EPOCH;
  if (current_leader_epoch > leader_epoch_) return ErrorCode::UNKNOWN_LEADER_EPOCH;
  return ErrorCode::NONE;
}

LeaderRead Partition::fetch_for_follower(NodeId replica, Offset fetch_offset, LeaderEpoch current_leader_epoch,
                                         LeaderEpoch last_fetched_epoch, int32_t max_bytes, Time now, ReadLog read_log,
                                         bool update_fetch_state) {
  LeaderRead out;
  out.error = role_ == Role::kLeader ? check_fetch_epoch(current_leader_epoch) : ErrorCode::NOT_LEADER_OR_FOLLOWER;
  if (out.error != ErrorCode::NONE) return out;
  FollowerState* const follower_state = follower(replica);
  if (!follower_state) {
    out.error = ErrorCode::NOT_LEADER_OR_FOLLOWER;
    return out;
  }
  const Offset leo = log_->log_end_offset();
  out.log_start = log_->log_start_offset();
  out.leo = leo;
  out.high_watermark = hw_;
  if (last_fetched_epoch.value >= 0) {
    const EpochEndOffset end = end_offset_for_epoch(last_fetched_epoch);
    if (end.epoch < last_fetched_epoch || end.end_offset < fetch_offset) {
      out.diverging_epoch = end;
      return out;
    }
  }
  if (fetch_offset > leo || fetch_offset < out.log_start) {
    out.error = ErrorCode::OFFSET_OUT_OF_RANGE;
    return out;
  }
  if (update_fetch_state) {
    FollowerState& f = *follower_state;
    f.leo = fetch_offset;
    if (fetch_offset >= leo)
      f.last_caught_up = now;
    else if (fetch_offset >= f.leader_leo_at_last_fetch)
      f.last_caught_up = std::max(f.last_caught_up, f.last_fetch);
    f.last_fetch = now;
    f.leader_leo_at_last_fetch = leo;
    maybe_expand_isr(replica, now);
    maybe_increment_hw(now);
    out.high_watermark = hw_;
  }
  if (read_log == ReadLog::kNo) {
    // The batch holding fetch_offset starts at or below it, so below the LEO: a read returns it.
    out.records_available = fetch_offset < leo;
    return out;
  }
  read_records(*log_, fetch_offset, max_bytes, leo, read_log, out);
  return out;
}

bool Partition::on_follower_log_start(NodeId replica, Offset log_start) {
  FollowerState* f = follower(replica);
  if (!f || f->log_start == log_start) return false;
  f->log_start = log_start;
  return true;
}

Offset Partition::low_watermark(const std::function<bool(NodeId)>& is_live) const {
  Offset low = log_->log_start_offset();
  for (const FollowerState& f : followers_)
    if (is_live(f.broker) && f.log_start < low) low = f.log_start;
  return low;
}

LeaderRead Partition::fetch_for_consumer(Offset fetch_offset, LeaderEpoch current_leader_epoch, int32_t max_bytes,
                                         ReadLog read_log, IsolationLevel isolation) {
  LeaderRead out;
  out.error = role_ == Role::kLeader ? check_fetch_epoch(current_leader_epoch) : ErrorCode::NOT_LEADER_OR_FOLLOWER;
  if (out.error != ErrorCode::NONE) return out;
  const Offset leo = log_->log_end_offset();
  out.log_start = log_->log_start_offset();
  out.leo = leo;
  out.high_watermark = hw_;
  // The LSO needs the producer state, rebuilt from the log: a read_uncommitted fetch does not
  // depend on it, so a log that cannot be scanned (a corrupt batch somewhere) fails only
  // read_committed fetches; the others are told the HW.
  auto lso = last_stable_offset();
  if (!lso && isolation == IsolationLevel::kReadCommitted) {
    out.error = error_for(lso.status());
    return out;
  }
  out.last_stable_offset = lso ? *lso : hw_;
  if (fetch_offset > leo || fetch_offset < out.log_start) {
    out.error = ErrorCode::OFFSET_OUT_OF_RANGE;
    return out;
  }
  // read_uncommitted reads what is committed (below the HW); read_committed only what no open
  // transaction may still abort (below the LSO).
  const Offset upto = isolation == IsolationLevel::kReadCommitted ? out.last_stable_offset : hw_;
  if (fetch_offset >= upto) return out;  // nothing to serve yet
  if (read_log == ReadLog::kNo) {
    out.records_available = true;  // the batch holding fetch_offset starts below the bound
    return out;
  }
  read_records(*log_, fetch_offset, max_bytes, upto, read_log, out);
  if (isolation == IsolationLevel::kReadCommitted && out.error == ErrorCode::NONE)
    out.aborted_transactions = log_->collect_aborted_transactions(fetch_offset, upto);
  return out;
}

Result<Offset> Partition::last_stable_offset() {
  GREGOR_RETURN_IF_ERROR(producer_state_.catch_up_for_read(*log_));
  const std::optional<int64_t> first_unstable = producer_state_.first_unstable_offset();
  if (first_unstable && *first_unstable < hw_.value) return Offset{*first_unstable};
  return hw_;
}

ErrorCode Partition::refresh_producer_state() {
  return producer_state_.catch_up_for_read(*log_).is_ok() ? ErrorCode::NONE : ErrorCode::KAFKA_STORAGE_ERROR;
}

MarkerAppend Partition::append_txn_marker(int64_t producer_id, int16_t producer_epoch, bool commit,
                                          int32_t coordinator_epoch, Time now) {
  MarkerAppend out;
  if (role_ != Role::kLeader) {
    out.error = ErrorCode::NOT_LEADER_OR_FOLLOWER;
    return out;
  }
  // Markers are appended with acks=all (Kafka's TransactionMarkerRequestCompletionHandler retries this).
  if (static_cast<int32_t>(isr_.size()) < config_.min_insync_replicas) {
    out.error = ErrorCode::NOT_ENOUGH_REPLICAS;
    return out;
  }
  out.error = producer_state_.check_marker(*log_, producer_id, producer_epoch, coordinator_epoch);
  if (out.error != ErrorCode::NONE) return out;
  const record::EndTxnMarker marker{commit ? record::ControlType::kCommit : record::ControlType::kAbort,
                                    coordinator_epoch};
  Bytes bytes = record::build_end_txn_marker_batch(producer_id, producer_epoch, marker, rt_.wall_time_ms());
  auto header = record::parse_batch_header(as_view(bytes), true);
  GREGOR_ASSERT(header.is_ok());
  const record::BatchHeader h = *header;
  auto info = log_->append_validated(log::ValidatedBatch{SharedBytes(std::move(bytes)), h}, leader_epoch_, now);
  if (!info) {
    out.error = ErrorCode::KAFKA_STORAGE_ERROR;
    return out;
  }
  producer_state_.on_leader_append(*log_, h, info->first_offset.value, marker);
  out.offset = info->first_offset;
  rt_.emit(ev::LogAppend{.topic = tp_.topic,
                         .partition = tp_.partition,
                         .base_offset = info->first_offset.value,
                         .last_offset = info->last_offset.value,
                         .epoch = leader_epoch_.value,
                         .crc = static_cast<int64_t>(h.crc),
                         .role = "leader"});
  auto lso = last_stable_offset();
  rt_.emit(ev::TxnMarkerAppend{.topic = tp_.topic,
                               .partition = tp_.partition,
                               .producer_id = producer_id,
                               .producer_epoch = producer_epoch,
                               .result = commit ? "commit" : "abort",
                               .offset = info->first_offset.value,
                               .lso = lso ? lso->value : -1});
  maybe_increment_hw(now);
  owner_.on_partition_progress(*this);
  return out;
}

EpochEndOffset Partition::end_offset_for_epoch(LeaderEpoch epoch) const {
  auto [e, end] = log_->epoch_cache().end_offset_for(epoch, log_->log_end_offset());
  return EpochEndOffset{e, end};
}

std::optional<LeaderEpoch> Partition::latest_epoch() const { return log_->epoch_cache().latest_epoch(); }

FollowerState* Partition::follower(NodeId id) {
  for (FollowerState& f : followers_)  // a handful: the replication factor less one
    if (f.broker == id) return &f;
  return nullptr;
}

bool Partition::is_follower_caught_up(const FollowerState& f, Time now) const {
  return f.leo == log_->log_end_offset() ||
         now - f.last_caught_up <= Duration::millis(broker_config_.replica_lag_time_max_ms);
}

void Partition::maybe_increment_hw(Time now) {
  if (role_ != Role::kLeader) return;
  Offset candidate = log_->log_end_offset();
  if (candidate <= hw_) return;  // the candidate only goes down from the LEO: nothing to advance
  // In the maximal ISR (the ISR and a pending expansion), without building it: this runs on every
  // follower fetch.
  auto in_maximal = [this](NodeId id) { return contains(isr_, id) || (pending_isr_ && contains(*pending_isr_, id)); };
  for (const FollowerState& f : followers_) {
    if (f.leo < candidate && (in_maximal(f.broker) || (f.leo.value >= 0 && is_follower_caught_up(f, now))))
      candidate = f.leo;
  }
  if (candidate > hw_) set_hw(candidate, "leader");
}

void Partition::set_hw(Offset hw, const char* why) {
  GREGOR_ASSERT(hw > hw_);  // only truncation moves it back
  hw_ = hw;
  check_invariants();
  rt_.emit(ev::HwAdvance{.topic = tp_.topic, .partition = tp_.partition, .hw = hw_.value, .leader_epoch = leader_epoch_.value, .role = why});
  owner_.on_partition_progress(*this);
}

void Partition::maybe_expand_isr(NodeId replica, Time now) {
  (void)now;
  if (pending_isr_ || contains(isr_, replica) || !contains(replicas_, replica)) return;
  const FollowerState* f = follower(replica);
  GREGOR_ASSERT(f);
  if (f->leo >= hw_ && f->leo >= leader_epoch_start_offset_) {
    Replicas next = isr_;
    next.push_back(replica);
    propose_isr(std::move(next), "expand");
  }
}

void Partition::maybe_shrink_isr(Time now) {
  if (role_ != Role::kLeader || pending_isr_) return;
  const Offset leo = log_->log_end_offset();
  Replicas next;
  bool changed = false;
  for (NodeId r : isr_) {
    if (r == local_broker_) {
      next.push_back(r);
      continue;
    }
    const FollowerState* f = follower(r);
    bool out_of_sync = !f || (f->leo != leo && now - f->last_caught_up > Duration::millis(broker_config_.replica_lag_time_max_ms));
    if (out_of_sync)
      changed = true;
    else
      next.push_back(r);
  }
  if (changed) propose_isr(std::move(next), "shrink");
}

void Partition::propose_isr(Replicas new_isr, const char* direction) {
  GREGOR_ASSERT(contains(new_isr, local_broker_));
  LeaderIsrState s;
  s.leader = local_broker_.value;
  s.leader_epoch = leader_epoch_.value;
  s.isr = to_ids(new_isr);
  s.controller_epoch = controller_epoch_;
  pending_isr_ = std::move(new_isr);
  rt_.emit(ev::IsrChangeProposed{.topic = tp_.topic,
                                 .partition = tp_.partition,
                                 .isr = to_ids(isr_),
                                 .proposed_isr = s.isr,
                                 .direction = direction,
                                 .zk_version = zk_version_});
  owner_.write_isr(*this, s, zk_version_);
}

void Partition::on_isr_write_result(bool ok, const LeaderIsrState& written, int32_t new_zk_version) {
  if (!pending_isr_ || to_ids(*pending_isr_) != written.isr) return;  // superseded by a role change
  pending_isr_.reset();
  if (!ok) {
    rt_.emit(ev::IsrChangeFailed{.topic = tp_.topic, .partition = tp_.partition, .proposed_isr = written.isr, .zk_version = zk_version_});
    return;
  }
  if (role_ != Role::kLeader || written.leader_epoch != leader_epoch_.value) return;
  const bool shrink = written.isr.size() < isr_.size();
  isr_ = to_replicas(written.isr);
  zk_version_ = new_zk_version;
  check_invariants();
  rt_.emit(ev::IsrChange{.topic = tp_.topic,
                         .partition = tp_.partition,
                         .isr = to_ids(isr_),
                         .leader_epoch = leader_epoch_.value,
                         .zk_version = zk_version_,
                         .direction = shrink ? "shrink" : "expand"});
  maybe_increment_hw(rt_.now());
}

void Partition::emit_appends(ByteView batches, const char* role) {
  size_t pos = 0;
  while (pos < batches.size()) {
    auto h = record::parse_batch_header(batches.subspan(pos), false);
    if (!h) break;
    rt_.emit(ev::LogAppend{.topic = tp_.topic,
                           .partition = tp_.partition,
                           .base_offset = h->base_offset,
                           .last_offset = h->last_offset(),
                           .epoch = h->partition_leader_epoch,
                           .crc = static_cast<int64_t>(h->crc),
                           .role = role});
    pos += static_cast<size_t>(h->batch_length) + 12;
  }
}

Status Partition::append_as_follower(ByteView records, Offset leader_hw, Time now) {
  if (!records.empty()) {
    auto info = log_->append_as_follower(records, now);
    if (!info) return info.status();
    emit_appends(records, "follower");
    owner_.on_partition_progress(*this);
  }
  Offset candidate = std::min(leader_hw, log_->log_end_offset());
  if (candidate > hw_) set_hw(candidate, "follower");
  return Status::ok();
}

Status Partition::truncate_to(Offset offset, const char* reason) {
  const Offset old = log_->log_end_offset();
  if (offset >= old) return Status::ok();
  GREGOR_RETURN_IF_ERROR(log_->truncate_to(offset));
  producer_state_.on_truncate();
  // The batch holding `offset` goes whole, so the log may now end below it.
  hw_ = std::min({hw_, offset, log_->log_end_offset()});
  check_invariants();
  rt_.emit(ev::LogTruncate{.topic = tp_.topic, .partition = tp_.partition, .offset = offset.value, .old_leo = old.value, .reason = reason, .full = std::nullopt});
  return Status::ok();
}

Status Partition::truncate_fully_and_start_at(Offset offset, const char* reason) {
  const Offset old = log_->log_end_offset();
  GREGOR_RETURN_IF_ERROR(log_->truncate_fully_and_start_at(offset));
  producer_state_.on_truncate();
  hw_ = offset;
  check_invariants();
  rt_.emit(ev::LogTruncate{
      .topic = tp_.topic, .partition = tp_.partition, .offset = offset.value, .old_leo = old.value, .reason = reason, .full = true});
  return Status::ok();
}

Status Partition::update_config(const TopicConfig& config) {
  GREGOR_RETURN_IF_ERROR(log_->update_config(config.log_config()));
  config_ = config;
  return Status::ok();
}

}  // namespace gregor::broker
