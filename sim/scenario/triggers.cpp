#include "sim/scenario/triggers.h"

#include <cstdlib>
#include <type_traits>
#include <utility>
#include <variant>

namespace gregor::sim {

namespace {

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

template <typename V>
EventFieldType field_type() {
  if constexpr (is_optional<V>::value) {
    return field_type<typename V::value_type>();
  } else if constexpr (std::is_same_v<V, bool>) {
    return EventFieldType::kBool;
  } else if constexpr (std::is_same_v<V, int32_t> || std::is_same_v<V, int64_t>) {
    return EventFieldType::kInt;
  } else if constexpr (std::is_same_v<V, std::string>) {
    return EventFieldType::kText;
  } else if constexpr (std::is_same_v<V, IntList>) {
    return EventFieldType::kIds;
  } else if constexpr (std::is_same_v<V, NameList>) {
    return EventFieldType::kNames;
  } else if constexpr (std::is_same_v<V, PartitionList>) {
    return EventFieldType::kPartitions;
  } else {
    return EventFieldType::kOther;
  }
}

template <size_t I = 1>
std::optional<std::vector<std::pair<std::string, EventFieldType>>> fields_of(std::string_view kind) {
  if constexpr (I >= std::variant_size_v<TraceBody>) {
    return std::nullopt;
  } else {
    using B = std::variant_alternative_t<I, TraceBody>;
    if (kind != B::kKind) return fields_of<I + 1>(kind);
    std::vector<std::pair<std::string, EventFieldType>> out;
    const B b{};
    B::fields(b, [&](const char* key, const auto& value) {
      out.emplace_back(key, field_type<std::decay_t<decltype(value)>>());
    });
    return out;
  }
}

// Calls f(key, value) for every field of a typed event, with its C++ type.
template <typename F>
void visit_fields(const TraceBody& body, F&& f) {
  std::visit(
      [&](const auto& b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (!std::is_same_v<B, ev::Generic>) B::fields(b, f);
      },
      body);
}

std::optional<int64_t> parse_int(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end != '\0') return std::nullopt;
  return v;
}

// "orders-0" -> (orders, 0): the partition follows the last '-'.
std::optional<std::pair<std::string, int32_t>> parse_topic_partition(const std::string& s) {
  const size_t dash = s.rfind('-');
  if (dash == std::string::npos || dash == 0) return std::nullopt;
  auto p = parse_int(s.substr(dash + 1));
  if (!p || *p < 0 || *p > INT32_MAX) return std::nullopt;
  return std::make_pair(s.substr(0, dash), static_cast<int32_t>(*p));
}

std::string kind_fields_text(const std::vector<std::pair<std::string, EventFieldType>>& fields) {
  std::string out = "node";
  for (const auto& [k, t] : fields) out += ", " + k;
  return out;
}

Status bad(const std::string& message) { return Status::error(StatusCode::kInvalidArgument, message); }

}  // namespace

std::optional<std::vector<std::pair<std::string, EventFieldType>>> event_kind_fields(std::string_view kind) {
  return fields_of(kind);
}

bool EventMatcher::Compare::holds(int64_t v) const {
  switch (op) {
    case Op::kEq: return v == value;
    case Op::kGe: return v >= value;
    case Op::kGt: return v > value;
    case Op::kLe: return v <= value;
    case Op::kLt: return v < value;
  }
  return false;
}

