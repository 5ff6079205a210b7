// What a member hears when an append to __consumer_offsets failed. Kafka's GroupMetadataManager
// maps the append's error the same way for a group's metadata (storeGroup) and for offsets
// (storeOffsets), but for a timeout and a batch too large.
#pragma once

#include "engine/protocol/errors.h"

namespace gregor::group {

enum class StoreKind { kGroup, kOffsets };

inline protocol::ErrorCode store_error(protocol::ErrorCode e, StoreKind kind) {
  using protocol::ErrorCode;
  switch (e) {
    case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode::NOT_ENOUGH_REPLICAS:
    case ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND: return ErrorCode::COORDINATOR_NOT_AVAILABLE;
    case ErrorCode::NOT_LEADER_OR_FOLLOWER:
    case ErrorCode::KAFKA_STORAGE_ERROR: return ErrorCode::NOT_COORDINATOR;
    case ErrorCode::REQUEST_TIMED_OUT: return kind == StoreKind::kGroup ? ErrorCode::REBALANCE_IN_PROGRESS : e;
    case ErrorCode::MESSAGE_TOO_LARGE:
    case ErrorCode::RECORD_LIST_TOO_LARGE:
    case ErrorCode::INVALID_FETCH_SIZE:
      return kind == StoreKind::kGroup ? ErrorCode::UNKNOWN_SERVER_ERROR : ErrorCode::INVALID_COMMIT_OFFSET_SIZE;
    default: return e;
  }
}

}  // namespace gregor::group
