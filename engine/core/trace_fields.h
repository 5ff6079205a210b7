// The types a trace event's fields may have, and the macros that declare an event kind.
//
// A field is one of: int32_t, int64_t, bool, std::string, IntList (node ids: an ISR, a broker
// set), ReplicaAssignment (a topic's replicas, partition by partition), NameList (member ids,
// topic names), PartitionList (topic partitions) or MemberAssignments (a group's assignment), or
// std::optional of one of them (a field some events of the kind do not
// carry). Each kind is a plain struct (engine/core/trace_events.h) whose members are its fields, in
// the order they are written, hashed and shown; GREGOR_TRACE_FIELDS lists them once and gives the
// generic code (text, JSON, the fingerprint, reading a trace file back) one way to walk them:
// fields(s, visitor) calls visitor("name", s.name) for each member, const or not.
//
// Lists are written as text the way people read them ("1,2,3", "1,2,3;2,3,1", "orders-0,orders-1",
// "member=orders-0,orders-1;member2=") in JSON and in to_string(), so a trace reads the same in
// the sqlite3 shell as it always has; they are typed everywhere else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gregor {

using IntList = std::vector<int32_t>;
// Replica lists by partition: element p holds partition p's replicas in preference order.
using ReplicaAssignment = std::vector<IntList>;
using NameList = std::vector<std::string>;

// "orders-0": a topic and a partition (topic names never hold ','; the partition follows the last '-').
struct PartitionName {
  std::string topic;
  int32_t partition = 0;
  std::string str() const { return topic + "-" + std::to_string(partition); }
  friend bool operator==(const PartitionName&, const PartitionName&) = default;
  friend auto operator<=>(const PartitionName&, const PartitionName&) = default;
};
using PartitionList = std::vector<PartitionName>;

// One member's share of a group's assignment; no partitions when the group's protocol is not the
// consumer protocol (its assignment bytes mean nothing to the coordinator), written "member=?".
struct MemberAssignment {
  std::string member;
  std::optional<PartitionList> partitions;
  friend bool operator==(const MemberAssignment&, const MemberAssignment&) = default;
};
using MemberAssignments = std::vector<MemberAssignment>;

}  // namespace gregor

// GREGOR_TRACE_EVENT(Type, "kind") opens an event struct: its kind name and value equality.
#define GREGOR_TRACE_EVENT(Type, kind_name)        \
  static constexpr const char* kKind = kind_name;  \
  friend bool operator==(const Type&, const Type&) = default

// GREGOR_TRACE_FIELDS(a, b, c) lists the struct's fields, in order (at most 12).
#define GREGOR_TRACE_FIELDS(...)                  \
  template <class Self, class Visitor>            \
  static void fields(Self& s, Visitor&& v) {      \
    GREGOR_TRACE_FOR_EACH(GREGOR_TRACE_VISIT, __VA_ARGS__) \
  }
#define GREGOR_TRACE_NO_FIELDS()        \
  template <class Self, class Visitor>  \
  static void fields(Self&, Visitor&&) {}

#define GREGOR_TRACE_VISIT(name) v(#name, s.name);
#define GREGOR_TRACE_FE_1(m, a) m(a)
#define GREGOR_TRACE_FE_2(m, a, ...) m(a) GREGOR_TRACE_FE_1(m, __VA_ARGS__)
#define GREGOR_TRACE_FE_3(m, a, ...) m(a) GREGOR_TRACE_FE_2(m, __VA_ARGS__)
#define GREGOR_TRACE_FE_4(m, a, ...) m(a) GREGOR_TRACE_FE_3(m, __VA_ARGS__)
#define GREGOR_TRACE_FE_5(m, a, ...) m(a) GREGOR_TRACE_FE_4(m, __VA_ARGS__)
#define GREGOR_TRACE_FE_6(m, a, ...) m(a) GREGOR_TRACE_FE_5(m, __VA_ARGS__)
#define GREGOR_TRACE_FE_7(m, a, ...) m(a) GREGOR_TRACE_FE_6(m, __VA_ARGS__)
#define GREGOR_TRACE_FE_8(m, a, ...) m(a) GREGOR_TRACE_FE_7(m, __VA_ARGS__)
#define GREGOR_TRACE_FE_9(m, a, ...) m(a) GREGOR_TRACE_FE_8(m, __VA_ARGS__)
#define GREGOR_TRACE_FE_10(m, a, ...) m(a) GREGOR_TRACE_FE_9(m, __VA_ARGS__)
#define GREGOR_TRACE_FE_11(m, a, ...) m(a) GREGOR_TRACE_FE_10(m, __VA_ARGS__)
#define GREGOR_TRACE_FE_12(m, a, ...) m(a) GREGOR_TRACE_FE_11(m, __VA_ARGS__)
#define GREGOR_TRACE_FE_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, name, ...) name
#define GREGOR_TRACE_FOR_EACH(m, ...)                                                                         \
  GREGOR_TRACE_FE_PICK(__VA_ARGS__, GREGOR_TRACE_FE_12, GREGOR_TRACE_FE_11, GREGOR_TRACE_FE_10,               \
                       GREGOR_TRACE_FE_9, GREGOR_TRACE_FE_8, GREGOR_TRACE_FE_7, GREGOR_TRACE_FE_6,             \
                       GREGOR_TRACE_FE_5, GREGOR_TRACE_FE_4, GREGOR_TRACE_FE_3, GREGOR_TRACE_FE_2,             \
                       GREGOR_TRACE_FE_1)(m, __VA_ARGS__)
