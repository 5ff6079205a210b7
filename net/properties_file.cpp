#include "net/properties_file.h"

#include <fstream>
#include <vector>

namespace gregor::net {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// Undoes the escapes of one key or value; false for a malformed one.
bool unescape(std::string_view in, std::string& out) {
  out.clear();
  for (size_t i = 0; i < in.size(); i++) {
    char c = in[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= in.size()) return false;
    switch (in[i]) {
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        if (i + 4 >= in.size()) return false;
        unsigned value = 0;
        for (size_t k = 1; k <= 4; k++) {
          const char h = in[i + k];
          value <<= 4;
          if (h >= '0' && h <= '9') value |= static_cast<unsigned>(h - '0');
          else if (h >= 'a' && h <= 'f') value |= static_cast<unsigned>(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F') value |= static_cast<unsigned>(h - 'A' + 10);
          else return false;
        }
        if (value >= 0x80) return false;  // kept simple: ASCII only
        out += static_cast<char>(value);
        i += 4;
        break;
      }
      default: out += in[i];  // \\ \= \: \# \! \<space> and any other: the character itself
    }
  }
  return true;
}

// Whether the line ends in an odd number of backslashes (a continuation).
bool continues(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[line.size() - 1 - n] == '\\') n++;
  return n % 2 == 1;
}

}  // namespace

Result<std::map<std::string, std::string>> parse_properties(std::string_view text, const std::string& name) {
  std::map<std::string, std::string> out;
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  for (size_t i = 0; i < lines.size(); i++) {
    const size_t line_number = i + 1;
    auto bad = [&](const std::string& why) {
      return Status::error(StatusCode::kInvalidArgument, name + ":" + std::to_string(line_number) + ": " + why);
    };
    std::string_view first = lines[i];
    while (!first.empty() && is_blank(first.front())) first.remove_prefix(1);
    if (first.empty() || first.front() == '#' || first.front() == '!') continue;
    // The logical line: continuations joined, each one's leading blanks dropped.
    std::string logical(first);
    while (continues(logical)) {
      logical.pop_back();
      if (++i >= lines.size()) break;
      std::string_view next = lines[i];
      while (!next.empty() && is_blank(next.front())) next.remove_prefix(1);
      logical += next;
    }
    // The key ends at the first unescaped '=', ':' or blank.
    size_t k = 0;
    while (k < logical.size() && logical[k] != '=' && logical[k] != ':' && !is_blank(logical[k])) {
      if (logical[k] == '\\') k++;
      k++;
    }
    k = std::min(k, logical.size());
    size_t v = k;
    while (v < logical.size() && is_blank(logical[v])) v++;
    if (v >= logical.size() || (logical[v] != '=' && logical[v] != ':'))
      return bad("expected key=value, got '" + std::string(first.substr(0, 80)) + "'");
    v++;
    while (v < logical.size() && is_blank(logical[v])) v++;
    std::string key, value;
    if (!unescape(std::string_view(logical).substr(0, k), key) || !unescape(std::string_view(logical).substr(v), value))
      return bad("malformed backslash escape");
    if (key.empty()) return bad("empty key");
    out[key] = value;
  }
  return out;
}

Result<std::map<std::string, std::string>> read_properties_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(StatusCode::kNotFound, path + ": cannot open");
  std::string text;
  char buffer[4096];
  while (in) {
    in.read(buffer, sizeof(buffer));
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kPropertiesFileBytesMax)
      return Status::error(StatusCode::kInvalidArgument,
                           path + ": larger than " + std::to_string(kPropertiesFileBytesMax) + " bytes (not a properties file?)");
  }
  if (in.bad()) return Status::error(StatusCode::kIoError, path + ": read failed");
  return parse_properties(text, path);
}

}  // namespace gregor::net