Result<EventMatcher> EventMatcher::compile(const EventMatch& m, const NodeIdOf& node_id) {
  auto kind_fields = event_kind_fields(m.event);
  if (!kind_fields) return bad("no trace event kind '" + m.event + "' (docs/trace-events.md lists them)");
  auto type_of = [&](const std::string& key) -> std::optional<EventFieldType> {
    for (const auto& [k, t] : *kind_fields)
      if (k == key) return t;
    return std::nullopt;
  };
  // A node by name (broker-3) or by id (3).
  auto node = [&](const std::string& key, const std::string& v) -> Result<int32_t> {
    if (auto n = parse_int(v)) return static_cast<int32_t>(*n);
    if (auto id = node_id(v)) return id->value;
    return bad(key + ": '" + v + "' is neither a node of this scenario nor a number");
  };
  EventMatcher out;
  out.kind_ = m.event;
  for (const auto& [key, values] : m.fields) {
    if (values.empty()) return bad(key + ": no value");
    Field f;
    f.key = key;
    const std::optional<EventFieldType> type = type_of(key);
    if (key == "node") {
      f.kind = Field::Kind::kNode;
      for (const auto& v : values) {
        auto id = node(key, v);
        if (!id) return id.status();
        f.any_of.push_back({Compare::Op::kEq, *id});
      }
    } else if (key == "partition" && type == EventFieldType::kInt && type_of("topic") == EventFieldType::kText &&
               !parse_int(values[0])) {
      f.kind = Field::Kind::kTopicPartition;
      for (const auto& v : values) {
        auto tp = parse_topic_partition(v);
        if (!tp) return bad("partition: '" + v + "' is not a topic partition (orders-0) or a partition number");
        f.partitions.push_back(*tp);
      }
    } else if (!type) {
      return bad("a " + m.event + " event has no field '" + key + "' (its fields: " + kind_fields_text(*kind_fields) + ")");
    } else if (*type == EventFieldType::kInt || *type == EventFieldType::kBool) {
      f.kind = Field::Kind::kInt;
      for (const auto& v : values) {
        Compare c;
        std::string number = v;
        if (*type == EventFieldType::kBool) {
          if (v != "true" && v != "false") return bad(key + ": expected true or false, got '" + v + "'");
          c.value = v == "true";
        } else {
          for (auto [prefix, op] : {std::pair{">=", Compare::Op::kGe}, std::pair{"<=", Compare::Op::kLe},
                                    std::pair{">", Compare::Op::kGt}, std::pair{"<", Compare::Op::kLt}}) {
            const std::string p = prefix;
            if (number.rfind(p, 0) == 0) {
              c.op = op;
              number = number.substr(p.size());
              break;
            }
          }
          if (c.op != Compare::Op::kEq && !parse_int(number))
            return bad(key + ": '" + v + "': a comparison needs a number (\">=2\")");
          auto n = node(key, number);
          if (!n) return bad(key + ": expected a number, a comparison (\">=2\") or a node name, got '" + v + "'");
          c.value = *n;
        }
        f.any_of.push_back(c);
      }
    } else if (*type == EventFieldType::kText) {
      f.kind = Field::Kind::kText;
      f.texts = values;
    } else if (*type == EventFieldType::kIds) {
      f.kind = Field::Kind::kIds;
      for (const auto& v : values) {
        auto id = node(key, v);
        if (!id) return id.status();
        f.ids.insert(*id);
      }
    } else if (*type == EventFieldType::kNames || *type == EventFieldType::kPartitions) {
      f.kind = Field::Kind::kNames;
      for (const auto& v : values) {
        if (*type == EventFieldType::kPartitions && !parse_topic_partition(v))
          return bad(key + ": '" + v + "' is not a topic partition (orders-0)");
        f.names.insert(v);
      }
    } else {
      return bad("a " + m.event + " event's field '" + key + "' cannot be matched (a replica or group assignment)");
    }
    out.fields_.push_back(std::move(f));
  }
  return out;
}

bool EventMatcher::matches(const TraceEvent& e) const {
  if (e.kind() != kind_) return false;
  for (const Field& f : fields_)
    if (!field_matches(f, e)) return false;
  return true;
}

bool EventMatcher::field_matches(const Field& f, const TraceEvent& e) const {
  if (f.kind == Field::Kind::kNode) {
    for (const Compare& c : f.any_of)
      if (c.holds(e.node.value)) return true;
    return false;
  }
  if (f.kind == Field::Kind::kTopicPartition) {
    const std::string topic = e.get_string("topic");
    const int64_t partition = e.get_int("partition", -1);
    for (const auto& [t, p] : f.partitions)
      if (t == topic && p == partition) return true;
    return false;
  }
  bool matched = false;
  visit_fields(e.body, [&](const char* key, const auto& field) {
    if (f.key != key) return;
    using V = std::decay_t<decltype(field)>;
    auto test = [&](const auto& v) {
      using T = std::decay_t<decltype(v)>;
      if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
        for (const Compare& c : f.any_of)
          if (c.holds(static_cast<int64_t>(v))) matched = true;
      } else if constexpr (std::is_same_v<T, std::string>) {
        for (const auto& t : f.texts)
          if (t == v) matched = true;
      } else if constexpr (std::is_same_v<T, IntList>) {
        matched = std::set<int32_t>(v.begin(), v.end()) == f.ids;
      } else if constexpr (std::is_same_v<T, NameList>) {
        matched = std::set<std::string>(v.begin(), v.end()) == f.names;
      } else if constexpr (std::is_same_v<T, PartitionList>) {
        std::set<std::string> names;
        for (const auto& p : v) names.insert(p.str());
        matched = names == f.names;
      }
    };
    if constexpr (is_optional<V>::value) {
      if (field) test(*field);
    } else {
      test(field);
    }
  });
  return matched;
}

}  // namespace gregor::sim
