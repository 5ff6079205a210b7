#include "engine/core/trace_event.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <type_traits>
#include <utility>

#include "engine/core/json.h"

namespace gregor {

namespace {

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

// ---- Values as text: what JSON strings and to_string() show -------------------------------------

void append_partitions(std::string& out, const PartitionList& v) {
  for (size_t i = 0; i < v.size(); i++) {
    if (i) out.push_back(',');
    out += v[i].topic;
    out.push_back('-');
    out += std::to_string(v[i].partition);
  }
}

void append_text(std::string& out, const std::string& v) { out += v; }
void append_text(std::string& out, const IntList& v) {
  for (size_t i = 0; i < v.size(); i++) {
    if (i) out.push_back(',');
    out += std::to_string(v[i]);
  }
}
void append_text(std::string& out, const ReplicaAssignment& v) {
  for (size_t i = 0; i < v.size(); i++) {
    if (i) out.push_back(';');
    append_text(out, v[i]);
  }
}
void append_text(std::string& out, const NameList& v) {
  for (size_t i = 0; i < v.size(); i++) {
    if (i) out.push_back(',');
    out += v[i];
  }
}
void append_text(std::string& out, const PartitionList& v) { append_partitions(out, v); }
void append_text(std::string& out, const MemberAssignments& v) {
  for (size_t i = 0; i < v.size(); i++) {
    if (i) out.push_back(';');
    out += v[i].member;
    out.push_back('=');
    if (v[i].partitions)
      append_partitions(out, *v[i].partitions);
    else
      out.push_back('?');
  }
}

// An integer field (booleans are integers 0 and 1 in text and JSON).
template <typename T>
constexpr bool is_integer_field = std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> || std::is_same_v<T, bool>;

template <typename T>
TraceEvent::Value to_value(const T& v) {
  if constexpr (is_integer_field<T>) {
    return static_cast<int64_t>(v);
  } else {
    std::string s;
    append_text(s, v);
    return s;
  }
}

// Calls f(key, value) for every field present: typed events through their field list, Generic
// events through their (key, value) pairs. Absent optional fields are skipped.
template <typename F>
void for_each_value(const TraceBody& body, F&& f) {
  std::visit(
      [&](const auto& b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, ev::Generic>) {
          for (const auto& field : b.fields) f(std::string_view(field.key), field.value);
        } else {
          B::fields(b, [&](const char* key, const auto& value) {
            using V = std::decay_t<decltype(value)>;
            if constexpr (is_optional<V>::value) {
              if (value) f(std::string_view(key), to_value(*value));
            } else {
              f(std::string_view(key), to_value(value));
            }
          });
        }
      },
      body);
}

// ---- Reading fields back: a minimal parser of the flat JSON objects fields_json() writes --------

bool parse_fields(std::string_view s, std::vector<std::pair<std::string, TraceEvent::Value>>& out) {
  size_t i = 0;
  auto ws = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) i++;
  };
  auto hex4 = [&](size_t at, uint32_t& v) {
    if (at + 4 > s.size()) return false;
    v = 0;
    for (size_t k = at; k < at + 4; k++) {
      const char c = s[k];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
      else return false;
    }
    return true;
  };
  auto str = [&](std::string& r) -> bool {
    if (i >= s.size() || s[i] != '"') return false;
    i++;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\') {
        if (i + 1 >= s.size()) return false;
        i++;
        const char c = s[i];
        if (c == 'n') r.push_back('\n');
        else if (c == 't') r.push_back('\t');
        else if (c == 'r') r.push_back('\r');
        else if (c == 'u') {
          uint32_t v = 0;
          if (!hex4(i + 1, v)) return false;
          r.push_back(static_cast<char>(v));  // fields_json escapes only bytes below 0x20 this way
          i += 4;
        } else {
          r.push_back(c);
        }
      } else {
        r.push_back(s[i]);
      }
      i++;
    }
    if (i >= s.size()) return false;
    i++;
    return true;
  };
  ws();
  if (i >= s.size() || s[i] != '{') return false;
  i++;
  ws();
  if (i < s.size() && s[i] == '}') return true;
  while (i < s.size()) {
    std::string key;
    ws();
    if (!str(key)) return false;
    ws();
    if (i >= s.size() || s[i] != ':') return false;
    i++;
    ws();
    if (i < s.size() && s[i] == '"') {
      std::string v;
      if (!str(v)) return false;
      out.emplace_back(std::move(key), std::move(v));
    } else {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
      if (ec != std::errc() || end == s.data() + i) return false;
      i = static_cast<size_t>(end - s.data());
      out.emplace_back(std::move(key), v);
    }
    ws();
    if (i < s.size() && s[i] == ',') {
      i++;
      continue;
    }
    if (i < s.size() && s[i] == '}') return true;
    return false;
  }
  return false;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  if (s.empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

bool parse_int32(std::string_view s, int32_t& v) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parse_partitions(std::string_view s, PartitionList& out) {
  out.clear();
  for (std::string_view item : split(s, ',')) {
    const size_t dash = item.rfind('-');
    if (dash == std::string_view::npos || dash == 0) return false;
    PartitionName p;
    p.topic = std::string(item.substr(0, dash));
    if (!parse_int32(item.substr(dash + 1), p.partition)) return false;
    out.push_back(std::move(p));
  }
  return true;
}

bool from_text(std::string_view s, std::string& v) {
  v = std::string(s);
  return true;
}
bool from_text(std::string_view s, IntList& v) {
  v.clear();
  for (std::string_view item : split(s, ',')) {
    int32_t x = 0;
    if (!parse_int32(item, x)) return false;
    v.push_back(x);
  }
  return true;
}
bool from_text(std::string_view s, ReplicaAssignment& v) {
  v.clear();
  for (std::string_view item : split(s, ';')) {
    v.emplace_back();
    if (!from_text(item, v.back())) return false;
  }
  return true;
}
bool from_text(std::string_view s, NameList& v) {
  v.clear();
  for (std::string_view item : split(s, ',')) v.emplace_back(item);
  return true;
}
bool from_text(std::string_view s, PartitionList& v) { return parse_partitions(s, v); }
bool from_text(std::string_view s, MemberAssignments& v) {
  v.clear();
  for (std::string_view item : split(s, ';')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return false;
    MemberAssignment a;
    a.member = std::string(item.substr(0, eq));
    const std::string_view parts = item.substr(eq + 1);
    if (parts != "?") {
      a.partitions.emplace();
      if (!parse_partitions(parts, *a.partitions)) return false;
    }
    v.push_back(std::move(a));
  }
  return true;
}

template <typename T>
bool assign(T& field, const TraceEvent::Value& value) {
  if constexpr (is_integer_field<T>) {
    if (!std::holds_alternative<int64_t>(value)) return false;
    const int64_t v = std::get<int64_t>(value);
    if constexpr (std::is_same_v<T, bool>) {
      if (v != 0 && v != 1) return false;
      field = v == 1;
    } else if constexpr (std::is_same_v<T, int32_t>) {
      if (v < INT32_MIN || v > INT32_MAX) return false;
      field = static_cast<int32_t>(v);
    } else {
      field = v;
    }
    return true;
  } else {
    if (!std::holds_alternative<std::string>(value)) return false;
    return from_text(std::get<std::string>(value), field);
  }
}

// ---- Kinds by name --------------------------------------------------------------------------------

struct KindEntry {
  std::string_view name;
  TraceBody (*make)();
};

template <size_t... I>
std::array<KindEntry, sizeof...(I)> make_kind_table(std::index_sequence<I...>) {
  // Alternative 0 is Generic, which has no fixed name.
  return {KindEntry{std::variant_alternative_t<I + 1, TraceBody>::kKind,
                    [] { return TraceBody(std::in_place_index<I + 1>); }}...};
}

const auto& kind_table() {
  static const auto table = make_kind_table(std::make_index_sequence<std::variant_size_v<TraceBody> - 1>());
  return table;
}

}  // namespace

