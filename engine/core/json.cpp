#include "engine/core/json.h"

#include <cstdio>
#include <cstdlib>

namespace gregor {

namespace {
const Json kNull;
const Json::Array kEmptyArray;
const Json::Object kEmptyObject;

class Parser {
 public:
  explicit Parser(std::string_view t) : t_(t) {}
  Result<Json> run() {
    Json v;
    if (!value(v, 0)) return error();
    ws();
    if (i_ != t_.size()) {
      msg_ = "trailing characters";
      return error();
    }
    return v;
  }

 private:
  static constexpr int kMaxDepth = 64;
  Status error() {
    return Status::error(StatusCode::kInvalidArgument,
                         "bad JSON at character " + std::to_string(i_) + ": " + (msg_.empty() ? "syntax" : msg_));
  }
  void ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\t' || t_[i_] == '\r')) i_++;
  }
  bool lit(std::string_view w) {
    if (t_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  bool str(std::string& out) {
    if (i_ >= t_.size() || t_[i_] != '"') return false;
    i_++;
    while (i_ < t_.size()) {
      char c = t_[i_++];
      if (c == '"') return true;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (i_ >= t_.size()) return false;
      char e = t_[i_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          if (i_ + 4 > t_.size()) return false;
          unsigned cp = static_cast<unsigned>(std::strtoul(std::string(t_.substr(i_, 4)).c_str(), nullptr, 16));
          i_ += 4;
          if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          }
          break;
        }
        default: return false;
      }
    }
    return false;
  }
  bool value(Json& out, int depth) {
    if (depth > kMaxDepth) {
      msg_ = "nested too deeply";
      return false;
    }
    ws();
    if (i_ >= t_.size()) return false;
    char c = t_[i_];
    if (c == 'n') return lit("null") && (out = Json(), true);
    if (c == 't') return lit("true") && (out = Json(true), true);
    if (c == 'f') return lit("false") && (out = Json(false), true);
    if (c == '"') {
      std::string s;
      if (!str(s)) return false;
      out = Json(std::move(s));
      return true;
    }
    if (c == '[') {
      i_++;
      Json::Array a;
      ws();
      if (i_ < t_.size() && t_[i_] == ']') {
        i_++;
        out = Json(std::move(a));
        return true;
      }
      while (true) {
        Json v;
        if (!value(v, depth + 1)) return false;
        a.push_back(std::move(v));
        ws();
        if (i_ < t_.size() && t_[i_] == ',') {
          i_++;
          continue;
        }
        if (i_ < t_.size() && t_[i_] == ']') {
          i_++;
          out = Json(std::move(a));
          return true;
        }
        return false;
      }
    }
    if (c == '{') {
      i_++;
      Json::Object o;
      ws();
      if (i_ < t_.size() && t_[i_] == '}') {
        i_++;
        out = Json(std::move(o));
        return true;
      }
      while (true) {
        ws();
        std::string k;
        if (!str(k)) return false;
        ws();
        if (i_ >= t_.size() || t_[i_] != ':') return false;
        i_++;
        Json v;
        if (!value(v, depth + 1)) return false;
        o[k] = std::move(v);
        ws();
        if (i_ < t_.size() && t_[i_] == ',') {
          i_++;
          continue;
        }
        if (i_ < t_.size() && t_[i_] == '}') {
          i_++;
          out = Json(std::move(o));
          return true;
        }
        return false;
      }
    }
    // Number.
    size_t start = i_;
    bool is_double = false;
    if (t_[i_] == '-') i_++;
    while (i_ < t_.size() && ((t_[i_] >= '0' && t_[i_] <= '9') || t_[i_] == '.' || t_[i_] == 'e' ||
                              t_[i_] == 'E' || t_[i_] == '+' || t_[i_] == '-')) {
      if (t_[i_] == '.' || t_[i_] == 'e' || t_[i_] == 'E') is_double = true;
      i_++;
    }
    if (start == i_ || (i_ - start == 1 && t_[start] == '-')) return false;
    std::string num(t_.substr(start, i_ - start));
    char* end = nullptr;
    if (is_double) {
      double d = std::strtod(num.c_str(), &end);
      if (*end) return false;
      out = Json(d);
    } else {
      long long v = std::strtoll(num.c_str(), &end, 10);
      if (*end) return false;
      out = Json(static_cast<int64_t>(v));
    }
    return true;
  }
  std::string_view t_;
  size_t i_ = 0;
  std::string msg_;
};
}  // namespace

int64_t Json::as_int(int64_t fallback) const {
  if (is_int()) return std::get<int64_t>(v_);
  if (std::holds_alternative<double>(v_)) return static_cast<int64_t>(std::get<double>(v_));
  return fallback;
}
double Json::as_double(double fallback) const {
  if (is_int()) return static_cast<double>(std::get<int64_t>(v_));
  if (std::holds_alternative<double>(v_)) return std::get<double>(v_);
  return fallback;
}
bool Json::as_bool(bool fallback) const { return is_bool() ? std::get<bool>(v_) : fallback; }
std::string Json::as_string(std::string fallback) const { return is_string() ? std::get<std::string>(v_) : fallback; }
const Json::Array& Json::as_array() const { return is_array() ? std::get<Array>(v_) : kEmptyArray; }
const Json::Object& Json::as_object() const { return is_object() ? std::get<Object>(v_) : kEmptyObject; }
Json::Array& Json::array() {
  GREGOR_ASSERT(is_array());
  return std::get<Array>(v_);
}
Json::Object& Json::object() {
  GREGOR_ASSERT(is_object());
  return std::get<Object>(v_);
}
const Json& Json::operator[](const std::string& key) const {
  if (!is_object()) return kNull;
  const auto& o = std::get<Object>(v_);
  auto it = o.find(key);
  return it == o.end() ? kNull : it->second;
}
bool Json::has(const std::string& key) const { return is_object() && std::get<Object>(v_).count(key) > 0; }

std::string Json::dump() const {
  std::string out;
  struct W {
    std::string& out;
    void operator()(std::nullptr_t) { out += "null"; }
    void operator()(bool b) { out += b ? "true" : "false"; }
    void operator()(int64_t v) { out += std::to_string(v); }
    void operator()(double d) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", d);
      out += buf;
    }
    void operator()(const std::string& s) { json_escape(out, s); }
    void operator()(const Array& a) {
      out.push_back('[');
      for (size_t i = 0; i < a.size(); i++) {
        if (i) out.push_back(',');
        out += a[i].dump();
      }
      out.push_back(']');
    }
    void operator()(const Object& o) {
      out.push_back('{');
      bool first = true;
      for (const auto& [k, v] : o) {
        if (!first) out.push_back(',');
        first = false;
        json_escape(out, k);
        out.push_back(':');
        out += v.dump();
      }
      out.push_back('}');
    }
  };
  std::visit(W{out}, v_);
  return out;
}

Result<Json> Json::parse(std::string_view text) {
  if (text.size() > (64u << 20)) return Status::error(StatusCode::kInvalidArgument, "JSON text too large");
  return Parser(text).run();
}

void json_escape(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

}  // namespace gregor
