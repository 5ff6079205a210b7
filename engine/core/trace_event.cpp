#include "engine/core/trace_event.h"

#include <cstdio>

#include "engine/core/json.h"

namespace gregor {

const TraceField* TraceEvent::find(std::string_view key) const {
  for (const auto& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}

int64_t TraceEvent::get_int(std::string_view key, int64_t fallback) const {
  const TraceField* f = find(key);
  if (!f || !std::holds_alternative<int64_t>(f->value)) return fallback;
  return std::get<int64_t>(f->value);
}

std::string TraceEvent::get_string(std::string_view key, std::string fallback) const {
  const TraceField* f = find(key);
  if (!f || !std::holds_alternative<std::string>(f->value)) return fallback;
  return std::get<std::string>(f->value);
}

std::string TraceEvent::fields_json() const {
  std::string out = "{";
  bool first = true;
  for (const auto& f : fields) {
    if (!first) out.push_back(',');
    first = false;
    json_escape(out, f.key);
    out.push_back(':');
    if (std::holds_alternative<int64_t>(f.value))
      out += std::to_string(std::get<int64_t>(f.value));
    else
      json_escape(out, std::get<std::string>(f.value));
  }
  out.push_back('}');
  return out;
}

std::string TraceEvent::to_string() const {
  std::string out = format_time(time) + " node " + std::to_string(node.value) + " " + kind;
  for (const auto& f : fields) {
    out += " " + f.key + "=";
    if (std::holds_alternative<int64_t>(f.value))
      out += std::to_string(std::get<int64_t>(f.value));
    else
      out += std::get<std::string>(f.value);
  }
  return out;
}

void Fingerprint::mix(const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; i++) {
    h_ ^= p[i];
    h_ *= 0x100000001b3ull;
  }
}

void Fingerprint::mix_u64(uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = static_cast<uint8_t>(v >> (8 * i));  // fixed byte order
  mix(b, 8);
}

void Fingerprint::add(const TraceEvent& e) {
  mix_u64(static_cast<uint64_t>(e.time.us));
  mix_u64(static_cast<uint64_t>(e.node.value));
  mix_u64(e.kind.size());
  mix(e.kind.data(), e.kind.size());
  for (const auto& f : e.fields) {
    mix_u64(f.key.size());
    mix(f.key.data(), f.key.size());
    if (std::holds_alternative<int64_t>(f.value)) {
      mix_u64(0);
      mix_u64(static_cast<uint64_t>(std::get<int64_t>(f.value)));
    } else {
      const auto& s = std::get<std::string>(f.value);
      mix_u64(1);
      mix_u64(s.size());
      mix(s.data(), s.size());
    }
  }
}

std::string Fingerprint::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
  return buf;
}

}  // namespace gregor