// ---- TraceEvent ---------------------------------------------------------------------------------

std::string_view TraceEvent::kind() const {
  return std::visit(
      [](const auto& b) -> std::string_view {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, ev::Generic>)
          return b.kind;
        else
          return B::kKind;
      },
      body);
}

std::optional<TraceEvent::Value> TraceEvent::find(std::string_view key) const {
  std::optional<Value> found;
  for_each_value(body, [&](std::string_view k, const Value& v) {
    if (!found && k == key) found = v;
  });
  return found;
}

int64_t TraceEvent::get_int(std::string_view key, int64_t fallback) const {
  auto v = find(key);
  if (!v || !std::holds_alternative<int64_t>(*v)) return fallback;
  return std::get<int64_t>(*v);
}

std::string TraceEvent::get_string(std::string_view key, std::string fallback) const {
  auto v = find(key);
  if (!v || !std::holds_alternative<std::string>(*v)) return fallback;
  return std::get<std::string>(std::move(*v));
}

std::string TraceEvent::fields_json() const {
  std::string out = "{";
  bool first = true;
  for_each_value(body, [&](std::string_view key, const Value& v) {
    if (!first) out.push_back(',');
    first = false;
    json_escape(out, key);
    out.push_back(':');
    if (std::holds_alternative<int64_t>(v))
      out += std::to_string(std::get<int64_t>(v));
    else
      json_escape(out, std::get<std::string>(v));
  });
  out.push_back('}');
  return out;
}

std::string TraceEvent::to_string() const {
  std::string out = format_time(time) + " node " + std::to_string(node.value) + " ";
  out += kind();
  for_each_value(body, [&](std::string_view key, const Value& v) {
    out.push_back(' ');
    out += key;
    out.push_back('=');
    if (std::holds_alternative<int64_t>(v))
      out += std::to_string(std::get<int64_t>(v));
    else
      out += std::get<std::string>(v);
  });
  return out;
}

