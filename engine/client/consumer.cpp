#include "engine/client/consumer.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/protocol/fetch.h"
#include "engine/protocol/list_offsets.h"
#include "engine/record/batch_split.h"
#include "engine/record/control_record.h"
#include "engine/record/record.h"

namespace gregor::client {

using protocol::ErrorCode;

namespace {
constexpr int16_t kFetchVersion = 11;
constexpr int16_t kListOffsetsVersion = 2;

bool refresh_metadata_error(ErrorCode e) {
  switch (e) {
    case ErrorCode::NOT_LEADER_OR_FOLLOWER:
    case ErrorCode::LEADER_NOT_AVAILABLE:
    case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode::FENCED_LEADER_EPOCH:
    case ErrorCode::UNKNOWN_LEADER_EPOCH:
    case ErrorCode::KAFKA_STORAGE_ERROR:
    case ErrorCode::NETWORK_EXCEPTION:
    case ErrorCode::REQUEST_TIMED_OUT: return true;
    default: return false;
  }
}
}  // namespace

Consumer::Consumer(Runtime& rt, ConsumerConfig config)
    : rt_(rt),
      config_(std::move(config)),
      net_(rt, config_.client_id),
      metadata_(rt, net_, config_.bootstrap_servers, Duration::millis(config_.request_timeout_ms),
                Duration::millis(config_.metadata_max_age_ms)),
      coordinator_(rt, config_, net_, metadata_,
                   ConsumerCoordinator::Listener{
                       [this](const std::vector<TopicPartition>& tps) { on_revoked(tps, false); },
                       [this](const std::vector<TopicPartition>& tps) { on_assigned(tps); },
                       [this](const std::vector<TopicPartition>& tps) { on_revoked(tps, true); },
                       [this] { wakeup(); }}) {
  net_.set_sasl(config_.sasl());  // SASL_PLAINTEXT: every connection authenticates first
  metadata_.set_allow_auto_topic_creation(false);  // consumers never create topics (Java's default)
}

Consumer::~Consumer() = default;

void Consumer::start() { metadata_.start(); }

void Consumer::wakeup() {
  if (wakeup_) wakeup_();
}

void Consumer::subscribe(std::vector<std::string> topics, RebalanceListener listener) {
  GREGOR_ASSERT_MSG(!config_.group_id.empty(), "subscribe needs group.id");
  subscribed_ = true;
  listener_ = std::move(listener);
  coordinator_.subscribe(std::move(topics));
}

void Consumer::assign(const std::vector<TopicPartition>& partitions) {
  GREGOR_ASSERT_MSG(!subscribed_, "assign after subscribe");
  std::set<TopicPartition> wanted(partitions.begin(), partitions.end());
  for (auto it = parts_.begin(); it != parts_.end();)
    it = wanted.count(it->first) ? std::next(it) : parts_.erase(it);
  for (const auto& tp : wanted) {
    metadata_.add_topic(tp.topic);
    parts_[tp];
  }
  wakeup();
}

std::vector<TopicPartition> Consumer::assignment() const {
  std::vector<TopicPartition> out;
  for (const auto& [tp, st] : parts_) out.push_back(tp);
  return out;
}

std::optional<int64_t> Consumer::position(const TopicPartition& tp) const {
  auto it = parts_.find(tp);
  return it == parts_.end() ? std::nullopt : it->second.position;
}

int64_t Consumer::high_watermark(const TopicPartition& tp) const {
  auto it = parts_.find(tp);
  return it == parts_.end() ? -1 : it->second.high_watermark;
}

size_t Consumer::buffered() const {
  size_t n = 0;
  for (const auto& [tp, st] : parts_) n += st.buffered.size();
  return n;
}

void Consumer::on_assigned(const std::vector<TopicPartition>& tps) {
  for (const auto& tp : tps) parts_[tp];
  if (listener_.on_assigned) listener_.on_assigned(tps);
  wakeup();
}

void Consumer::on_revoked(const std::vector<TopicPartition>& tps, bool lost) {
  // The application hears first, while the positions are still there to commit.
  if (lost && listener_.on_lost)
    listener_.on_lost(tps);
  else if (listener_.on_revoked)
    listener_.on_revoked(tps);
  for (const auto& tp : tps) parts_.erase(tp);
}

void Consumer::seek(const TopicPartition& tp, int64_t offset) {
  auto it = parts_.find(tp);
  if (it == parts_.end()) return;
  it->second.buffered.clear();
  it->second.no_offset = false;
  set_position(tp, offset, "seek");
}

void Consumer::reset_to_committed(const std::vector<TopicPartition>& partitions) {
  for (const auto& tp : partitions) {
    auto it = parts_.find(tp);
    if (it == parts_.end()) continue;
    it->second.position.reset();
    it->second.buffered.clear();
    it->second.skip_to.reset();
    it->second.no_offset = false;
  }
  wakeup();
}

void Consumer::set_position(const TopicPartition& tp, int64_t offset, const char* reason) {
  PartitionState& st = parts_[tp];
  st.position = offset;
  st.buffered.clear();
  st.skip_to.reset();
  rt_.emit(ev::ConsumerPosition{.group = config_.group_id,
                                .member = coordinator_.member_id(),
                                .generation = coordinator_.generation(),
                                .topic = tp.topic,
                                .partition = tp.partition,
                                .offset = offset,
                                .reason = reason});
  wakeup();
}

void Consumer::pause(const std::vector<TopicPartition>& partitions) {
  for (const auto& tp : partitions) {
    auto it = parts_.find(tp);
    if (it == parts_.end()) continue;
    it->second.paused = true;
    it->second.buffered.clear();  // what was fetched is fetched again on resume
    it->second.skip_to.reset();
  }
}

void Consumer::resume(const std::vector<TopicPartition>& partitions) {
  for (const auto& tp : partitions) {
    auto it = parts_.find(tp);
    if (it != parts_.end()) it->second.paused = false;
  }
  wakeup();
}

void Consumer::close(std::function<void()> done) {
  if (!subscribed_) return done();
  coordinator_.leave("close", std::move(done));
}

// ---------------------------------------------------------------------------------------------
// poll.

std::vector<ConsumerRecord> Consumer::poll() {
  if (subscribed_) coordinator_.poll();
  maybe_auto_commit();
  update_positions();
  std::vector<ConsumerRecord> out;
  const size_t max = static_cast<size_t>(config_.max_poll_records);
  if (!parts_.empty()) {
    // Start at a different partition each time so none starves under max.poll.records.
    std::vector<TopicPartition> order;
    for (const auto& [tp, st] : parts_) order.push_back(tp);
    const size_t n = order.size();
    const size_t start = poll_cursor_++ % n;
    for (size_t i = 0; i < n && out.size() < max; i++) {
      PartitionState& st = parts_.at(order[(start + i) % n]);
      if (st.paused || !st.position) continue;
      while (!st.buffered.empty() && out.size() < max) {
        ConsumerRecord r = std::move(st.buffered.front());
        st.buffered.pop_front();
        if (r.offset < *st.position) continue;  // below the position (a batch's earlier records)
        GREGOR_ASSERT_MSG(r.offset == *st.position || r.offset > *st.position, "records go forward");
        st.position = r.offset + 1;
        out.push_back(std::move(r));
      }
      if (st.buffered.empty() && st.skip_to) {
        if (*st.skip_to > *st.position) st.position = *st.skip_to;
        st.skip_to.reset();
      }
    }
  }
  send_fetches();
  return out;
}

void Consumer::commit(const OffsetMap& offsets, std::function<void(ErrorCode)> done) {
  coordinator_.commit(offsets, std::move(done));
}

void Consumer::commit_async(const OffsetMap& offsets, std::function<void(ErrorCode)> done) {
  coordinator_.commit_async(offsets, std::move(done));
}

void Consumer::commit_positions(std::function<void(ErrorCode)> done) {
  OffsetMap offsets;
  for (const auto& [tp, st] : parts_)
    if (st.position) offsets[tp] = *st.position;
  commit(offsets, std::move(done));
}

void Consumer::maybe_auto_commit() {
  if (!config_.enable_auto_commit || config_.group_id.empty() || !subscribed_) return;
  const Time now = rt_.now();
  if (now < next_auto_commit_ || auto_commit_in_flight_ || !coordinator_.stable()) return;
  next_auto_commit_ = now + Duration::millis(config_.auto_commit_interval_ms);
  auto_commit_in_flight_ = true;
  commit_positions([this](ErrorCode) { auto_commit_in_flight_ = false; });
}

// ---------------------------------------------------------------------------------------------
// Positions: committed offsets, then auto.offset.reset.

void Consumer::update_positions() {
  const Time now = rt_.now();
  std::vector<TopicPartition> need;
  for (const auto& [tp, st] : parts_)
    if (!st.position && !st.fetching_committed && !st.resetting && !st.no_offset && now >= st.retry_at) need.push_back(tp);
  if (need.empty()) return;
  if (config_.group_id.empty()) return reset_positions(need);
  for (const auto& tp : need) parts_[tp].fetching_committed = true;
  coordinator_.fetch_committed(need, [this, need](ErrorCode code, const OffsetMap& committed) {
    std::vector<TopicPartition> reset;
    for (const auto& tp : need) {
      auto it = parts_.find(tp);
      if (it == parts_.end()) continue;
      it->second.fetching_committed = false;
      if (it->second.position) continue;  // a seek came first
      if (code != ErrorCode::NONE) {
        it->second.retry_at = rt_.now() + Duration::millis(config_.retry_backoff_ms);
        continue;
      }
      auto c = committed.find(tp);
      if (c != committed.end() && c->second >= 0)
        set_position(tp, c->second, "committed");
      else
        reset.push_back(tp);
    }
    if (!reset.empty()) reset_positions(reset);
    if (code != ErrorCode::NONE)
      rt_.after(Duration::millis(config_.retry_backoff_ms), [this] { wakeup(); });
  });
}

void Consumer::reset_positions(const std::vector<TopicPartition>& tps) {
  if (config_.auto_offset_reset == "none") {
    for (const auto& tp : tps) {
      parts_[tp].no_offset = true;
      rt_.emit(ev::ConsumerError{.group = config_.group_id, .topic = tp.topic, .partition = tp.partition, .error = "NoOffsetForPartition", .offset = std::nullopt});
    }
    return;
  }
  const int64_t timestamp =
      config_.auto_offset_reset == "earliest" ? protocol::kListOffsetsEarliestTimestamp : protocol::kListOffsetsLatestTimestamp;
  const char* reason = config_.auto_offset_reset == "earliest" ? "earliest" : "latest";
  std::map<int32_t, std::vector<TopicPartition>> by_leader;
  for (const auto& tp : tps) {
    int32_t leader = metadata_.leader(tp.topic, tp.partition);
    if (leader < 0) {
      metadata_.request_update();
      parts_[tp].retry_at = rt_.now() + Duration::millis(config_.retry_backoff_ms);
      continue;
    }
    by_leader[leader].push_back(tp);
  }
  if (by_leader.empty() && !tps.empty()) rt_.after(Duration::millis(config_.retry_backoff_ms), [this] { wakeup(); });
  for (const auto& [leader, list] : by_leader) {
    protocol::ListOffsetsRequest req;
    req.replica_id = -1;
    req.isolation_level = config_.read_committed() ? 1 : 0;  // latest = the last stable offset
    for (const auto& tp : list) {
      parts_[tp].resetting = true;
      if (req.topics.empty() || req.topics.back().name != tp.topic) req.topics.push_back({tp.topic, {}});
      req.topics.back().partitions.push_back({.partition_index = tp.partition, .timestamp = timestamp});
    }
    net_.send(NodeId{leader}, req, kListOffsetsVersion, Duration::millis(config_.request_timeout_ms),
              [this, list, reason](ErrorCode transport, ByteReader* body) {
                std::optional<protocol::ListOffsetsResponse> resp;
                if (transport == ErrorCode::NONE && body) {
                  auto r = protocol::ListOffsetsResponse::decode(*body, kListOffsetsVersion);
                  if (r) resp = std::move(*r);
                }
                std::map<TopicPartition, int64_t> found;
                if (resp)
                  for (const auto& t : resp->topics)
                    for (const auto& p : t.partitions)
                      if (p.error_code == ErrorCode::NONE && p.offset >= 0) found[TopicPartition{t.name, p.partition_index}] = p.offset;
                bool retry = false;
                for (const auto& tp : list) {
                  auto it = parts_.find(tp);
                  if (it == parts_.end()) continue;
                  it->second.resetting = false;
                  if (it->second.position) continue;
                  auto f = found.find(tp);
                  if (f != found.end()) {
                    set_position(tp, f->second, reason);
                  } else {
                    it->second.retry_at = rt_.now() + Duration::millis(config_.retry_backoff_ms);
                    retry = true;
                  }
                }
                if (retry) {
                  metadata_.request_update();
                  rt_.after(Duration::millis(config_.retry_backoff_ms), [this] { wakeup(); });
                }
              });
  }
}

// ---------------------------------------------------------------------------------------------
// Fetching.

void Consumer::send_fetches() {
  const Time now = rt_.now();
  std::map<int32_t, std::map<TopicPartition, int64_t>> by_leader;
  bool need_metadata = false;
  for (const auto& [tp, st] : parts_) {
    if (st.paused || !st.position || !st.buffered.empty() || now < st.retry_at) continue;
    const int32_t leader = metadata_.leader(tp.topic, tp.partition);
    if (leader < 0) {
      need_metadata = true;
      continue;
    }
    if (fetch_in_flight_.count(leader)) continue;
    by_leader[leader][tp] = *st.position;
  }
  if (need_metadata) metadata_.request_update();
  for (const auto& [leader, fetched] : by_leader) {
    protocol::FetchRequest req;
    req.replica_id = -1;
    req.max_wait_ms = static_cast<int32_t>(config_.fetch_max_wait_ms);
    req.min_bytes = config_.fetch_min_bytes;
    req.max_bytes = config_.fetch_max_bytes;
    req.isolation_level = config_.read_committed() ? 1 : 0;  // isolation.level (read_uncommitted by default)
    req.session_id = 0;
    req.session_epoch = -1;
    for (const auto& [tp, offset] : fetched) {
      if (req.topics.empty() || req.topics.back().topic != tp.topic) req.topics.push_back({tp.topic, {}});
      protocol::FetchRequest::FetchPartition fp;
      fp.partition = tp.partition;
      fp.fetch_offset = offset;
      fp.partition_max_bytes = config_.max_partition_fetch_bytes;
      req.topics.back().partitions.push_back(fp);
    }
    fetch_in_flight_.insert(leader);
    const Duration timeout = Duration::millis(config_.request_timeout_ms + config_.fetch_max_wait_ms);
    net_.send(NodeId{leader}, req, kFetchVersion, timeout, [this, leader, fetched](ErrorCode transport, ByteReader* body) {
      on_fetch_response(leader, fetched, transport, body);
    });
  }
}

void Consumer::on_fetch_response(int32_t leader, const std::map<TopicPartition, int64_t>& fetched, ErrorCode transport,
                                 ByteReader* body) {
  fetch_in_flight_.erase(leader);
  const Time now = rt_.now();
  std::optional<protocol::FetchResponse> resp;
  if (transport == ErrorCode::NONE && body) {
    auto r = protocol::FetchResponse::decode(*body, kFetchVersion);
    if (r) resp = std::move(*r);
  }
  bool got_records = false;
  if (!resp) {
    for (const auto& [tp, offset] : fetched) {
      auto it = parts_.find(tp);
      if (it != parts_.end()) it->second.retry_at = now + Duration::millis(config_.retry_backoff_ms);
    }
    metadata_.request_update();
    rt_.after(Duration::millis(config_.retry_backoff_ms), [this] { send_fetches(); });
    return;
  }
  bool refresh = false;
  for (const auto& t : resp->responses)
    for (const auto& pd : t.partitions) {
      const TopicPartition tp{t.topic, pd.partition_index};
      auto f = fetched.find(tp);
      auto it = parts_.find(tp);
      // Revoked, sought elsewhere or paused since the request went out: drop what came back.
      if (f == fetched.end() || it == parts_.end() || it->second.position != f->second || it->second.paused) continue;
      PartitionState& st = it->second;
      if (pd.error_code == ErrorCode::OFFSET_OUT_OF_RANGE) {
        rt_.emit(ev::ConsumerError{.group = config_.group_id,
                                   .topic = tp.topic,
                                   .partition = tp.partition,
                                   .error = "OFFSET_OUT_OF_RANGE",
                                   .offset = f->second});
        st.position.reset();
        reset_positions({tp});
        continue;
      }
      if (pd.error_code != ErrorCode::NONE) {
        if (refresh_metadata_error(pd.error_code)) refresh = true;
        st.retry_at = now + Duration::millis(config_.retry_backoff_ms);
        continue;
      }
      st.high_watermark = pd.high_watermark;
      if (!pd.records || pd.records->empty()) continue;
      auto split = record::split_batches(as_view(*pd.records), config_.check_crcs);
      if (!split) {
        rt_.emit(ev::ConsumerError{
            .group = config_.group_id, .topic = tp.topic, .partition = tp.partition, .error = split.status().to_string(), .offset = std::nullopt});
        st.retry_at = now + Duration::millis(config_.retry_backoff_ms);
        continue;
      }
      int64_t next = *st.position;
      // read_committed (Kafka's CompletedFetch): the aborted transactions the broker listed, by first
      // offset; a producer's transactional batches are dropped from its aborted transaction's first
      // offset up to its ABORT marker.
      std::multimap<int64_t, int64_t> aborted;  // first offset -> producer id
      if (config_.read_committed() && pd.aborted_transactions)
        for (const auto& a : *pd.aborted_transactions) aborted.emplace(a.first_offset, a.producer_id);
      std::set<int64_t> aborted_producers;
      bool full = false;
      for (const auto& b : split->batches) {
        if (full) break;
        if (b.header.next_offset() <= next) continue;
        if (config_.read_committed() && b.header.producer_id >= 0) {
          while (!aborted.empty() && aborted.begin()->first <= b.header.last_offset()) {
            aborted_producers.insert(aborted.begin()->second);
            aborted.erase(aborted.begin());
          }
          if (b.header.is_control()) {
            auto marker = record::parse_end_txn_marker(b.bytes);
            if (marker && marker->type == record::ControlType::kAbort) aborted_producers.erase(b.header.producer_id);
          } else if (b.header.is_transactional() && aborted_producers.count(b.header.producer_id)) {
            next = b.header.next_offset();
            // an aborted transaction's records: step over them (once what is buffered is polled)
            if (st.buffered.empty()) st.position = next; else st.skip_to = next;
            continue;
          }
        }
        if (b.header.is_control()) {
          next = b.header.next_offset();
          // nothing to hand out: step over it (once what is buffered is polled)
          if (st.buffered.empty()) st.position = next; else st.skip_to = next;
          continue;
        }
        auto recs = record::decode_records(b.bytes);
        if (!recs) {
          rt_.emit(ev::ConsumerError{
              .group = config_.group_id, .topic = tp.topic, .partition = tp.partition, .error = recs.status().to_string(), .offset = std::nullopt});
          break;
        }
        for (auto& r : *recs) {
          if (r.offset < next) continue;
          if (st.buffered.size() >= kBufferedRecordsPerPartitionMax) {
            full = true;  // fetched again later: nothing after it may be stepped over
            continue;
          }
          ConsumerRecord cr;
          cr.topic = tp.topic;
          cr.partition = tp.partition;
          cr.offset = r.offset;
          cr.timestamp = r.timestamp;
          cr.key = std::move(r.key);
          cr.value = std::move(r.value);
          next = r.offset + 1;
          st.buffered.push_back(std::move(cr));
          got_records = true;
        }
      }
    }
  if (refresh) metadata_.request_update();
  send_fetches();
  if (got_records) wakeup();
}

}  // namespace gregor::client
