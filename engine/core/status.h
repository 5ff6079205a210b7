// Status and Result<T>: how an expected failure of the environment (disk full, peer gone, bad
// input) travels. A bug is an assertion instead (see assert.h); a protocol error is a Kafka error
// code inside a response. Exceptions do not cross module boundaries.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "engine/core/assert.h"

namespace gregor {

enum class StatusCode {
  kOk = 0,
  kNotFound,
  kAlreadyExists,
  kIoError,
  kDiskFull,
  kCorruption,
  kInvalidArgument,
  kOutOfRange,
  kUnavailable,
  kTimedOut,
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(StatusCode code, std::string message) {
    GREGOR_ASSERT(code != StatusCode::kOk);
    return Status(code, std::move(message));
  }
  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string to_string() const;

 private:
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) { GREGOR_ASSERT(!status_.is_ok()); }  // NOLINT
  bool is_ok() const { return value_.has_value(); }
  explicit operator bool() const { return is_ok(); }
  const Status& status() const { return status_; }
  T& value() & {
    GREGOR_ASSERT(value_.has_value());
    return *value_;
  }
  const T& value() const& {
    GREGOR_ASSERT(value_.has_value());
    return *value_;
  }
  T&& value() && {
    GREGOR_ASSERT(value_.has_value());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace gregor

#define GREGOR_RETURN_IF_ERROR(expr)              \
  do {                                            \
    ::gregor::Status _gregor_status = (expr);     \
    if (!_gregor_status.is_ok()) return _gregor_status; \
  } while (0)