const std::vector<std::string_view>& trace_kind_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const KindEntry& k : kind_table()) v.push_back(k.name);
    return v;
  }();
  return names;
}

Result<TraceBody> trace_body_from_json(std::string_view kind, std::string_view fields_json) {
  std::vector<std::pair<std::string, TraceEvent::Value>> raw;
  if (!parse_fields(fields_json, raw))
    return Status::error(StatusCode::kCorruption, "malformed fields of a " + std::string(kind) + " event: " + std::string(fields_json));
  const KindEntry* entry = nullptr;
  for (const KindEntry& k : kind_table())
    if (k.name == kind) entry = &k;
  if (!entry) {
    ev::Generic g;
    g.kind = std::string(kind);
    for (auto& [key, value] : raw) {
      if (std::holds_alternative<int64_t>(value))
        g.fields.emplace_back(std::move(key), std::get<int64_t>(value));
      else
        g.fields.emplace_back(std::move(key), std::get<std::string>(std::move(value)));
    }
    return TraceBody(std::move(g));
  }
  TraceBody body = entry->make();
  std::string problem;
  size_t matched = 0;
  std::visit(
      [&](auto& b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (!std::is_same_v<B, ev::Generic>) {
          B::fields(b, [&](const char* key, auto& field) {
            using V = std::decay_t<decltype(field)>;
            const TraceEvent::Value* value = nullptr;
            for (const auto& [k, v] : raw)
              if (k == key) value = &v;
            if (!value) {
              if constexpr (!is_optional<V>::value)
                if (problem.empty()) problem = std::string("no field '") + key + "'";
              return;
            }
            matched++;
            bool ok;
            if constexpr (is_optional<V>::value) {
              field.emplace();
              ok = assign(*field, *value);
            } else {
              ok = assign(field, *value);
            }
            if (!ok && problem.empty()) problem = std::string("field '") + key + "' has the wrong type or format";
          });
        }
      },
      body);
  if (problem.empty() && matched != raw.size()) problem = "fields this kind does not have";
  if (!problem.empty())
    return Status::error(StatusCode::kCorruption,
                         "a " + std::string(kind) + " event: " + problem + ": " + std::string(fields_json));
  return body;
}

// ---- Fingerprint --------------------------------------------------------------------------------

void Fingerprint::mix_bytes(std::string_view s) {
  mix(s.size());
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w = 0;
    for (size_t b = 0; b < 8; b++) w |= static_cast<uint64_t>(static_cast<uint8_t>(s[i + b])) << (8 * b);
    mix(w);
  }
  if (i < s.size()) {
    uint64_t w = 0;
    for (size_t b = 0; i + b < s.size(); b++) w |= static_cast<uint64_t>(static_cast<uint8_t>(s[i + b])) << (8 * b);
    mix(w);
  }
}

// The encoding of each field type (docs/trace.md, "The fingerprint").
struct FingerprintEncoder {
  Fingerprint& fp;
  void put(int32_t v) { fp.mix(static_cast<uint64_t>(static_cast<int64_t>(v))); }
  void put(int64_t v) { fp.mix(static_cast<uint64_t>(v)); }
  void put(bool v) { fp.mix(v ? 1 : 0); }
  void put(const std::string& v) { fp.mix_bytes(v); }
  void put(const IntList& v) {
    fp.mix(v.size());
    for (int32_t x : v) put(x);
  }
  void put(const ReplicaAssignment& v) {
    fp.mix(v.size());
    for (const IntList& x : v) put(x);
  }
  void put(const NameList& v) {
    fp.mix(v.size());
    for (const auto& x : v) fp.mix_bytes(x);
  }
  void put(const PartitionList& v) {
    fp.mix(v.size());
    for (const auto& p : v) {
      fp.mix_bytes(p.topic);
      put(p.partition);
    }
  }
  void put(const MemberAssignments& v) {
    fp.mix(v.size());
    for (const auto& a : v) {
      fp.mix_bytes(a.member);
      put(a.partitions);
    }
  }
  template <typename T>
  void put(const std::optional<T>& v) {
    fp.mix(v ? 1 : 0);
    if (v) put(*v);
  }
  void operator()(const char*, const auto& value) { put(value); }
};

void Fingerprint::add(Time time, NodeId node, const TraceBody& body) {
  mix(static_cast<uint64_t>(time.us));
  mix(static_cast<uint64_t>(static_cast<int64_t>(node.value)));
  std::visit(
      [&](const auto& b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, ev::Generic>) {
          mix_bytes(b.kind);
          mix(b.fields.size());
          for (const auto& f : b.fields) {
            mix_bytes(f.key);
            if (std::holds_alternative<int64_t>(f.value)) {
              mix(0);
              mix(static_cast<uint64_t>(std::get<int64_t>(f.value)));
            } else {
              mix(1);
              mix_bytes(std::get<std::string>(f.value));
            }
          }
        } else {
          mix_bytes(B::kKind);
          B::fields(b, FingerprintEncoder{*this});
        }
      },
      body);
}

std::string Fingerprint::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
  return buf;
}

}  // namespace gregor
