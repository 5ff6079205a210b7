// Fetch: from followers (replica_id >= 0: up to the log end, recording their progress) and from
// consumers (up to the high watermark; with isolation_level 1, read_committed, up to the last
// stable offset, listing the aborted transactions of the range read: KIP-98). Every answer carries
// the last stable offset (v4+). Control batches are served as they are; clients skip them. A fetch with max_wait_ms waits in the fetch purgatory
// until min_bytes are there, an error shows, or max_wait_ms passes.
#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <span>

#include "engine/broker/fetch_session.h"
#include "engine/broker/request_handler.h"
#include "engine/core/small_vector.h"
#include "engine/protocol/fetch.h"
#include "engine/record/batch_split.h"
#include "engine/record/legacy_records.h"

namespace gregor::broker {

namespace {

struct FetchRead {
  protocol::FetchResponse response;
  int32_t bytes = 0;
  bool has_error = false;
};

// The first Fetch versions that read RecordBatch v2 (below: message sets of magic 1, and of magic 0
// below v2) and that may read zstd (KIP-110).
constexpr int16_t kFetchVersionMagicV2Min = 4;
constexpr int16_t kFetchVersionMagicV1Min = 2;
constexpr int16_t kFetchVersionZstdMin = 10;
// From v13 topics are named by id (KIP-516); from v15 a follower names itself in replica_state (KIP-903).
constexpr int16_t kFetchVersionTopicIdMin = 13;
constexpr int16_t kFetchVersionReplicaStateMin = 15;
constexpr int16_t kFetchVersionNodeEndpointsMin = 16;

// What a consumer of an older Fetch version can read, as Kafka's KafkaApis.maybeConvertFetchedData:
// zstd is refused below v10 (the topic's compression.type, or a zstd batch among those read), and
// below v4 the batches are converted down to the magic the version reads (engine/record/legacy_records.h).
ErrorCode convert_for_version(const Partition& p, int16_t version, int64_t fetch_offset, SharedBytes& records) {
  if (version >= kFetchVersionZstdMin) return ErrorCode::NONE;
  if (p.config().compression_type == "zstd") return ErrorCode::UNSUPPORTED_COMPRESSION_TYPE;
  if (records.empty()) return ErrorCode::NONE;
  if (version >= kFetchVersionMagicV2Min) {
    auto split = record::split_batches(as_view(records), false);
    if (split)
      for (const record::BatchView& b : split->batches)
        if (b.header.compression() == static_cast<int>(record::CompressionType::kZstd))
          return ErrorCode::UNSUPPORTED_COMPRESSION_TYPE;
    return ErrorCode::NONE;
  }
  const int8_t magic = version >= kFetchVersionMagicV1Min ? record::kMagicV1 : record::kMagicV0;
  auto converted = record::down_convert(as_view(records), magic, fetch_offset);
  if (!converted)
    return converted.status().code() == StatusCode::kInvalidArgument ? ErrorCode::UNSUPPORTED_COMPRESSION_TYPE
                                                                     : ErrorCode::CORRUPT_MESSAGE;
  records = SharedBytes(std::move(*converted));
  return ErrorCode::NONE;
}

// A flag per partition of a fetch, by its place in the request (a fetch names few, mostly).
using PlaceFlags = SmallVector<bool, 16>;

size_t partition_count(const protocol::FetchRequest& req) {
  size_t n = 0;
  for (const auto& t : req.topics) n += t.partitions.size();
  return n;
}

// Fetch v4+ carries isolation_level; below it a consumer reads uncommitted.
IsolationLevel isolation_of(const protocol::FetchRequest& req) {
  return req.isolation_level == static_cast<int8_t>(IsolationLevel::kReadCommitted) ? IsolationLevel::kReadCommitted
                                                                                    : IsolationLevel::kReadUncommitted;
}

// A fetch as the broker serves it (engine/broker/fetch_session.h): `reads` is the request itself
// for a sessionless or full one, and the session's partitions for an incremental one (what the
// request leaves out is asked as before). `listed` holds the partitions the request named, sorted
// (an incremental request names few: those whose fetch position moved).
struct FetchContext {
  protocol::FetchRequest reads;
  std::shared_ptr<FetchSession> session;  // null: sessionless
  bool incremental = false;
  ErrorCode error = ErrorCode::NONE;      // a session error: the answer is that alone
  std::vector<TopicPartition> listed;
  bool was_listed(const TopicPartition& tp) const { return std::binary_search(listed.begin(), listed.end(), tp); }
};

void remember_asked(FetchSessionPartition& sp, const protocol::FetchRequest::FetchTopic& t,
                    const protocol::FetchRequest::FetchPartition& fp) {
  sp.topic_id = t.topic_id;
  sp.current_leader_epoch = fp.current_leader_epoch;
  sp.fetch_offset = fp.fetch_offset;
  sp.last_fetched_epoch = fp.last_fetched_epoch;
  sp.log_start_offset = fp.log_start_offset;
  sp.partition_max_bytes = fp.partition_max_bytes;
}

// KIP-227: which session the request belongs to, its partitions brought up to date (added,
// changed, forgotten), and what the broker reads for it. Topics named by an id this broker does not
// know (v13+, an empty name here) are answered as asked and stay out of the session.
FetchContext open_fetch_context(HandlerContext& ctx, protocol::FetchRequest fetch) {
  FetchContext fc;
  FetchSessionCache& cache = ctx.replicas.fetch_sessions();
  const int32_t id = fetch.session_id;
  const int32_t epoch = fetch.session_epoch;
  if (epoch == FetchSessionCache::kFinalEpoch || epoch == FetchSessionCache::kInitialEpoch) {
    if (id != 0) cache.remove(id);
    if (epoch == FetchSessionCache::kInitialEpoch && !fetch.topics.empty()) {
      fc.session = cache.create(fetch.replica_id >= 0, ctx.rt.now());
      if (fc.session)
        for (const auto& t : fetch.topics)
          if (!t.topic.empty())
            for (const auto& fp : t.partitions)
              remember_asked(fc.session->partitions[TopicPartition{t.topic, fp.partition}], t, fp);
    }
    fc.reads = std::move(fetch);
    return fc;
  }
  fc.session = cache.find(id);
  if (!fc.session) {
    fc.error = ErrorCode::FETCH_SESSION_ID_NOT_FOUND;
    return fc;
  }
  if (fc.session->next_epoch != epoch) {
    fc.error = ErrorCode::INVALID_FETCH_SESSION_EPOCH;
    fc.session = nullptr;
    return fc;
  }
  FetchSession& session = *fc.session;
  session.next_epoch = FetchSessionCache::next_epoch(epoch);
  session.last_used = ctx.rt.now();
  fc.incremental = true;
  for (const auto& f : fetch.forgotten_topics_data)
    for (int32_t partition : f.partitions) session.partitions.erase(TopicPartition{f.topic, partition});
  std::vector<protocol::FetchRequest::FetchTopic> unknown;
  for (auto& t : fetch.topics) {
    if (t.topic.empty()) {
      unknown.push_back(std::move(t));
      continue;
    }
    for (const auto& fp : t.partitions) {
      TopicPartition tp{t.topic, fp.partition};
      remember_asked(session.partitions[tp], t, fp);
      fc.listed.push_back(std::move(tp));
    }
  }
  std::sort(fc.listed.begin(), fc.listed.end());
  fc.listed.erase(std::unique(fc.listed.begin(), fc.listed.end()), fc.listed.end());
  fetch.topics.clear();
  fetch.forgotten_topics_data.clear();
  // Topic by topic (the map is ordered by name): each name is compared once, and the topic's
  // partitions get their room at once (a follower's session holds dozens of one topic).
  for (auto it = session.partitions.begin(); it != session.partitions.end();) {
    auto topic_end = std::next(it);
    while (topic_end != session.partitions.end() && topic_end->first.topic == it->first.topic) ++topic_end;
    protocol::FetchRequest::FetchTopic& ft = fetch.topics.emplace_back();
    ft.topic = it->first.topic;
    ft.topic_id = it->second.topic_id;
    ft.partitions.reserve(static_cast<size_t>(std::distance(it, topic_end)));
    for (; it != topic_end; ++it) {
      const auto& [tp, sp] = *it;
      protocol::FetchRequest::FetchPartition fp;
      fp.partition = tp.partition;
      fp.current_leader_epoch = sp.current_leader_epoch;
      fp.fetch_offset = sp.fetch_offset;
      fp.last_fetched_epoch = sp.last_fetched_epoch;
      fp.log_start_offset = sp.log_start_offset;
      fp.partition_max_bytes = sp.partition_max_bytes;
      ft.partitions.push_back(fp);
    }
  }
  for (auto& t : unknown) fetch.topics.push_back(std::move(t));
  fc.reads = std::move(fetch);
  return fc;
}

// The answer to send: a session error alone; else the session's id, and (incremental) only the
// partitions with something to tell (Kafka's CachedPartition.maybeUpdateResponseData). Also the
// partitions the request named: a fetcher that dropped an answer (its log was truncated meanwhile)
// and asks again learns the high watermark even when it did not move.
protocol::FetchResponse close_fetch_context(const FetchContext& fc, protocol::FetchResponse response) {
  if (fc.error != ErrorCode::NONE) {
    protocol::FetchResponse err;
    err.error_code = fc.error;
    return err;
  }
  if (!fc.session) return response;
  response.session_id = fc.session->id;
  // The response lists the session's partitions in the session's order (open_fetch_context built
  // the reads from it).
  auto next = fc.session->partitions.begin();
  for (auto& tr : response.responses) {
    std::erase_if(tr.partitions, [&](const protocol::FetchResponse::PartitionData& pd) {
      if (tr.topic.empty()) return false;
      auto it = find_in_session_order(fc.session->partitions, next, tr.topic, pd.partition_index);
      if (it == fc.session->partitions.end()) return false;
      next = std::next(it);
      FetchSessionPartition& sp = it->second;
      const int64_t lso = pd.last_stable_offset;
      bool respond = !fc.incremental || pd.error_code != ErrorCode::NONE || protocol::codec::records_bytes(pd.records) > 0 ||
                     sp.high_watermark_sent != pd.high_watermark || sp.log_start_offset_sent != pd.log_start_offset ||
                     sp.last_stable_offset_sent != lso || fc.was_listed(it->first);
      if (pd.error_code != ErrorCode::NONE) {
        sp.high_watermark_sent = sp.log_start_offset_sent = sp.last_stable_offset_sent = -1;
      } else if (respond) {
        sp.high_watermark_sent = pd.high_watermark;
        sp.log_start_offset_sent = pd.log_start_offset;
        sp.last_stable_offset_sent = lso;
      }
      return !respond;
    });
  }
  std::erase_if(response.responses, [](const auto& tr) { return tr.partitions.empty(); });
  return response;
}

// Would close_fetch_context leave this partition out of an incremental session's answer (no error,
// no records, nothing changed since the last answer, not named by the request)? It only looks.
bool unchanged_in_session(const FetchContext& fc, std::map<TopicPartition, FetchSessionPartition>::iterator& next, const std::string& topic,
                          int32_t partition, int64_t high_watermark, int64_t log_start_offset, int64_t last_stable_offset) {
  if (!fc.incremental || !fc.session || fc.error != ErrorCode::NONE || topic.empty()) return false;
  auto it = find_in_session_order(fc.session->partitions, next, topic, partition);
  if (it == fc.session->partitions.end()) return false;
  next = std::next(it);
  const FetchSessionPartition& sp = it->second;
  return sp.high_watermark_sent == high_watermark && sp.log_start_offset_sent == log_start_offset &&
         sp.last_stable_offset_sent == last_stable_offset && !fc.was_listed(it->first);
}

// denied: the topics the principal may not read (answered TOPIC_AUTHORIZATION_FAILED). first_read:
// the read when the fetch arrives, which records a follower's progress (Kafka's updateFetchState);
// a delayed fetch's read from the purgatory does not. fc: the fetch's session context; the
// partitions close_fetch_context would leave out of the answer are left out here already (a
// follower's incremental fetch visits every partition it follows, and most have nothing to tell),
// so no PartitionData is built and then dropped for them.
//
// For a follower's delayed fetch: `left_out` (the read when it arrives) is told which partitions
// were left out, by their place in the request; `quiet` (its read when it completes) names those
// still left out: nothing about them has changed since (engine/broker/replica_manager.h), so they
// are not looked at again.
FetchRead read_fetch(HandlerContext& ctx, const protocol::FetchRequest& req, int16_t version,
                     const std::set<std::string>& denied, const FetchContext& fc, bool first_read,
                     PlaceFlags* left_out = nullptr, const PlaceFlags* quiet = nullptr) {
  FetchRead out;
  size_t at = 0;  // the partition's place in the request
  if (left_out) left_out->assign(partition_count(req), false);
  std::map<TopicPartition, FetchSessionPartition>::iterator next;
  if (fc.session) next = fc.session->partitions.begin();
  out.response.responses.reserve(req.topics.size());
  const bool from_follower = req.replica_id >= 0;
  std::set<int32_t> leaders;  // of partitions answered NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH
  for (const auto& t : req.topics) {
    protocol::FetchResponse::FetchableTopicResponse tr;
    tr.topic = t.topic;
    tr.topic_id = t.topic_id;  // v13+
    // v13+ names the topic by id; one this broker does not know has no name here (handle_fetch).
    const bool unknown_id = version >= kFetchVersionTopicIdMin && t.topic.empty();
    if (!fc.incremental) tr.partitions.reserve(t.partitions.size());  // incremental: most are left out
    // Adds a partition's entry to the answer.
    auto answer = [&](protocol::FetchResponse::PartitionData& pd) {
      if (pd.error_code != ErrorCode::NONE) out.has_error = true;
      if (pd.error_code == ErrorCode::NOT_LEADER_OR_FOLLOWER || pd.error_code == ErrorCode::FENCED_LEADER_EPOCH) {
        // KIP-951 (v12+ current leader; v16+ its address): the client can go to the new leader at once.
        if (const PartitionMetadata* pm = ctx.metadata.partition(TopicPartition{t.topic, pd.partition_index}); pm && pm->leader >= 0) {
          pd.current_leader.leader_id = pm->leader;
          pd.current_leader.leader_epoch = pm->leader_epoch;
          leaders.insert(pm->leader);
        }
      }
      tr.partitions.push_back(std::move(pd));
    };
    auto partition_data = [](int32_t partition) {
      protocol::FetchResponse::PartitionData pd;
      pd.partition_index = partition;
      pd.aborted_transactions = std::vector<protocol::FetchResponse::AbortedTransaction>{};
      return pd;
    };
    for (const auto& fp : t.partitions) {
      const size_t place = at++;
      if (quiet && (*quiet)[place]) continue;
      Partition* p = unknown_id ? nullptr : ctx.replicas.partition(t.topic, fp.partition);
      ErrorCode refused = ErrorCode::NONE;
      if (unknown_id) {
        refused = ErrorCode::UNKNOWN_TOPIC_ID;
      } else if (denied.count(t.topic)) {
        refused = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
      } else if (!p) {
        refused = ctx.metadata.partition(TopicPartition{t.topic, fp.partition}) ? ErrorCode::NOT_LEADER_OR_FOLLOWER
                                                                                  : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      } else if (ctx.replicas.log_dir_offline()) {
        refused = ErrorCode::KAFKA_STORAGE_ERROR;  // its log directory failed
      }
      if (refused != ErrorCode::NONE) {
        protocol::FetchResponse::PartitionData pd = partition_data(fp.partition);
        pd.error_code = refused;
        answer(pd);
        continue;
      }
      // Records as slices of the segment files where the disk has files (real sockets: sent with
      // sendfile), unless they must be looked at: converted for an old consumer (below v10).
      const bool as_stored = from_follower || version >= kFetchVersionZstdMin;
      LeaderRead lr = from_follower
                          ? p->fetch_for_follower(NodeId{req.replica_id}, Offset{fp.fetch_offset},
                                                  LeaderEpoch{fp.current_leader_epoch}, LeaderEpoch{-1}, fp.partition_max_bytes,
                                                  ctx.rt.now(), as_stored ? ReadLog::kFiles : ReadLog::kBytes, first_read)
                          : p->fetch_for_consumer(Offset{fp.fetch_offset}, LeaderEpoch{fp.current_leader_epoch},
                                                  fp.partition_max_bytes, as_stored ? ReadLog::kFiles : ReadLog::kBytes,
                                                  isolation_of(req));
      if (from_follower && first_read && lr.error == ErrorCode::NONE &&
          p->on_follower_log_start(NodeId{req.replica_id}, Offset{fp.log_start_offset}))
        ctx.replicas.on_low_watermark_change(TopicPartition{t.topic, fp.partition});
      ErrorCode error = lr.error;
      if (!from_follower && error == ErrorCode::NONE) {
        error = convert_for_version(*p, version, fp.fetch_offset, lr.records);
        if (error != ErrorCode::NONE) lr.records = SharedBytes();
      }
      const bool send_files = !lr.files.empty() && error == ErrorCode::NONE;
      const size_t records_bytes = send_files ? lr.files_bytes : lr.records.size();
      // A follower's answer carries the HW there: followers do not use it, and they rebuild
      // transactions from the log they fetch.
      const int64_t lso = from_follower ? lr.high_watermark.value : lr.last_stable_offset.value;
      // Most partitions of a follower's session have nothing to tell: left out before an entry is
      // built for them.
      if (error == ErrorCode::NONE && records_bytes == 0 &&
          unchanged_in_session(fc, next, t.topic, fp.partition, lr.high_watermark.value, lr.log_start.value, lso)) {
        if (left_out) (*left_out)[place] = true;
        continue;
      }
      protocol::FetchResponse::PartitionData pd = partition_data(fp.partition);
      pd.error_code = error;
      pd.high_watermark = lr.high_watermark.value;
      pd.last_stable_offset = lso;
      for (const AbortedTxn& a : lr.aborted_transactions)
        pd.aborted_transactions->push_back({.producer_id = a.producer_id, .first_offset = a.first_offset});
      pd.log_start_offset = lr.log_start.value;
      out.bytes += static_cast<int32_t>(records_bytes);
      if (send_files)
        pd.records = protocol::Records::of_files(std::move(lr.files));
      else
        pd.records = std::move(lr.records);
      answer(pd);
    }
    out.response.responses.push_back(std::move(tr));
  }
  if (version >= kFetchVersionNodeEndpointsMin)
    for (int32_t id : leaders)
      if (auto b = ctx.metadata.brokers().find(id); b != ctx.metadata.brokers().end())
        out.response.node_endpoints.push_back({.node_id = id, .host = b->second.host, .port = b->second.port, .rack = std::nullopt});
  return out;
}

// Would read_fetch now return records or an error? Kafka's DelayedFetch.tryComplete: it reads no log,
// builds no response and changes nothing (a follower's progress was recorded when its fetch arrived).
// It looks only at the partitions `changed` names (by place in the request): those marked since the
// last look, the others have not changed.
bool fetch_ready(HandlerContext& ctx, const protocol::FetchRequest& req, const std::set<std::string>& denied,
                 const PlaceFlags& changed) {
  const bool from_follower = req.replica_id >= 0;
  size_t i = 0;
  for (const auto& t : req.topics) {
    for (const auto& fp : t.partitions) {
      if (!changed[i++]) continue;
      Partition* p = ctx.replicas.partition(t.topic, fp.partition);
      if (!p || ctx.replicas.log_dir_offline() || denied.count(t.topic)) return true;  // an error to answer with
      const LeaderRead lr = from_follower
                                ? p->fetch_for_follower(NodeId{req.replica_id}, Offset{fp.fetch_offset},
                                                        LeaderEpoch{fp.current_leader_epoch}, LeaderEpoch{-1},
                                                        fp.partition_max_bytes, ctx.rt.now(), ReadLog::kNo, false)
                                : p->fetch_for_consumer(Offset{fp.fetch_offset}, LeaderEpoch{fp.current_leader_epoch},
                                                        fp.partition_max_bytes, ReadLog::kNo, isolation_of(req));
      if (lr.error != ErrorCode::NONE || lr.records_available) return true;
    }
  }
  return false;
}

// The purgatory keys of a fetch's partitions, in the order read_fetch visits them.
std::vector<Purgatory::Key> fetch_keys(const protocol::FetchRequest& req) {
  std::vector<Purgatory::Key> keys;
  keys.reserve(partition_count(req));
  for (const auto& t : req.topics) {
    const uint64_t name_hash = Purgatory::name_hash(t.topic);
    for (const auto& fp : t.partitions) keys.push_back(Purgatory::key_of_hash(name_hash, fp.partition));
  }
  return keys;
}

// A fetch waiting for fetch.min.bytes of data.
class DelayedFetch final : public DelayedOperation {
 public:
  DelayedFetch(HandlerContext& ctx, Request req, FetchContext fetch, std::set<std::string> denied,
               std::vector<Purgatory::Key> keys)
      : ctx_(ctx),
        req_(std::move(req)),
        context_(std::move(fetch)),
        fetch_(context_.reads),
        denied_(std::move(denied)),
        keys_(std::move(keys)) {}

