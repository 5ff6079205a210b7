#include "engine/client/producer_node.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace gregor::client {

namespace {
constexpr Duration kTick = Duration::millis(10);  // records are released in 10 ms slices
}

ProducerNode::ProducerNode(Runtime& rt, ProducerConfig config, ProducerWorkload workload)
    : rt_(rt), workload_(std::move(workload)), producer_(rt, std::move(config)) {}

void ProducerNode::start() {
  producer_.start();
  Duration wait = workload_.start_at > rt_.now() ? workload_.start_at - rt_.now() : Duration{0};
  last_tick_ = rt_.now() + wait;
  rt_.after(wait, [this] { tick(); });
}

void ProducerNode::tick() {
  const Time now = rt_.now();
  const bool done = now >= workload_.stop_at || (workload_.max_records >= 0 && sent_ >= workload_.max_records);
  if (done) {
    // A transactional producer commits what it has open before it stops.
    if (producer_.transactional() && txn_ == Txn::kOpen) end_transaction(true);
    if (!producer_.transactional() || txn_ != Txn::kEnding) return;
    rt_.after(kTick, [this] { tick(); });
    return;
  }
  credit_ += workload_.rate_per_sec * static_cast<double>((now - last_tick_).us) / 1e6;
  last_tick_ = now;
  // Back-pressure, as buffer.memory does: do not queue without bound while brokers are away.
  const size_t max_pending = static_cast<size_t>(std::max(1000.0, workload_.rate_per_sec * 10));
  while (credit_ >= 1 && producer_.pending() < max_pending &&
         (workload_.max_records < 0 || sent_ < workload_.max_records)) {
    if (producer_.transactional() && !transaction_step()) break;
    credit_ -= 1;
    send_one();
    if (producer_.transactional() && ++txn_sent_ >= std::max<int64_t>(workload_.transaction_records, 1)) {
      const bool abort = workload_.abort_every > 0 && txn_number_ % workload_.abort_every == 0;
      end_transaction(!abort);
    }
  }
  if (txn_ == Txn::kStopped) return;
  if (credit_ > 1000) credit_ = 1000;  // do not build an unbounded backlog of credit
  rt_.after(kTick, [this] { tick(); });
}

bool ProducerNode::transaction_step() {
  switch (txn_) {
    case Txn::kUninitialized:
      txn_ = Txn::kInitializing;
      producer_.init_transactions([this](protocol::ErrorCode e) {
        if (e == protocol::ErrorCode::NONE)
          txn_ = Txn::kIdle;
        else
          txn_ = producer_.fatal_error() != protocol::ErrorCode::NONE ? Txn::kStopped : Txn::kUninitialized;
      });
      return false;
    case Txn::kIdle:
      if (producer_.begin_transaction() != protocol::ErrorCode::NONE) {
        // Fenced: stop. Otherwise the producer lost its id (an epoch bump that failed): take one again.
        txn_ = producer_.fatal_error() != protocol::ErrorCode::NONE ? Txn::kStopped : Txn::kUninitialized;
        return false;
      }
      txn_ = Txn::kOpen;
      txn_sent_ = 0;
      txn_number_++;
      return true;
    case Txn::kOpen: return true;
    case Txn::kInitializing:
    case Txn::kEnding:
    case Txn::kStopped: return false;
  }
  return false;
}

void ProducerNode::end_transaction(bool commit) {
  txn_ = Txn::kEnding;
  auto done = [this](protocol::ErrorCode e) {
    if (producer_.fatal_error() != protocol::ErrorCode::NONE) {
      txn_ = Txn::kStopped;  // fenced: a newer instance owns the transactional id
    } else if (e == protocol::ErrorCode::NONE) {
      txn_ = Txn::kIdle;
    } else if (producer_.in_transaction()) {
      // A failed commit or abort leaves the transaction open and abortable: abort it, after a
      // pause so that a coordinator that timed out has time to come back.
      rt_.after(Duration::millis(100), [this] { end_transaction(false); });
    } else {
      txn_ = Txn::kIdle;  // nothing open (an INVALID_TXN_STATE): begin the next one
    }
  };
  if (commit)
    producer_.commit_transaction(done);
  else
    producer_.abort_transaction(done);
}

namespace {
// Sets out to prefix followed by n in decimal, padded with `pad` to pad_to bytes: the same bytes as
// to_bytes(prefix + std::to_string(n)), without building the strings (this runs once per record).
void set_decimal_bytes(std::optional<Bytes>& out, std::string_view prefix, int64_t n, size_t pad_to, uint8_t pad) {
  char buf[32];
  auto end = std::to_chars(buf, buf + sizeof buf, n).ptr;
  const size_t digits = static_cast<size_t>(end - buf);
  if (!out) out.emplace();
  out->assign(std::max(prefix.size() + digits, pad_to), pad);
  std::memcpy(out->data(), prefix.data(), prefix.size());
  std::memcpy(out->data() + prefix.size(), buf, digits);
}
}  // namespace

void ProducerNode::send_one() {
  const int64_t seq = sent_++;
  ProducerRecord& r = next_;
  r.topic = workload_.topic;
  // "p<node>-<seq>", padded with '.' to value_bytes.
  char prefix[24] = {'p'};
  char* at = std::to_chars(prefix + 1, prefix + sizeof prefix - 1, rt_.self().value).ptr;
  *at++ = '-';
  set_decimal_bytes(r.value, std::string_view(prefix, static_cast<size_t>(at - prefix)), seq,
                    static_cast<size_t>(std::max(workload_.value_bytes, 0)), '.');
  if (workload_.key_pattern == "seq") {
    set_decimal_bytes(r.key, "", seq, 0, 0);
  } else if (workload_.key_pattern.rfind("mod:", 0) == 0) {
    long n = std::max(1L, std::strtol(workload_.key_pattern.c_str() + 4, nullptr, 10));
    set_decimal_bytes(r.key, "k", seq % n, 0, 0);
  } else {
    r.key.reset();
  }
  producer_.send(r, [this](const RecordMetadata& md) {
    if (md.error == protocol::ErrorCode::NONE)
      acked_++;
    else
      failed_++;
  });
}

}  // namespace gregor::client
