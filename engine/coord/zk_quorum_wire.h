// The messages zk servers of a replicated ensemble exchange (engine/coord/zk_ensemble.cpp):
// leader election notifications, the leader/follower handshake and sync, proposals, acks and
// commits, forwarded client writes and heartbeats. Gregor's own encoding (ZooKeeper's quorum
// protocol is not something stock tools speak), kept simple: every message carries every field.
//
// Frame: magic:uint32 ("ZKQ1") type:int8 sender:int32, then the fields in QuorumMessage's order
// (int64s, Kafka-style BYTES for byte strings, int32 counts before lists; a txn is BYTES holding
// encode_txn). A client's first frame is a ConnectRequest, which begins with protocolVersion 0,
// so the magic tells a peer's connection from a client's.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/coord/zk_txn.h"

namespace gregor::coord {

inline constexpr uint32_t kQuorumMagic = 0x5a4b5131;  // "ZKQ1"

enum class QuorumType : int8_t {
  kNotification = 1,  // election: the sender's state and vote
  kFollowerInfo = 2,  // follower -> leader: accepted/current epoch, last logged zxid
  kLeaderInfo = 3,    // leader -> follower: the new epoch
  kSnap = 4,          // leader -> follower: the whole committed database
  kDiff = 5,          // leader -> follower: the committed txns it misses
  kProposal = 6,      // leader -> follower: one txn to log (txns[0])
  kNewLeader = 7,     // leader -> follower: end of sync
  kAckNewLeader = 8,  // follower -> leader: synced and durable in the new epoch
  kUpToDate = 9,      // leader -> follower: serve clients
  kAck = 10,          // follower -> leader: every proposal up to zxid is durable here
  kCommit = 11,       // leader -> follower: every proposal up to zxid is committed
  kRequest = 12,      // follower -> leader: a client write to prepare (forward_id names it)
  kRequestResult = 13,  // leader -> follower: its txn's zxid, or its error
  kPing = 14,         // both ways: liveness; a follower's carries the sessions its clients touched
  kReject = 15,       // leader -> would-be follower: not leading (go back to the election)
  kTrunc = 16,        // leader -> follower: drop every logged txn after zxid (a DIFF follows)
};

// Election states (ZooKeeper's ServerState).
enum class PeerState : int32_t { kLooking = 0, kFollowing = 1, kLeading = 2 };

// A vote in the election: the server it names, and the voter's current epoch and last logged zxid
// (a voter adopting a better vote takes its epoch and zxid along).
struct QuorumVote {
  int32_t leader = 0;
  int64_t epoch = 0;
  int64_t zxid = 0;
  bool operator==(const QuorumVote&) const = default;
};
// Whether a wins over b: FastLeaderElection's totalOrderPredicate, the current epoch first, then
// the zxid, then the server id. The epoch comes first because a server that acknowledged a newer
// leader may hold fewer txns of an older epoch than one that did not: those extra txns were never
// committed, and the newer epoch's history must win.
bool vote_beats(const QuorumVote& a, const QuorumVote& b);

// Request kinds a follower forwards.
enum class ForwardKind : int32_t { kOps = 0, kCreateSession = 1, kCloseSession = 2 };

struct QuorumMessage {
  QuorumType type = QuorumType::kPing;
  int32_t sender = 0;  // node id
  // Notification.
  PeerState state = PeerState::kLooking;
  int64_t round = 0;
  int32_t vote_leader = 0;
  int64_t vote_epoch = 0;
  int64_t vote_zxid = 0;
  // Handshake and sync.
  int64_t accepted_epoch = 0;
  int64_t current_epoch = 0;
  int64_t epoch = 0;
  int64_t zxid = 0;
  int64_t snapshot_zxid = 0;  // FOLLOWERINFO: the follower's newest snapshot (it cannot TRUNC below it)
  Bytes snapshot;
  std::vector<Txn> txns;
  // Forwarding.
  int64_t forward_id = 0;
  ForwardKind kind = ForwardKind::kOps;
  int64_t session = 0;
  int32_t xid = 0;
  int32_t timeout_ms = 0;
  Bytes password;
  Bytes frame;  // the client's request frame (kOps)
  int32_t error = 0;
  std::vector<int32_t> op_errors;  // a failed multi's per-op errors
  // Ping.
  std::vector<int64_t> sessions;
};

Bytes encode_quorum_message(const QuorumMessage& m);
// False unless the frame is a whole, well-formed quorum message.
bool decode_quorum_message(ByteView frame, QuorumMessage* out);
// Whether a frame begins with the quorum magic.
bool is_quorum_frame(ByteView frame);

}  // namespace gregor::coord
