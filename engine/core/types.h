// Strong types for the identifiers and quantities that flow through Gregor.
//
// An offset cannot be passed where a leader epoch is expected: each id is its own type, built on
// StrongInt, with only the operations that make sense for it. Time and Duration count virtual
// microseconds in the simulator and steady-clock microseconds on real sockets; the engine cannot
// tell which.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace gregor {

template <typename Tag, typename Rep>
struct StrongInt {
  Rep value{};
  constexpr StrongInt() = default;
  constexpr explicit StrongInt(Rep v) : value(v) {}
  constexpr auto operator<=>(const StrongInt&) const = default;
  friend std::ostream& operator<<(std::ostream& os, const StrongInt& s) { return os << s.value; }
};

struct NodeIdTag {};
struct PartitionIdTag {};
struct LeaderEpochTag {};
struct GenerationIdTag {};
struct ProducerIdTag {};
struct TimerIdTag {};

// A node of the world: broker, zk server or client. Brokers use their broker.id.
using NodeId = StrongInt<NodeIdTag, int32_t>;
using PartitionId = StrongInt<PartitionIdTag, int32_t>;
using LeaderEpoch = StrongInt<LeaderEpochTag, int32_t>;
using GenerationId = StrongInt<GenerationIdTag, int32_t>;
using ProducerId = StrongInt<ProducerIdTag, int64_t>;
using TimerId = StrongInt<TimerIdTag, uint64_t>;

// A position in a partition's log. Offsets are arithmetic (next offset, distance), so they get the
// few operators that are meaningful; nothing converts them to epochs or ids.
struct Offset {
  int64_t value{};
  constexpr Offset() = default;
  constexpr explicit Offset(int64_t v) : value(v) {}
  constexpr auto operator<=>(const Offset&) const = default;
  constexpr Offset operator+(int64_t n) const { return Offset{value + n}; }
  constexpr Offset operator-(int64_t n) const { return Offset{value - n}; }
  constexpr int64_t operator-(Offset o) const { return value - o.value; }
  friend std::ostream& operator<<(std::ostream& os, Offset o) { return os << o.value; }
};

struct Duration {
  int64_t us{};
  constexpr Duration() = default;
  constexpr explicit Duration(int64_t micros) : us(micros) {}
  static constexpr Duration micros(int64_t n) { return Duration{n}; }
  static constexpr Duration millis(int64_t n) { return Duration{n * 1000}; }
  static constexpr Duration seconds(int64_t n) { return Duration{n * 1000000}; }
  constexpr int64_t ms() const { return us / 1000; }
  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration d) const { return Duration{us + d.us}; }
  constexpr Duration operator-(Duration d) const { return Duration{us - d.us}; }
  constexpr Duration operator*(int64_t n) const { return Duration{us * n}; }
  constexpr Duration operator/(int64_t n) const { return Duration{us / n}; }
};

struct Time {
  int64_t us{};  // microseconds since the start of the run (sim) or of the process (net)
  constexpr Time() = default;
  constexpr explicit Time(int64_t micros) : us(micros) {}
  constexpr int64_t ms() const { return us / 1000; }
  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Duration d) const { return Time{us + d.us}; }
  constexpr Time operator-(Duration d) const { return Time{us - d.us}; }
  constexpr Duration operator-(Time t) const { return Duration{us - t.us}; }
};

std::string format_time(Time t);  // "12.345678s"

}  // namespace gregor

template <typename Tag, typename Rep>
struct std::hash<gregor::StrongInt<Tag, Rep>> {
  size_t operator()(const gregor::StrongInt<Tag, Rep>& s) const noexcept { return std::hash<Rep>{}(s.value); }
};
template <>
struct std::hash<gregor::Offset> {
  size_t operator()(const gregor::Offset& o) const noexcept { return std::hash<int64_t>{}(o.value); }
};
