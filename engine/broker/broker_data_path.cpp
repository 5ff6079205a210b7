// The broker's data path: Produce, Fetch, ListOffsets, and the purgatory where acks=all produces
// and long-polling fetches wait.
#include <algorithm>

#include "engine/broker/broker.h"
#include "engine/broker/delayed_operations.h"
#include "engine/protocol/list_offsets.h"
#include "engine/record/record_batch.h"

namespace gregor::broker {

using protocol::ErrorCode;

void Broker::handle_produce(const Request& req, ByteReader& r) {
  auto decoded = protocol::ProduceRequest::decode(r, req.header.api_version);
  if (!decoded) {
    return close_bad_request(req.from, "malformed Produce: " + decoded.status().to_string());
  }
  protocol::ProduceRequest& pr = *decoded;
  const int16_t acks = pr.acks;
  auto d = std::make_unique<DelayedProduce>();
  d->req = req;
  for (auto& t : pr.topic_data) {
    protocol::ProduceResponse::TopicProduceResponse tr;
    tr.name = t.name;
    for (auto& pd : t.partition_data) {
      protocol::ProduceResponse::PartitionProduceResponse resp;
      resp.index = pd.index;
      TopicPartition tp{t.name, pd.index};
      Partition* p = partition(tp);
      if (acks != 0 && acks != 1 && acks != -1) {
        resp.error_code = ErrorCode::INVALID_REQUIRED_ACKS;
      } else if (!p) {
        resp.error_code = metadata_.partition(tp) ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      } else if (!pd.records || pd.records->empty()) {
        resp.error_code = ErrorCode::CORRUPT_MESSAGE;
      } else {
        LeaderAppend a = p->append_as_leader(std::move(*pd.records), acks, rt_.now());
        resp.error_code = a.error;
        if (a.error == ErrorCode::NONE) {
          resp.base_offset = a.base_offset.value;
          resp.log_start_offset = a.log_start.value;
          if (acks == -1)
            d->waits.push_back({d->response.responses.size(), tr.partition_responses.size(), tp, a.last_offset + 1});
        } else {
          resp.base_offset = -1;
        }
      }
      if (resp.error_code != ErrorCode::NONE)
        rt_.emit("produce_rejected", {{"topic", tp.topic}, {"partition", tp.partition},
                                      {"error", protocol::error_name(resp.error_code)}});
      tr.partition_responses.push_back(resp);
    }
    d->response.responses.push_back(std::move(tr));
  }
  if (acks == 0) return finish(req.from);  // acks=0: no response at all
  if (d->waits.empty()) return respond(req, d->response);
  if (try_complete_produce(*d, false)) return;
  uint64_t id = next_delayed_id_++;
  d->timer = rt_.after(Duration::millis(std::max(0, pr.timeout_ms)), [this, id] {
    auto it = delayed_produce_.find(id);
    if (it == delayed_produce_.end()) return;
    auto op = std::move(it->second);
    delayed_produce_.erase(it);
    try_complete_produce(*op, true);
  });
  delayed_produce_[id] = std::move(d);
}

bool Broker::try_complete_produce(DelayedProduce& d, bool expired) {
  bool all_done = true;
  for (auto& w : d.waits) {
    if (w.done) continue;
    Partition* p = partition(w.tp);
    ErrorCode code = p ? p->check_enough_replicas_reach(w.required) : ErrorCode::NOT_LEADER_OR_FOLLOWER;
    if (code == ErrorCode::REQUEST_TIMED_OUT && !expired) {
      all_done = false;
      continue;
    }
    w.done = true;
    d.response.responses[w.topic_index].partition_responses[w.partition_index].error_code = code;
  }
  if (!all_done) return false;
  if (d.timer.value) rt_.cancel(d.timer);
  respond(d.req, d.response);
  return true;
}

protocol::FetchResponse Broker::read_fetch(const protocol::FetchRequest& req, int32_t& bytes, bool& has_error) {
  protocol::FetchResponse resp;
  bytes = 0;
  has_error = false;
  const bool from_follower = req.replica_id >= 0;
  for (const auto& t : req.topics) {
    protocol::FetchResponse::FetchableTopicResponse tr;
    tr.topic = t.topic;
    for (const auto& fp : t.partitions) {
      protocol::FetchResponse::PartitionData pd;
      pd.partition_index = fp.partition;
      pd.aborted_transactions = std::vector<protocol::FetchResponse::AbortedTransaction>{};
      TopicPartition tp{t.topic, fp.partition};
      Partition* p = partition(tp);
      if (!p) {
        pd.error_code = metadata_.partition(tp) ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      } else {
        LeaderRead lr = from_follower
                            ? p->fetch_for_follower(req.replica_id, Offset{fp.fetch_offset}, fp.current_leader_epoch, -1,
                                                    fp.partition_max_bytes, rt_.now())
                            : p->fetch_for_consumer(Offset{fp.fetch_offset}, fp.current_leader_epoch, fp.partition_max_bytes);
        pd.error_code = lr.error;
        pd.high_watermark = lr.high_watermark.value;
        pd.last_stable_offset = lr.high_watermark.value;
        pd.log_start_offset = lr.log_start.value;
        if (!lr.records.empty()) {
          bytes += static_cast<int32_t>(lr.records.size());
          pd.records = std::move(lr.records);
        } else {
          pd.records = Bytes{};
        }
      }
      if (pd.error_code != ErrorCode::NONE) has_error = true;
      tr.partitions.push_back(std::move(pd));
    }
    resp.responses.push_back(std::move(tr));
  }
  return resp;
}

void Broker::handle_fetch(const Request& req, ByteReader& r) {
  auto decoded = protocol::FetchRequest::decode(r, req.header.api_version);
  if (!decoded) {
    return close_bad_request(req.from, "malformed Fetch: " + decoded.status().to_string());
  }
  int32_t bytes = 0;
  bool has_error = false;
  auto resp = read_fetch(*decoded, bytes, has_error);
  if (decoded->max_wait_ms <= 0 || bytes >= std::max(1, decoded->min_bytes) || has_error || decoded->topics.empty())
    return respond(req, resp);
  auto d = std::make_unique<DelayedFetch>();
  d->req = req;
  d->fetch = std::move(*decoded);
  uint64_t id = next_delayed_id_++;
  d->timer = rt_.after(Duration::millis(d->fetch.max_wait_ms), [this, id] {
    auto it = delayed_fetch_.find(id);
    if (it == delayed_fetch_.end()) return;
    auto op = std::move(it->second);
    delayed_fetch_.erase(it);
    try_complete_fetch(*op, true);
  });
  delayed_fetch_[id] = std::move(d);
}

bool Broker::try_complete_fetch(DelayedFetch& d, bool expired) {
  int32_t bytes = 0;
  bool has_error = false;
  auto resp = read_fetch(d.fetch, bytes, has_error);
  if (!expired && bytes < std::max(1, d.fetch.min_bytes) && !has_error) return false;
  if (d.timer.value) rt_.cancel(d.timer);
  respond(d.req, resp);
  return true;
}

void Broker::schedule_delayed_check() {
  if (delayed_check_scheduled_) return;
  if (delayed_produce_.empty() && delayed_fetch_.empty()) return;
  delayed_check_scheduled_ = true;
  rt_.after(Duration{0}, [this] {
    delayed_check_scheduled_ = false;
    check_delayed();
  });
}

void Broker::check_delayed() {
  std::vector<uint64_t> ids;
  for (const auto& [id, d] : delayed_produce_) ids.push_back(id);
  for (uint64_t id : ids) {
    auto it = delayed_produce_.find(id);
    if (it == delayed_produce_.end()) continue;
    if (try_complete_produce(*it->second, false)) delayed_produce_.erase(id);
  }
  ids.clear();
  for (const auto& [id, d] : delayed_fetch_) ids.push_back(id);
  for (uint64_t id : ids) {
    auto it = delayed_fetch_.find(id);
    if (it == delayed_fetch_.end()) continue;
    if (try_complete_fetch(*it->second, false)) delayed_fetch_.erase(id);
  }
}

namespace {
// The first committed batch whose max timestamp is at or after `timestamp`: segments whose newest
// record is older are skipped, the rest is read batch by batch. Returns (offset, timestamp), or
// (-1, -1) when there is none.
Result<std::pair<int64_t, int64_t>> offset_for_timestamp(Partition& p, int64_t timestamp) {
  const Offset hw = p.high_watermark();
  Offset from = p.log_start_offset();
  for (const auto& seg : p.log().segments())
    if (seg.max_timestamp < timestamp && seg.next_offset <= hw) from = seg.next_offset;
  while (from < hw) {
    auto read = p.log().read(from, 1, hw);
    if (!read) return read.status();
    if (read->records.empty()) break;
    auto h = record::parse_batch_header(as_view(read->records), false);
    if (!h) return h.status();
    if (h->max_timestamp >= timestamp) return std::make_pair(std::max(h->base_offset, from.value), h->max_timestamp);
    from = Offset{h->next_offset()};
  }
  return std::make_pair(int64_t{-1}, int64_t{-1});
}
}  // namespace

void Broker::handle_list_offsets(const Request& req, ByteReader& r) {
  auto decoded = protocol::ListOffsetsRequest::decode(r, req.header.api_version);
  if (!decoded) {
    return close_bad_request(req.from, "malformed ListOffsets: " + decoded.status().to_string());
  }
  protocol::ListOffsetsResponse resp;
  for (const auto& t : decoded->topics) {
    protocol::ListOffsetsResponse::ListOffsetsTopicResponse tr;
    tr.name = t.name;
    for (const auto& lp : t.partitions) {
      protocol::ListOffsetsResponse::ListOffsetsPartitionResponse pr;
      pr.partition_index = lp.partition_index;
      TopicPartition tp{t.name, lp.partition_index};
      Partition* p = partition(tp);
      if (!p || !p->is_leader()) {
        pr.error_code = metadata_.partition(tp) ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      } else if (lp.timestamp == protocol::kListOffsetsEarliestTimestamp) {
        pr.offset = p->log_start_offset().value;
      } else if (lp.timestamp == protocol::kListOffsetsLatestTimestamp) {
        // A consumer sees the end of what is committed; a replica the end of the log.
        pr.offset = decoded->replica_id >= 0 ? p->log_end_offset().value : p->high_watermark().value;
      } else {
        auto found = offset_for_timestamp(*p, lp.timestamp);
        if (!found) {
          pr.error_code = ErrorCode::KAFKA_STORAGE_ERROR;
        } else {
          pr.offset = found->first;  // -1: no committed record at or after that time
          pr.timestamp = found->second;
        }
      }
      tr.partitions.push_back(pr);
    }
    resp.topics.push_back(std::move(tr));
  }
  respond(req, resp);
}

}  // namespace gregor::broker