  const std::vector<Purgatory::Key>& keys() const { return keys_; }
  bool try_complete(bool expired) override { return try_with(expired, std::nullopt); }
  bool try_complete_marked(std::span<const Purgatory::Key> marked) override { return try_with(false, marked); }
  // A follower's fetch: the partitions its first read left out (read_fetch), and the count of log
  // start moves before that read.
  void set_left_out(PlaceFlags left_out, uint64_t log_start_changes) {
    quiet_ = std::move(left_out);
    log_start_changes_ = log_start_changes;
  }

 private:
  bool try_with(bool expired, std::optional<std::span<const Purgatory::Key>> marked) {
    // The partitions that may have changed since the last try: the marked ones; after mark_all (or
    // at expiry), any.
    changed_.resize(keys_.size());
    for (size_t i = 0; i < keys_.size(); i++)
      changed_[i] = !marked || std::binary_search(marked->begin(), marked->end(), keys_[i]);
    for (size_t i = 0; i < quiet_.size(); i++)
      if (changed_[i]) quiet_[i] = false;
    // Most tries find nothing new. With fetch.min.bytes 1 any batch completes the fetch, so a try
    // first asks without reading; the log is read once, when the fetch completes.
    if (!expired && fetch_.min_bytes <= 1 && !fetch_ready(ctx_, fetch_, denied_, changed_)) return false;
    // The partitions still quiet are left out without a look, unless a change that marks nothing
    // may have reached them: a log start offset moved, the log directory failed, or the fetch
    // expires (a partition marked in the same instant has not been tried yet).
    const bool skip_quiet = !expired && !quiet_.empty() && ctx_.replicas.log_start_changes() == log_start_changes_ &&
                            !ctx_.replicas.log_dir_offline();
    FetchRead read = read_fetch(ctx_, fetch_, req_.header.api_version, denied_, context_, false, nullptr,
                                skip_quiet ? &quiet_ : nullptr);
    if (!expired && read.bytes < std::max(1, fetch_.min_bytes) && !read.has_error) return false;
    ctx_.channel.respond(req_, close_fetch_context(context_, std::move(read.response)));
    return true;
  }

