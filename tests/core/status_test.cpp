// Status and Result<T>: the carriers of expected failures.
#include <catch2/catch.hpp>

#include <iterator>
#include <memory>
#include <set>
#include <string>

#include "engine/core/status.h"

using namespace gregor;

namespace {
Status fails_with(StatusCode code) { return Status::error(code, "boom"); }

Status propagate(StatusCode code, int& reached) {
  GREGOR_RETURN_IF_ERROR(code == StatusCode::kOk ? Status::ok() : fails_with(code));
  reached++;
  return Status::ok();
}

Result<int> parse_positive(int v) {
  if (v <= 0) return Status::error(StatusCode::kInvalidArgument, "not positive: " + std::to_string(v));
  return v;
}
}  // namespace

TEST_CASE("Status: ok and error carry code, message and name") {
  Status ok = Status::ok();
  CHECK(ok.is_ok());
  CHECK(static_cast<bool>(ok));
  CHECK(ok.code() == StatusCode::kOk);
  CHECK(ok.to_string() == "OK");
  CHECK(Status().is_ok());

  Status full = Status::error(StatusCode::kDiskFull, "no room for 10 bytes");
  CHECK_FALSE(full.is_ok());
  CHECK_FALSE(static_cast<bool>(full));
  CHECK(full.code() == StatusCode::kDiskFull);
  CHECK(full.message() == "no room for 10 bytes");
  CHECK(full.to_string() == "DiskFull: no room for 10 bytes");
}

TEST_CASE("Status: every code has a distinct name") {
  const StatusCode codes[] = {StatusCode::kOk,         StatusCode::kNotFound,    StatusCode::kAlreadyExists,
                              StatusCode::kIoError,    StatusCode::kDiskFull,    StatusCode::kCorruption,
                              StatusCode::kInvalidArgument, StatusCode::kOutOfRange, StatusCode::kUnavailable,
                              StatusCode::kTimedOut};
  std::set<std::string> names;
  for (StatusCode c : codes) {
    std::string n = status_code_name(c);
    CHECK(n != "Unknown");
    names.insert(n);
  }
  CHECK(names.size() == std::size(codes));
  CHECK(std::string(status_code_name(StatusCode::kNotFound)) == "NotFound");
  CHECK(std::string(status_code_name(StatusCode::kCorruption)) == "Corruption");
}

TEST_CASE("GREGOR_RETURN_IF_ERROR returns the first error and continues on ok") {
  int reached = 0;
  CHECK(propagate(StatusCode::kOk, reached).is_ok());
  CHECK(reached == 1);
  Status s = propagate(StatusCode::kTimedOut, reached);
  CHECK(s.code() == StatusCode::kTimedOut);
  CHECK(s.message() == "boom");
  CHECK(reached == 1);
}

TEST_CASE("Result: a value or a status") {
  Result<int> good = parse_positive(5);
  REQUIRE(good.is_ok());
  CHECK(static_cast<bool>(good));
  CHECK(good.value() == 5);
  CHECK(*good == 5);
  CHECK(good.status().is_ok());

  Result<int> bad = parse_positive(-1);
  CHECK_FALSE(bad.is_ok());
  CHECK(bad.status().code() == StatusCode::kInvalidArgument);
  CHECK(bad.status().message() == "not positive: -1");
}

TEST_CASE("Result: holds move-only values and moves them out") {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(7));
  REQUIRE(r.is_ok());
  CHECK(**r == 7);
  std::unique_ptr<int> taken = std::move(r).value();
  REQUIRE(taken);
  CHECK(*taken == 7);

  Result<std::string> s(std::string("abc"));
  CHECK(s->size() == 3);
  const Result<std::string>& cs = s;
  CHECK(cs.value() == "abc");
}
