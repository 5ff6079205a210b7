#include "engine/coord/zk_quorum_wire.h"

namespace gregor::coord {

namespace {
constexpr size_t kListMax = 1'000'000;  // a bound on every count read
}

bool vote_beats(const QuorumVote& a, const QuorumVote& b) {
  if (a.epoch != b.epoch) return a.epoch > b.epoch;
  if (a.zxid != b.zxid) return a.zxid > b.zxid;
  return a.leader > b.leader;
}

bool is_quorum_frame(ByteView frame) {
  if (frame.size() < 4) return false;
  ByteReader r(frame);
  return r.u32() == kQuorumMagic;
}

Bytes encode_quorum_message(const QuorumMessage& m) {
  ByteWriter w;
  w.u32(kQuorumMagic);
  w.i8(static_cast<int8_t>(m.type));
  w.i32(m.sender);
  w.i32(static_cast<int32_t>(m.state));
  w.i64(m.round);
  w.i32(m.vote_leader);
  w.i64(m.vote_epoch);
  w.i64(m.vote_zxid);
  w.i64(m.accepted_epoch);
  w.i64(m.current_epoch);
  w.i64(m.epoch);
  w.i64(m.zxid);
  w.i64(m.snapshot_zxid);
  w.bytes(as_view(m.snapshot));
  w.i32(static_cast<int32_t>(m.txns.size()));
  for (const Txn& t : m.txns) {
    Bytes b = encode_txn(t);
    w.bytes(as_view(b));
  }
  w.i64(m.forward_id);
  w.i32(static_cast<int32_t>(m.kind));
  w.i64(m.session);
  w.i32(m.xid);
  w.i32(m.timeout_ms);
  w.bytes(as_view(m.password));
  w.bytes(as_view(m.frame));
  w.i32(m.error);
  w.i32(static_cast<int32_t>(m.op_errors.size()));
  for (int32_t e : m.op_errors) w.i32(e);
  w.i32(static_cast<int32_t>(m.sessions.size()));
  for (int64_t s : m.sessions) w.i64(s);
  return w.take();
}

bool decode_quorum_message(ByteView frame, QuorumMessage* out) {
  ByteReader r(frame);
  if (r.u32() != kQuorumMagic) return false;
  QuorumMessage m;
  const int8_t type = r.i8();
  if (type < 1 || type > static_cast<int8_t>(QuorumType::kTrunc)) return false;
  m.type = static_cast<QuorumType>(type);
  m.sender = r.i32();
  const int32_t state = r.i32();
  if (state < 0 || state > 2) return false;
  m.state = static_cast<PeerState>(state);
  m.round = r.i64();
  m.vote_leader = r.i32();
  m.vote_epoch = r.i64();
  m.vote_zxid = r.i64();
  m.accepted_epoch = r.i64();
  m.current_epoch = r.i64();
  m.epoch = r.i64();
  m.zxid = r.i64();
  m.snapshot_zxid = r.i64();
  m.snapshot = r.bytes();
  const int32_t txns = r.i32();
  if (!r.ok() || txns < 0 || static_cast<size_t>(txns) > kListMax) return false;
  for (int32_t i = 0; i < txns; i++) {
    Bytes b = r.bytes();
    Txn t;
    if (!r.ok() || !decode_txn(as_view(b), &t)) return false;
    m.txns.push_back(std::move(t));
  }
  m.forward_id = r.i64();
  const int32_t kind = r.i32();
  if (kind < 0 || kind > 2) return false;
  m.kind = static_cast<ForwardKind>(kind);
  m.session = r.i64();
  m.xid = r.i32();
  m.timeout_ms = r.i32();
  m.password = r.bytes();
  m.frame = r.bytes();
  m.error = r.i32();
  const int32_t errors = r.i32();
  if (!r.ok() || errors < 0 || static_cast<size_t>(errors) > kListMax) return false;
  for (int32_t i = 0; i < errors; i++) m.op_errors.push_back(r.i32());
  const int32_t sessions = r.i32();
  if (!r.ok() || sessions < 0 || static_cast<size_t>(sessions) > kListMax) return false;
  for (int32_t i = 0; i < sessions; i++) m.sessions.push_back(r.i64());
  if (!r.ok() || !r.at_end()) return false;
  *out = std::move(m);
  return true;
}

}  // namespace gregor::coord