  HandlerContext& ctx_;
  Request req_;
  FetchContext context_;
  const protocol::FetchRequest& fetch_;  // context_.reads
  std::set<std::string> denied_;
  std::vector<Purgatory::Key> keys_;  // of fetch_'s partitions, in its order
  PlaceFlags changed_;          // by place: marked since the last try (kept for its room)
  PlaceFlags quiet_;            // by place: left out when the fetch arrived, not marked since
  uint64_t log_start_changes_ = 0;
};

}  // namespace

void handle_fetch(HandlerContext& ctx, const Request& req, protocol::FetchRequest fetch) {
  const int16_t version = req.header.api_version;
  if (version >= kFetchVersionReplicaStateMin) fetch.replica_id = fetch.replica_state.replica_id;
  if (version >= kFetchVersionTopicIdMin) {
    for (auto& t : fetch.topics) t.topic = ctx.metadata.topic_name(t.topic_id).value_or("");
    for (auto& f : fetch.forgotten_topics_data) f.topic = ctx.metadata.topic_name(f.topic_id).value_or("");
  }
  FetchContext fc = open_fetch_context(ctx, std::move(fetch));
  if (fc.error != ErrorCode::NONE) return ctx.channel.respond(req, close_fetch_context(fc, {}));
  const protocol::FetchRequest& reads = fc.reads;
  // Kafka's rules: a follower needs ClusterAction on the cluster (else every partition is refused),
  // a consumer Read on each topic (of the session's too, for an incremental fetch).
  std::set<std::string> denied;
  const bool follower_allowed = reads.replica_id < 0 || authorize_cluster(ctx, req, AclOperation::kClusterAction);
  for (const auto& t : reads.topics)
    if (!t.topic.empty() && !denied.count(t.topic) &&
        (!follower_allowed || (reads.replica_id < 0 && !authorize(ctx, req, AclOperation::kRead, AclResourceType::kTopic, t.topic))))
      denied.insert(t.topic);
  // A follower's incremental fetch: which partitions were left out (most of a session, usually).
  PlaceFlags left_out;
  const bool follower_session = reads.replica_id >= 0 && fc.incremental;
  const uint64_t log_start_changes = ctx.replicas.log_start_changes();
  FetchRead read = read_fetch(ctx, reads, req.header.api_version, denied, fc, true, follower_session ? &left_out : nullptr);
  if (reads.max_wait_ms <= 0 || read.bytes >= std::max(1, reads.min_bytes) || read.has_error || reads.topics.empty())
    return ctx.channel.respond(req, close_fetch_context(fc, std::move(read.response)));
  const Duration wait = Duration::millis(reads.max_wait_ms);
  auto delayed = std::make_unique<DelayedFetch>(ctx, req, std::move(fc), std::move(denied), fetch_keys(reads));
  // The count from before the read: a log start moved during it disables the skip like any later one.
  if (follower_session) delayed->set_left_out(std::move(left_out), log_start_changes);
  const DelayedFetch& watching = *delayed;  // its keys stay where they are: the purgatory holds it
  ctx.replicas.fetch_purgatory().watch(std::move(delayed), watching.keys(), wait);
}

}  // namespace gregor::broker
