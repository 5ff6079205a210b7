// Triggers: matching the trace events a `when:` names (docs/scenarios.md, "Triggered faults").
//
// A match names a kind (`event: leader_change`) and values for some of its fields; an event
// matches when it is of that kind and every field named matches:
//   node: broker-2              the node that emitted the event (a name, or an id)
//   partition: orders-0         the event's topic and partition (kinds with both fields);
//                               `partition: 0` matches the partition number alone
//   <integer field>: 3          equal; `">=3"`, `">3"`, `"<=3"`, `"<3"` compare; a node name
//                               (broker-3) stands for its id (leader, broker, target, coordinator)
//   <bool field>: true          true or false
//   <text field>: shrink        equal to the text
//   <list of ids>: [broker-1, broker-2]   the same set of nodes, in any order (isr, live, dead)
//   <list of names / partitions>: [a, b]  the same set, in any order
// A list of values for an integer or text field means any of them. Fields a kind does not have,
// or that cannot be matched (replica assignments, group assignments), are errors when the file is
// read, with the fields the kind has.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"
#include "engine/core/trace_event.h"
#include "sim/scenario/scenario.h"

namespace gregor::sim {

enum class EventFieldType { kInt, kBool, kText, kIds, kNames, kPartitions, kOther };

// The fields of a kind of trace event, in order; nullopt when no kind has that name.
std::optional<std::vector<std::pair<std::string, EventFieldType>>> event_kind_fields(std::string_view kind);

// A node name's id, or nullopt when no node has that name.
using NodeIdOf = std::function<std::optional<NodeId>(const std::string&)>;

class EventMatcher {
 public:
  // Checks the match against the kind's fields and the node names; the error says what is wrong
  // (the reader adds the file and line).
  static Result<EventMatcher> compile(const EventMatch& m, const NodeIdOf& node_id);

  const std::string& kind() const { return kind_; }
  bool matches(const TraceEvent& e) const;

 private:
  struct Compare {
    enum class Op { kEq, kGe, kGt, kLe, kLt } op = Op::kEq;
    int64_t value = 0;
    bool holds(int64_t v) const;
  };
  struct Field {
    enum class Kind { kNode, kTopicPartition, kInt, kText, kIds, kNames } kind = Kind::kInt;
    std::string key;
    std::vector<Compare> any_of;        // kInt, kNode (kEq)
    std::vector<std::string> texts;     // kText: any of
    std::set<int32_t> ids;              // kIds: the same set
    std::set<std::string> names;        // kNames (and partitions as text): the same set
    std::vector<std::pair<std::string, int32_t>> partitions;  // kTopicPartition: any of
  };
  bool field_matches(const Field& f, const TraceEvent& e) const;

  std::string kind_;
  std::vector<Field> fields_;
};

}  // namespace gregor::sim
