#include "engine/broker/replica_fetcher.h"

#include <algorithm>

#include "engine/broker/fetch_session.h"
#include "engine/core/small_vector.h"
#include "engine/protocol/api_versions_table.h"
#include "engine/protocol/fetch.h"
#include "engine/protocol/offset_for_leader_epoch.h"

namespace gregor::broker {

using protocol::ErrorCode;

ReplicaFetcher::ReplicaFetcher(Runtime& rt, const BrokerConfig& config, protocol::NetworkClient& net,
                               PartitionLookup lookup)
    : rt_(rt), config_(config), net_(net), lookup_(std::move(lookup)) {}

void ReplicaFetcher::add_partition(const TopicPartition& tp, int32_t leader, int32_t leader_epoch) {
  State st;
  st.leader = leader;
  st.leader_epoch = leader_epoch;
  st.truncating = true;
  Partition* p = lookup_(tp);
  if (p && config_.replication_truncation == TruncationMode::kHighWatermark) {
    // Before KIP-101: a new follower truncates to its own high watermark, whatever the leader has.
    (void)p->truncate_to(p->high_watermark(), "high_watermark");
    st.truncating = false;
  }
  parts_[tp] = st;
  schedule(leader, Duration{0});
}

void ReplicaFetcher::remove_partition(const TopicPartition& tp) { parts_.erase(tp); }

bool ReplicaFetcher::update_epoch_keeping_state(const TopicPartition& tp, int32_t leader, int32_t leader_epoch) {
  auto it = parts_.find(tp);
  if (it == parts_.end() || it->second.leader != leader) return false;
  it->second.leader_epoch = leader_epoch;
  schedule(leader, Duration{0});
  return true;
}
void ReplicaFetcher::remove_all() { parts_.clear(); }

bool ReplicaFetcher::current(const TopicPartition& tp, int32_t leader, int32_t epoch) const {
  auto it = parts_.find(tp);
  return it != parts_.end() && it->second.leader == leader && it->second.leader_epoch == epoch;
}

void ReplicaFetcher::schedule(int32_t leader, Duration d) {
  Session& s = sessions_[leader];
  if (s.wake_scheduled) return;
  s.wake_scheduled = true;
  rt_.after(d, [this, leader] {
    sessions_[leader].wake_scheduled = false;
    pump(leader);
  });
}

void ReplicaFetcher::fail(const TopicPartition& tp, int32_t epoch) {
  auto it = parts_.find(tp);
  if (it == parts_.end() || it->second.leader_epoch != epoch) return;
  it->second.retry_at = rt_.now() + Duration::millis(config_.replica_fetch_backoff_ms);
  schedule(it->second.leader, Duration::millis(config_.replica_fetch_backoff_ms));
}

void ReplicaFetcher::pump(int32_t leader) {
  Session& s = sessions_[leader];
  if (s.in_flight) return;
  std::vector<TopicPartition> truncating;
  SmallVector<const PartEntry*, 8> fetching;  // few per leader, mostly
  for (const auto& entry : parts_) {
    const State& st = entry.second;
    if (st.leader != leader || st.retry_at > rt_.now()) continue;
    if (st.truncating)
      truncating.push_back(entry.first);
    else if (truncating.empty())
      fetching.push_back(&entry);
  }
  if (!truncating.empty())
    send_epoch_requests(leader, truncating);
  else if (!fetching.empty())
    send_fetch(leader, {fetching.data(), fetching.size()});
}

void ReplicaFetcher::send_epoch_requests(int32_t leader, const std::vector<TopicPartition>& tps) {
  protocol::OffsetForLeaderEpochRequest req;
  req.replica_id = config_.broker_id;
  std::map<TopicPartition, int32_t> asked_epoch;  // the leader epoch each partition is fenced with
  for (const auto& tp : tps) {
    Partition* p = lookup_(tp);
    if (!p) continue;
    auto latest = p->latest_epoch();
    if (!latest) {
      // An empty log (no epochs): nothing to truncate.
      parts_[tp].truncating = false;
      continue;
    }
    if (req.topics.empty() || req.topics.back().topic != tp.topic) req.topics.push_back({tp.topic, {}});
    req.topics.back().partitions.push_back({tp.partition, parts_[tp].leader_epoch, latest->value});
    asked_epoch[tp] = parts_[tp].leader_epoch;
  }
  if (req.topics.empty()) return schedule(leader, Duration{0});
  sessions_[leader].in_flight = true;
  net_.send(NodeId{leader}, req, protocol::kOffsetForLeaderEpochVersion,
            Duration::millis(config_.replica_socket_timeout_ms),
            [this, leader, asked_epoch](ErrorCode transport, ByteReader* body) {
              sessions_[leader].in_flight = false;
              if (transport != ErrorCode::NONE || !body) {
                for (const auto& [tp, e] : asked_epoch) fail(tp, e);
                return;
              }
              auto resp = protocol::OffsetForLeaderEpochResponse::decode(*body, protocol::kOffsetForLeaderEpochVersion);
              if (!resp) {
                for (const auto& [tp, e] : asked_epoch) fail(tp, e);
                return;
              }
              for (const auto& t : resp->topics)
                for (const auto& r : t.partitions) {
                  TopicPartition tp{t.topic, r.partition};
                  auto ask = asked_epoch.find(tp);
                  if (ask == asked_epoch.end() || !current(tp, leader, ask->second)) continue;
                  Partition* p = lookup_(tp);
                  if (!p) continue;
                  if (r.error_code != ErrorCode::NONE) {
                    fail(tp, ask->second);
                    continue;
                  }
                  const Offset leo = p->log_end_offset();
                  if (r.end_offset < 0) {
                    // The leader knows no epoch at or below ours: fall back to our high watermark.
                    (void)p->truncate_to(p->high_watermark(), "leader_epoch");
                    parts_[tp].truncating = false;
                    continue;
                  }
                  if (config_.replication_truncation == TruncationMode::kLeaderEpochKip101) {
                    // KIP-101 alone (OffsetForLeaderEpoch v0 has no epoch in its answer): the
                    // leader's end offset for our epoch is taken as is. When the leader never had
                    // our epoch (KAFKA-6361) that offset is the start of its next epoch, past
                    // records of ours it does not have, and the logs diverge.
                    (void)p->truncate_to(std::min(Offset{r.end_offset}, leo), "leader_epoch");
                    parts_[tp].truncating = false;
                    continue;
                  }
                  const EpochEndOffset own = p->end_offset_for_epoch(LeaderEpoch{r.leader_epoch});
                  const int32_t follower_epoch = own.epoch.value;
                  const int64_t follower_end = own.end_offset.value;
                  if (follower_epoch < 0) {
                    (void)p->truncate_to(std::min(Offset{r.end_offset}, leo), "leader_epoch");
                    parts_[tp].truncating = false;
                  } else if (follower_epoch != r.leader_epoch) {
                    // KIP-279: we do not know the leader's epoch; go back to the end of our largest
                    // epoch below it and ask again.
                    (void)p->truncate_to(std::min(Offset{follower_end}, leo), "leader_epoch");
                  } else {
                    (void)p->truncate_to(std::min({Offset{follower_end}, Offset{r.end_offset}, leo}), "leader_epoch");
                    parts_[tp].truncating = false;
                  }
                }
              schedule(leader, Duration{0});
            });
}

void ReplicaFetcher::send_fetch(int32_t leader, std::span<const PartEntry* const> entries) {
  protocol::FetchRequest req;
  req.replica_id = config_.broker_id;
  req.max_wait_ms = static_cast<int32_t>(config_.replica_fetch_wait_max_ms);
  req.min_bytes = config_.replica_fetch_min_bytes;
  req.max_bytes = 10 * 1024 * 1024;
  req.isolation_level = 0;
  // What this request asks of each partition, in the order of parts_ (the order of the maps).
  struct Asking {
    const TopicPartition* tp;
    Asked asked;
  };
  SmallVector<Asking, 8> asking;  // few per leader, mostly
  asking.reserve(entries.size());
  for (const PartEntry* entry : entries) {
    Partition* p = lookup_(entry->first);
    if (!p) continue;
    asking.emplace_back(&entry->first, Asked{.leader_epoch = entry->second.leader_epoch,
                                             .fetch_offset = p->log_end_offset().value,
                                             .log_start_offset = p->log_start_offset().value});
  }
  if (asking.empty()) return;
  Session& session = sessions_[leader];
  static const std::map<TopicPartition, Asked> kNone;
  const std::map<TopicPartition, Asked>& before = session.partitions ? *session.partitions : kNone;
  // KIP-227: a full request names every partition; an incremental one only those added or asked
  // differently since the last request, and forgets those no longer fetched. The leader answers
  // for the session's partitions either way.
  const bool full = session.next_epoch == 0;
  req.session_id = session.id;
  req.session_epoch = session.next_epoch;
  auto name = [&](const TopicPartition& tp, const Asked& a) {
    if (req.topics.empty() || req.topics.back().topic != tp.topic) req.topics.push_back({tp.topic, {}});
    protocol::FetchRequest::FetchPartition fp;
    fp.partition = tp.partition;
    fp.current_leader_epoch = a.leader_epoch;
    fp.fetch_offset = a.fetch_offset;
    fp.log_start_offset = a.log_start_offset;
    fp.partition_max_bytes = config_.replica_fetch_max_bytes;
    req.topics.back().partitions.push_back(fp);
  };
  // The same partitions as the session's last request, whose map nobody else holds any more (the
  // answer's callback is done with it): its values are updated in place, without building a new
  // map (a node and, for names like __consumer_offsets, a string per partition per fetch).
  bool same_partitions = session.partitions && session.partitions.use_count() == 1 && before.size() == asking.size();
  if (same_partitions) {
    auto was = before.begin();
    for (const auto& [tp, a] : asking)
      if (!((was++)->first == *tp)) {
        same_partitions = false;
        break;
      }
  }
  std::shared_ptr<const std::map<TopicPartition, Asked>> asked;
  if (same_partitions) {
    // Created non-const below; only this fetcher writes it, and nobody else holds it.
    auto& held = const_cast<std::map<TopicPartition, Asked>&>(before);
    auto was = held.begin();
    for (const auto& [tp, a] : asking) {
      if (full || !(was->second == a)) name(was->first, a);
      was->second = a;
      ++was;
    }
    asked = session.partitions;
  } else {
    auto next = std::make_shared<std::map<TopicPartition, Asked>>();  // the session's partitions after this request
    for (const auto& [tp, a] : asking) next->emplace_hint(next->end(), *tp, a);
    // Both maps are in the same order: walk them side by side (a follower's session holds every
    // partition it follows from this leader, dozens with __consumer_offsets).
    auto was = before.begin();
    for (const auto& [tp, a] : *next) {
      while (was != before.end() && was->first < tp) ++was;
      if (!full && was != before.end() && was->second == a && was->first == tp) continue;
      name(tp, a);
    }
    if (!full)
      for (auto kept = next->begin(); const auto& [tp, a] : before) {
        while (kept != next->end() && kept->first < tp) ++kept;
        if (kept != next->end() && kept->first == tp) continue;
        if (req.forgotten_topics_data.empty() || req.forgotten_topics_data.back().topic != tp.topic)
          req.forgotten_topics_data.push_back({.topic = tp.topic, .topic_id = {}, .partitions = {}, .unknown_tagged_fields = {}});
        req.forgotten_topics_data.back().partitions.push_back(tp.partition);
      }
    asked = std::move(next);
  }
  session.partitions = asked;
  const int32_t epoch_sent = req.session_epoch;
  session.in_flight = true;
  // The leader may hold the request for max_wait; the timeout covers that and the socket timeout.
  Duration timeout = Duration::millis(config_.replica_socket_timeout_ms + config_.replica_fetch_wait_max_ms);
  net_.send(NodeId{leader}, req, protocol::kReplicaFetchVersion, timeout,
            [this, leader, asked = std::move(asked), epoch_sent](ErrorCode transport, ByteReader* body) {
              Session& fetch_session = sessions_[leader];
              fetch_session.in_flight = false;
              std::optional<protocol::FetchResponse> resp;
              if (transport == ErrorCode::NONE && body) {
                auto decoded = protocol::FetchResponse::decode(*body, protocol::kReplicaFetchVersion);
                if (decoded) resp = std::move(*decoded);
              }
              if (!resp) {
                // The leader may have moved the session on without us: start over with a full
                // request (which also closes the old session there).
                fetch_session.next_epoch = 0;
                for (const auto& [tp, a] : *asked) fail(tp, a.leader_epoch);
                return;
              }
              if (resp->error_code != ErrorCode::NONE) {
                // A session error (FETCH_SESSION_ID_NOT_FOUND: the leader restarted or evicted it;
                // INVALID_FETCH_SESSION_EPOCH): a new session, at once. Any other: after a backoff.
                fetch_session.next_epoch = 0;
                if (resp->error_code == ErrorCode::FETCH_SESSION_ID_NOT_FOUND) fetch_session.id = 0;
                if (resp->error_code == ErrorCode::FETCH_SESSION_ID_NOT_FOUND ||
                    resp->error_code == ErrorCode::INVALID_FETCH_SESSION_EPOCH)
                  return schedule(leader, Duration{0});
                for (const auto& [tp, a] : *asked) fail(tp, a.leader_epoch);
                return;
              }
              if (epoch_sent == 0) {
                // A full request's answer names the new session (0: the leader kept none).
                fetch_session.id = resp->session_id;
                fetch_session.next_epoch = fetch_session.id != 0 ? 1 : 0;
              } else {
                fetch_session.next_epoch = FetchSessionCache::next_epoch(epoch_sent);
              }
              auto hint = asked->begin();
              for (const auto& t : resp->responses)
                for (const auto& pd : t.partitions) {
                  auto it = find_in_session_order(*asked, hint, t.topic, pd.partition_index);
                  if (it == asked->end()) continue;
                  hint = std::next(it);
                  const TopicPartition& tp = it->first;
                  if (!current(tp, leader, it->second.leader_epoch)) continue;
                  Partition* p = lookup_(tp);
                  if (!p || p->log_end_offset().value != it->second.fetch_offset) continue;  // truncated meanwhile
                  switch (pd.error_code) {
                    case ErrorCode::NONE: {
                      ByteView records = pd.records ? as_view(*pd.records) : ByteView{};
                      Status s = p->append_as_follower(records, Offset{pd.high_watermark}, rt_.now());
                      if (!s.is_ok()) {
                        rt_.log("follower append failed for " + tp.str() + ": " + s.to_string());
                        fail(tp, it->second.leader_epoch);
                        break;
                      }
                      // The leader's log start offset (moved by DeleteRecords or retention), as
                      // far as this replica's log reaches (Kafka's maybeIncrementLogStartOffset).
                      if (pd.log_start_offset > p->log_start_offset().value)
                        (void)p->log().maybe_increment_log_start_offset(
                            Offset{std::min(pd.log_start_offset, p->log_end_offset().value)});
                      break;
                    }
                    case ErrorCode::OFFSET_OUT_OF_RANGE:
                      if (pd.log_start_offset >= 0 && it->second.fetch_offset < pd.log_start_offset) {
                        (void)p->truncate_fully_and_start_at(Offset{pd.log_start_offset}, "out_of_range");
                      } else {
                        parts_[tp].truncating = true;  // ahead of the leader: find where we diverge
                      }
                      break;
                    default:
                      fail(tp, it->second.leader_epoch);
                  }
                }
              schedule(leader, Duration{0});
            });
}

}  // namespace gregor::broker
