#include "engine/broker/producer_id_manager.h"

#include <cstdlib>

#include "engine/core/json.h"

namespace gregor::broker {

using coord::ZkError;

namespace {
constexpr int kClaimAttempts = 10;
}

Bytes ProducerIdBlock::encode() const {
  Json::Object o;
  o["version"] = Json(1);
  o["broker"] = Json(broker);
  o["block_start"] = Json(std::to_string(first));  // Kafka writes both bounds as strings
  o["block_end"] = Json(std::to_string(last));
  return to_bytes(Json(std::move(o)).dump());
}

Result<ProducerIdBlock> ProducerIdBlock::decode(ByteView data) {
  auto j = Json::parse(to_string(data));
  if (!j) return j.status();
  auto number = [&](const char* key) -> std::optional<int64_t> {
    const Json& v = (*j)[key];
    if (v.is_int()) return v.as_int();
    if (!v.is_string() || v.as_string().empty()) return std::nullopt;
    char* end = nullptr;
    long long n = std::strtoll(v.as_string().c_str(), &end, 10);
    if (*end != '\0') return std::nullopt;
    return static_cast<int64_t>(n);
  };
  auto first = number("block_start");
  auto last = number("block_end");
  if (!first || !last || *first < 0 || *last < *first)
    return Status::error(StatusCode::kCorruption, "malformed producer id block");
  ProducerIdBlock b;
  b.broker = static_cast<int32_t>((*j)["broker"].as_int(-1));
  b.first = *first;
  b.last = *last;
  return b;
}

void ProducerIdManager::generate(std::function<void(protocol::ErrorCode, int64_t)> done) {
  if (next_ <= last_) {
    done(protocol::ErrorCode::NONE, next_++);
    return;
  }
  if (waiting_.size() >= kProducerIdWaitersMax) {
    done(protocol::ErrorCode::COORDINATOR_NOT_AVAILABLE, -1);
    return;
  }
  waiting_.push_back(std::move(done));
  if (!claiming_) {
    claiming_ = true;
    claim_block(kClaimAttempts);
  }
}

void ProducerIdManager::claim_block(int attempts_left) {
  if (attempts_left == 0) return finish_claim(false);
  zk_.get_data(kProducerIdBlockPath, false, [this, attempts_left](ZkError err, Bytes data, coord::Stat stat) {
    const ProducerIdBlock first{broker_id_, 0, kProducerIdBlockSize - 1};
    if (err == ZkError::kNoNode) {
      zk_.create(kProducerIdBlockPath, first.encode(), coord::CreateMode::kPersistent,
                 [this, first, attempts_left](ZkError e2, std::string) {
                   if (e2 == ZkError::kOk) return take_block(first);
                   claim_block(attempts_left - 1);  // someone else created it first: read it again
                 });
      return;
    }
    if (err != ZkError::kOk) return finish_claim(false);
    // Brokers create the znode empty at startup (a top-level path), as Kafka's do: no block yet,
    // so the first one is written over it, conditionally like any other.
    if (data.empty()) return write_block(first, stat.version, attempts_left);
    auto current = ProducerIdBlock::decode(as_view(data));
    if (!current) {
      rt_.log(std::string(kProducerIdBlockPath) + ": " + current.status().to_string());
      return finish_claim(false);
    }
    write_block(ProducerIdBlock{broker_id_, current->last + 1, current->last + kProducerIdBlockSize}, stat.version,
                attempts_left);
  });
}

void ProducerIdManager::write_block(const ProducerIdBlock& block, int32_t expected_version, int attempts_left) {
  zk_.set_data(kProducerIdBlockPath, block.encode(), expected_version, [this, block, attempts_left](ZkError err, coord::Stat) {
    if (err == ZkError::kOk) return take_block(block);
    if (err == ZkError::kBadVersion) return claim_block(attempts_left - 1);
    finish_claim(false);
  });
}

void ProducerIdManager::take_block(const ProducerIdBlock& block) {
  next_ = block.first;
  last_ = block.last;
  rt_.emit(ev::ProducerIdBlock{.broker = broker_id_, .block_start = block.first, .block_end = block.last});
  finish_claim(true);
}

void ProducerIdManager::finish_claim(bool ok) {
  claiming_ = false;
  auto waiting = std::move(waiting_);
  waiting_.clear();
  for (auto& cb : waiting) {
    if (ok && next_ <= last_)
      cb(protocol::ErrorCode::NONE, next_++);
    else if (ok)
      generate(std::move(cb));  // the block ran out: claim another
    else
      cb(protocol::ErrorCode::COORDINATOR_NOT_AVAILABLE, -1);
  }
}

}  // namespace gregor::broker
