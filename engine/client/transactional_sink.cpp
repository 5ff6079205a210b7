#include "engine/client/transactional_sink.h"

#include <algorithm>

#include "engine/protocol/errors.h"
#include "engine/record/crc32c.h"

namespace gregor::client {

using protocol::ErrorCode;

namespace {

void write_tp(ByteWriter& w, const TopicPartition& tp) {
  w.string(tp.topic);
  w.i32(tp.partition);
}

TopicPartition read_tp(ByteReader& r) {
  TopicPartition tp;
  tp.topic = r.string();
  tp.partition = r.i32();
  return tp;
}

}  // namespace

Bytes encode_sink_read_offsets(int32_t correlation_id, const std::string& group, const std::vector<TopicPartition>& tps) {
  ByteWriter w;
  w.i32(correlation_id);
  w.i8(kSinkReadOffsets);
  w.string(group);
  w.i32(static_cast<int32_t>(tps.size()));
  for (const auto& tp : tps) write_tp(w, tp);
  return w.take();
}

Bytes encode_sink_write(int32_t correlation_id, const std::string& group, const std::string& member, int32_t generation,
                        const std::vector<SinkPartitionWrite>& writes) {
  ByteWriter w;
  w.i32(correlation_id);
  w.i8(kSinkWrite);
  w.string(group);
  w.string(member);
  w.i32(generation);
  w.i32(static_cast<int32_t>(writes.size()));
  for (const auto& pw : writes) {
    write_tp(w, pw.tp);
    w.i64(pw.first_offset);
    w.i64(pw.next_offset);
    w.i32(static_cast<int32_t>(pw.records.size()));
    for (const auto& [offset, id] : pw.records) {
      w.i64(offset);
      w.string(id);
    }
  }
  return w.take();
}

void TransactionalSinkNode::start() {
  recover();
  rt_.emit(ev::SinkStart{.transactions = transactions_, .records = records_stored_});
}

int64_t TransactionalSinkNode::next_offset(const std::string& group, const TopicPartition& tp) const {
  auto it = next_offsets_.find({group, tp});
  return it == next_offsets_.end() ? -1 : it->second;
}

// ---------------------------------------------------------------------------------------------
// The journal.

void TransactionalSinkNode::apply_payload(ByteView payload) {
  ByteReader r(payload);
  std::string group = r.string();
  (void)r.string();  // member
  (void)r.i32();     // generation
  int32_t n = r.array_count(2 + 4 + 8 + 4);
  for (int32_t i = 0; i < n && r.ok(); i++) {
    TopicPartition tp = read_tp(r);
    int64_t next = r.i64();
    int32_t records = r.array_count(8 + 2);
    for (int32_t k = 0; k < records && r.ok(); k++) {
      (void)r.i64();
      (void)r.string();
    }
    if (!r.ok()) break;
    next_offsets_[{group, tp}] = next;
    records_stored_ += records;
  }
  transactions_++;
}

Status TransactionalSinkNode::append_entry(const Bytes& payload) {
  GREGOR_ASSERT(payload.size() <= kSinkEntryBytesMax);
  ByteWriter w;
  w.u32(static_cast<uint32_t>(payload.size()));
  w.u32(record::crc32c(as_view(payload)));
  w.raw(as_view(payload));
  auto pos = rt_.disk().append(kSinkJournalPath, as_view(w.bytes_ref()));
  if (!pos) return pos.status();
  return rt_.disk().fsync(kSinkJournalPath);
}

void TransactionalSinkNode::recover() {
  Disk& d = rt_.disk();
  if (!d.exists(kSinkJournalPath)) {
    Status s = d.create(kSinkJournalPath);
    if (!s.is_ok()) healthy_ = false;
    return;
  }
  auto data = d.read_all(kSinkJournalPath);
  if (!data) {
    healthy_ = false;
    rt_.log("sink: cannot read the journal: " + data.status().to_string());
    return;
  }
  size_t pos = 0;
  const size_t size = data->size();
  while (size - pos >= 8) {
    ByteReader h(ByteView(data->data() + pos, 8));
    const uint32_t len = h.u32();
    const uint32_t crc = h.u32();
    if (len > kSinkEntryBytesMax || size - pos - 8 < len) break;  // torn tail
    ByteView payload(data->data() + pos + 8, len);
    if (record::crc32c(payload) != crc) break;  // corrupt tail
    apply_payload(payload);
    pos += 8 + len;
  }
  const uint64_t truncated = size - pos;
  if (truncated > 0) {
    // The entry being written when the process died was never acknowledged: drop it.
    Status s = d.truncate(kSinkJournalPath, pos);
    if (s.is_ok()) s = d.fsync(kSinkJournalPath);
    if (!s.is_ok()) healthy_ = false;
  }
  rt_.emit(ev::SinkRecover{
      .transactions = transactions_, .records = records_stored_, .truncated_bytes = static_cast<int64_t>(truncated)});
}

// ---------------------------------------------------------------------------------------------
// Requests.

void TransactionalSinkNode::on_message(NodeId from, Bytes frame) {
  if (!is_inbound_connection(from)) return;  // the sink opens no connections
  ByteReader r(as_view(frame));
  const int32_t correlation_id = r.i32();
  const int8_t kind = r.i8();
  if (!r.ok()) return;
  if (kind == kSinkReadOffsets) return handle_read_offsets(from, correlation_id, r);
  if (kind == kSinkWrite) return handle_write(from, correlation_id, r);
  rt_.log("sink: unknown request kind " + std::to_string(kind));
}

void TransactionalSinkNode::handle_read_offsets(NodeId from, int32_t correlation_id, ByteReader& r) {
  std::string group = r.string();
  int32_t n = r.array_count(2 + 4);
  std::vector<TopicPartition> tps;
  for (int32_t i = 0; i < n && r.ok(); i++) tps.push_back(read_tp(r));
  if (!r.ok()) return;
  ByteWriter w;
  w.i32(correlation_id);
  w.i16(static_cast<int16_t>(healthy_ ? ErrorCode::NONE : ErrorCode::KAFKA_STORAGE_ERROR));
  w.i32(static_cast<int32_t>(tps.size()));
  for (const auto& tp : tps) {
    write_tp(w, tp);
    w.i64(next_offset(group, tp));
  }
  rt_.send(from, w.take());
}

void TransactionalSinkNode::handle_write(NodeId from, int32_t correlation_id, ByteReader& r) {
  const std::string group = r.string();
  const std::string member = r.string();
  const int32_t generation = r.i32();
  int32_t n = r.array_count(2 + 4 + 8 + 8 + 4);
  std::vector<SinkPartitionWrite> writes;
  for (int32_t i = 0; i < n && r.ok(); i++) {
    SinkPartitionWrite pw;
    pw.tp = read_tp(r);
    pw.first_offset = r.i64();
    pw.next_offset = r.i64();
    int32_t records = r.array_count(8 + 2);
    for (int32_t k = 0; k < records && r.ok(); k++) {
      int64_t offset = r.i64();
      pw.records.emplace_back(offset, r.string());
    }
    writes.push_back(std::move(pw));
  }
  if (!r.ok()) return;
  // Decide the transaction: per partition, apply what is new, skip what is stored, refuse gaps.
  std::vector<SinkWriteResult> results;
  std::vector<SinkPartitionWrite> applied;
  int64_t skipped = 0, refused = 0;
  for (const auto& pw : writes) {
    SinkWriteResult res;
    res.tp = pw.tp;
    const int64_t stored = next_offset(group, pw.tp);
    if (stored >= 0 && pw.first_offset > stored) {
      res.next_offset = stored;
      res.gap = true;
      refused++;
      results.push_back(res);
      continue;
    }
    SinkPartitionWrite a;
    a.tp = pw.tp;
    a.first_offset = std::max(stored, pw.first_offset);
    a.next_offset = std::max(stored, pw.next_offset);
    int64_t expected = stored;
    for (const auto& rec : pw.records) {
      if (rec.first < expected) {
        skipped++;
        continue;
      }
      a.records.push_back(rec);
      expected = rec.first + 1;
    }
    res.next_offset = a.next_offset;
    res.applied = static_cast<int32_t>(a.records.size());
    results.push_back(res);
    if (a.next_offset != stored) applied.push_back(std::move(a));
  }
  ErrorCode code = healthy_ ? ErrorCode::NONE : ErrorCode::KAFKA_STORAGE_ERROR;
  if (code == ErrorCode::NONE && !applied.empty()) {
    ByteWriter p;
    p.string(group);
    p.string(member);
    p.i32(generation);
    p.i32(static_cast<int32_t>(applied.size()));
    for (const auto& a : applied) {
      write_tp(p, a.tp);
      p.i64(a.next_offset);
      p.i32(static_cast<int32_t>(a.records.size()));
      for (const auto& [offset, id] : a.records) {
        p.i64(offset);
        p.string(id);
      }
    }
    Bytes payload = p.take();
    Status s = append_entry(payload);
    if (!s.is_ok()) {
      // Nothing is acknowledged; the writer retries. The journal may hold a torn entry, which the
      // next recovery cuts off, so stop accepting writes until then.
      rt_.log("sink: journal write failed: " + s.to_string());
      healthy_ = false;
      code = ErrorCode::KAFKA_STORAGE_ERROR;
    } else {
      apply_payload(as_view(payload));
      // Durable: the records are now output, exactly once.
      for (const auto& a : applied)
        for (const auto& [offset, id] : a.records)
          rt_.emit(ev::Consume{.group = group,
                               .member = member,
                               .generation = generation,
                               .mode = "exactly-once",
                               .topic = a.tp.topic,
                               .partition = a.tp.partition,
                               .offset = offset,
                               .value = id});
    }
  }
  int64_t applied_records = 0;
  for (const auto& res : results) applied_records += res.applied;
  rt_.emit(ev::SinkWrite{.group = group,
                         .member = member,
                         .generation = generation,
                         .applied = code == ErrorCode::NONE ? applied_records : 0,
                         .skipped = skipped,
                         .refused = refused,
                         .error = protocol::error_name(code)});
  ByteWriter w;
  w.i32(correlation_id);
  w.i16(static_cast<int16_t>(code));
  w.i32(static_cast<int32_t>(results.size()));
  for (const auto& res : results) {
    write_tp(w, res.tp);
    w.i64(res.next_offset);
    w.i32(code == ErrorCode::NONE ? res.applied : 0);
    w.i8(res.gap ? 1 : 0);
  }
  rt_.send(from, w.take());
}

}  // namespace gregor::client
