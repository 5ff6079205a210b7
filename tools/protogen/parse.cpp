// Reads a spec file (YAML, the format docs/protocol.md describes) into the model and checks it:
// every error names the file and line.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "model.h"

namespace protogen {

std::string Versions::text() const {
  if (empty()) return "none";
  if (hi >= kNoVersion) return std::to_string(lo) + "+";
  if (lo == hi) return std::to_string(lo);
  return std::to_string(lo) + "-" + std::to_string(hi);
}

namespace {

struct Context {
  const std::string& path;
  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const {
    std::ostringstream s;
    s << path;
    if (at.IsDefined() && at.Mark().line >= 0) s << ":" << at.Mark().line + 1;
    s << ": " << message;
    throw SpecError(s.str());
  }
  std::string where(const YAML::Node& at) const { return path + ":" + std::to_string(at.Mark().line + 1); }
};

bool parse_int(const std::string& text, long long& out) {
  if (text.empty()) return false;
  try {
    size_t used = 0;
    out = std::stoll(text, &used, 0);
    return used == text.size();
  } catch (...) {
    return false;
  }
}

Versions parse_versions(const Context& cx, const YAML::Node& at, const std::string& text) {
  if (text == "none") return Versions{};
  long long lo = 0, hi = 0;
  if (!text.empty() && text.back() == '+') {
    if (!parse_int(text.substr(0, text.size() - 1), lo)) cx.fail(at, "bad versions '" + text + "'");
    return Versions{static_cast<int>(lo), kNoVersion};
  }
  size_t dash = text.find('-');
  if (dash == std::string::npos) {
    if (!parse_int(text, lo)) cx.fail(at, "bad versions '" + text + "'");
    return Versions{static_cast<int>(lo), static_cast<int>(lo)};
  }
  if (!parse_int(text.substr(0, dash), lo) || !parse_int(text.substr(dash + 1), hi) || lo > hi) {
    cx.fail(at, "bad versions '" + text + "'");
  }
  return Versions{static_cast<int>(lo), static_cast<int>(hi)};
}

std::string scalar(const Context& cx, const YAML::Node& map, const char* key) {
  YAML::Node n = map[key];
  if (!n.IsDefined() || !n.IsScalar()) cx.fail(map, std::string("missing '") + key + "'");
  return n.Scalar();
}

bool is_snake_name(const std::string& s) {
  if (s.empty() || !std::islower(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool is_type_name(const std::string& s) {
  if (s.empty() || !std::isupper(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
}

const std::map<std::string, Kind>& primitive_kinds() {
  static const std::map<std::string, Kind> kinds = {
      {"int8", Kind::Int8},     {"int16", Kind::Int16},   {"int32", Kind::Int32},     {"int64", Kind::Int64},
      {"uint16", Kind::Uint16}, {"float64", Kind::Float64}, {"bool", Kind::Bool},     {"error", Kind::Error},
      {"api_key", Kind::ApiKey}, {"uuid", Kind::Uuid},    {"string", Kind::String},   {"bytes", Kind::Bytes},
      {"records", Kind::Records},
  };
  return kinds;
}

bool is_integer_kind(Kind k) {
  return k == Kind::Int8 || k == Kind::Int16 || k == Kind::Int32 || k == Kind::Int64 || k == Kind::Uint16 ||
         k == Kind::Error || k == Kind::ApiKey;
}

class Parser {
 public:
  Parser(const std::string& path, SpecFile& out) : cx_{path}, out_(out) {}

  void run() {
    YAML::Node root;
    try {
      root = YAML::LoadFile(out_.path);
    } catch (const YAML::Exception& e) {
      throw SpecError(out_.path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    if (!root.IsMap()) cx_.fail(root, "a spec file is a map");
    for (const auto& kv : root) {
      std::string key = kv.first.Scalar();
      if (key != "apis" && key != "shared" && key != "name" && key != "key" && key != "valid" && key != "flexible" &&
          key != "deprecated" && key != "structs" && key != "request" && key != "response") {
        cx_.fail(kv.first, "unknown key '" + key + "'");
      }
    }
    if (root["shared"].IsDefined()) read_struct_table(root["shared"], shared_, /*namespace_scope=*/true);
    if (root["apis"].IsDefined()) {
      if (root["name"].IsDefined()) cx_.fail(root, "either 'apis' or one api's keys, not both");
      if (!root["apis"].IsSequence()) cx_.fail(root["apis"], "'apis' is a list");
      for (const YAML::Node& api : root["apis"]) read_api(api);
    } else {
      read_api(root);
    }
    // Namespace-scope structs in dependency order (a struct before those that use it).
    std::set<const StructDef*> placed;
    for (const auto& [name, def] : shared_) place_shared(def, placed);
  }

 private:
  void place_shared(const StructDef* def, std::set<const StructDef*>& placed) {
    if (placed.count(def)) return;
    placed.insert(def);
    for (const Field& f : def->fields) {
      if (f.kind == Kind::Struct && f.def->namespace_scope) place_shared(f.def, placed);
    }
    out_.shared.push_back(def);
  }

  void read_struct_table(const YAML::Node& table, std::map<std::string, StructDef*>& into, bool namespace_scope) {
    if (!table.IsMap()) cx_.fail(table, "a struct table maps struct names to field lists");
    // Two passes, so that a struct of the table may use another one declared after it.
    for (const auto& kv : table) {
      std::string name = kv.first.Scalar();
      if (!is_type_name(name)) cx_.fail(kv.first, "struct names are CamelCase: '" + name + "'");
      if (into.count(name) || shared_.count(name)) cx_.fail(kv.first, "struct '" + name + "' declared twice");
      StructDef& def = out_.storage.emplace_back();
      def.name = name;
      def.namespace_scope = namespace_scope;
      def.where = cx_.where(kv.first);
      into[name] = &def;
    }
    for (const auto& kv : table) {
      StructDef* def = into[kv.first.Scalar()];
      def->fields = read_fields(kv.second, Versions{0, kNoVersion});
    }
  }

  void read_api(const YAML::Node& node) {
    if (!node.IsMap()) cx_.fail(node, "an api is a map");
    Api api;
    api.where = cx_.where(node);
    api.name = scalar(cx_, node, "name");
    if (!is_type_name(api.name)) cx_.fail(node["name"], "api names are CamelCase");
    long long key = 0;
    if (!parse_int(scalar(cx_, node, "key"), key) || key < 0 || key > 32767) cx_.fail(node["key"], "bad api key");
    api.key = static_cast<int>(key);
    api.valid = parse_versions(cx_, node["valid"], scalar(cx_, node, "valid"));
    if (api.valid.empty() || api.valid.hi >= kNoVersion) cx_.fail(node["valid"], "valid versions are a closed range");
    api.flexible = parse_versions(cx_, node["flexible"], scalar(cx_, node, "flexible")).intersect(api.valid);
    if (node["deprecated"].IsDefined()) {
      api.deprecated = parse_versions(cx_, node["deprecated"], scalar(cx_, node, "deprecated"));
      if (!api.valid.contains(api.deprecated)) cx_.fail(node["deprecated"], "deprecated versions outside the valid ones");
    }
    for (const Api& other : out_.apis) {
      if (other.key == api.key) cx_.fail(node, "api key declared twice");
    }
    api_structs_.clear();
    if (node["structs"].IsDefined()) read_struct_table(node["structs"], api_structs_, false);
    valid_ = api.valid;
    for (int side = 0; side < 2; side++) {
      const char* key_name = side == 0 ? "request" : "response";
      Message& m = side == 0 ? api.request : api.response;
      m.request = side == 0;
      m.cpp_name = api.name + (side == 0 ? "Request" : "Response");
      m.body.name = m.cpp_name;
      m.body.where = cx_.where(node[key_name]);
      if (!node[key_name].IsDefined()) cx_.fail(node, std::string("missing '") + key_name + "'");
      m.body.fields = node[key_name].IsNull() ? std::vector<Field>{} : read_fields(node[key_name], api.valid);
    }
    for (Message* m : {&api.request, &api.response}) {
      std::map<std::string, const StructDef*> names;
      m->body.has_tagged_section = !api.flexible.empty();
      collect(api, m->body, api.valid, *m, names);
      check_fields(api, m->body, api.valid);
    }
    out_.apis.push_back(std::move(api));
  }

  // Walks the structs a message uses: resolves names, lists the nested ones (inner first) and
  // notes which ones are used in a flexible version.
  void collect(const Api& api, const StructDef& s, Versions reach, Message& m,
               std::map<std::string, const StructDef*>& names) {
    for (const Field& f : s.fields) {
      if (f.kind != Kind::Struct) continue;
      StructDef* def = const_cast<StructDef*>(f.def);
      Versions field_reach = reach.intersect(f.versions);
      if (!field_reach.intersect(api.flexible).empty()) def->has_tagged_section = true;
      auto it = names.find(def->name);
      if (it != names.end() && it->second != def) {
        cx_.fail(YAML::Node(), f.where + ": two different structs named '" + def->name + "' in " + m.cpp_name);
      }
      if (def->name == m.cpp_name) cx_.fail(YAML::Node(), f.where + ": a struct cannot have its message's name");
      bool first = it == names.end();
      names[def->name] = def;
      collect(api, *def, field_reach, m, names);
      if (first && !def->namespace_scope) m.nested.push_back(def);
    }
  }

  void check_fields(const Api& api, const StructDef& s, Versions outer) {
    std::set<std::string> field_names;
    std::set<int> tags;
    for (const Field& f : s.fields) {
      auto fail = [&](const std::string& what) { throw SpecError(f.where + ": " + f.name + ": " + what); };
      if (!field_names.insert(f.name).second) fail("field declared twice");
      // Names the generated code uses itself (its parameters, and the member that keeps unknown tags).
      if (f.name == "unknown_tagged_fields" || f.name == "version" || f.name == "flexible" || f.name == "w" ||
          f.name == "r") {
        fail("reserved name");
      }
      if (f.name.back() == '_') fail("field names do not end with '_' (the generated code's own names do)");
      if (inline_structs_.count(&s) && !outer.contains(f.versions.intersect(api.valid))) {
        fail("versions " + f.versions.text() + " outside those of the enclosing field (" + outer.text() + ")");
      }
      if (f.tag >= 0) {
        if (!tags.insert(f.tag).second) fail("tag " + std::to_string(f.tag) + " used twice");
        if (!api.flexible.contains(f.versions.intersect(api.valid))) fail("a tagged field must exist only in flexible versions");
      }
      if (f.flatten_below >= 0) {
        Versions flat = f.versions.intersect(Versions{api.valid.lo, f.flatten_below - 1});
        if (!flat.intersect(api.flexible).empty()) fail("flatten applies only to versions that are not flexible");
      }
      if (f.kind == Kind::Struct) check_fields(api, *f.def, f.versions);
    }
  }

  std::vector<Field> read_fields(const YAML::Node& list, Versions enclosing) {
    if (!list.IsSequence()) cx_.fail(list, "a list of fields");
    std::vector<Field> fields;
    for (const YAML::Node& item : list) {
      if (!item.IsMap()) cx_.fail(item, "a field is '- name: type versions [flags]'");
      Field f;
      f.where = cx_.where(item);
      YAML::Node descriptor, nested;
      bool has_descriptor = false, has_nested = false;
      for (const auto& kv : item) {
        std::string key = kv.first.Scalar();
        if (key == "fields") {
          nested = kv.second;
          has_nested = true;
        } else {
          if (has_descriptor) cx_.fail(kv.first, "one field per list item");
          has_descriptor = true;
          if (!is_snake_name(key)) cx_.fail(kv.first, "field names are snake_case: '" + key + "'");
          f.name = key;
          descriptor = kv.second;
        }
      }
      if (!has_descriptor || !descriptor.IsScalar()) cx_.fail(item, "a field is '- name: type versions [flags]'");
      read_descriptor(descriptor, f);
      if (f.kind == Kind::Struct) {
        if (has_nested) {
          if (api_structs_.count(f.struct_name) || shared_.count(f.struct_name)) {
            cx_.fail(item, "struct '" + f.struct_name + "' is declared in a struct table already");
          }
          StructDef& def = out_.storage.emplace_back();
          def.name = f.struct_name;
          def.where = f.where;
          def.fields = read_fields(nested, f.versions);
          inline_structs_.insert(&def);
          (void)enclosing;
          f.def = &def;
        } else if (api_structs_.count(f.struct_name)) {
          f.def = api_structs_[f.struct_name];
        } else if (shared_.count(f.struct_name)) {
          f.def = shared_[f.struct_name];
        } else {
          cx_.fail(item, "unknown struct '" + f.struct_name + "'");
        }
      } else if (has_nested) {
        cx_.fail(item, "only a struct field has 'fields'");
      }
      if (f.flatten_below >= 0) {
        if (f.kind != Kind::Struct || !f.array || f.ever_nullable()) cx_.fail(item, "flatten needs a non-nullable array of structs");
        auto via = std::find_if(f.def->fields.begin(), f.def->fields.end(),
                                [&](const Field& g) { return g.name == f.flatten_via; });
        if (via == f.def->fields.end() || !via->array || via->ever_nullable() || via->tag >= 0) {
          cx_.fail(item, "flatten: '" + f.flatten_via + "' is not a plain array field of " + f.struct_name);
        }
      }
      fields.push_back(std::move(f));
    }
    return fields;
  }

  void read_descriptor(const YAML::Node& at, Field& f) {
    std::istringstream words(at.Scalar());
    std::string type, versions, flag;
    if (!(words >> type >> versions)) cx_.fail(at, "a field is '- name: type versions [flags]'");
    if (type.size() > 2 && type.compare(type.size() - 2, 2, "[]") == 0) {
      f.array = true;
      type.resize(type.size() - 2);
    }
    auto prim = primitive_kinds().find(type);
    if (prim != primitive_kinds().end()) {
      f.kind = prim->second;
      if (f.array && f.kind == Kind::Records) cx_.fail(at, "no arrays of records");
    } else if (is_type_name(type)) {
      f.kind = Kind::Struct;
      f.struct_name = type;
    } else {
      cx_.fail(at, "unknown type '" + type + "'");
    }
    f.versions = parse_versions(cx_, at, versions);
    if (f.versions.empty()) cx_.fail(at, "a field needs versions");
    while (words >> flag) {
      if (flag == "nullable") {
        f.nullable = f.versions;
      } else if (flag.rfind("nullable=", 0) == 0) {
        f.nullable = parse_versions(cx_, at, flag.substr(9));
      } else if (flag.rfind("tag=", 0) == 0) {
        long long tag = 0;
        if (!parse_int(flag.substr(4), tag) || tag < 0 || tag > 0x7fffffff) cx_.fail(at, "bad tag");
        f.tag = static_cast<int>(tag);
      } else if (flag.rfind("default=", 0) == 0) {
        f.default_text = flag.substr(8);
      } else if (flag.rfind("flatten<", 0) == 0) {
        size_t colon = flag.find(':');
        long long below = 0;
        if (colon == std::string::npos || !parse_int(flag.substr(8, colon - 8), below)) {
          cx_.fail(at, "flatten is 'flatten<N:array_field'");
        }
        f.flatten_below = static_cast<int>(below);
        f.flatten_via = flag.substr(colon + 1);
      } else {
        cx_.fail(at, "unknown flag '" + flag + "'");
      }
    }
    if (f.ever_nullable() && f.kind != Kind::String && f.kind != Kind::Bytes && f.kind != Kind::Records && !f.array) {
      cx_.fail(at, "only strings, bytes, records and arrays can be nullable");
    }
    if (f.default_text) check_default(at, f);
  }

  void check_default(const YAML::Node& at, const Field& f) {
    const std::string& d = *f.default_text;
    if (d == "null") {
      if (!f.ever_nullable()) cx_.fail(at, "default=null on a field that is never nullable");
      return;
    }
    if (f.array || f.kind == Kind::Struct || f.kind == Kind::Uuid || f.kind == Kind::Bytes || f.kind == Kind::Records) {
      cx_.fail(at, "only null can be the default of this type");
    }
    if (f.kind == Kind::Bool) {
      if (d != "true" && d != "false") cx_.fail(at, "a bool default is true or false");
    } else if (f.kind == Kind::String) {
      if (d.size() < 2 || d.front() != '"' || d.back() != '"' || d.find('\\') != std::string::npos ||
          d.find('"', 1) != d.size() - 1) {
        cx_.fail(at, "a string default is quoted, without spaces or escapes");
      }
    } else if (f.kind == Kind::Float64) {
      try {
        (void)std::stod(d);
      } catch (...) {
        cx_.fail(at, "bad float default");
      }
    } else if (is_integer_kind(f.kind)) {
      long long v = 0;
      if (!parse_int(d, v)) cx_.fail(at, "bad integer default '" + d + "'");
      long long lo = 0, hi = 0;
      switch (f.kind) {
        case Kind::Int8: lo = -128, hi = 127; break;
        case Kind::Uint16: lo = 0, hi = 65535; break;
        case Kind::Int32: lo = -2147483648LL, hi = 2147483647LL; break;
        case Kind::Int64: lo = INT64_MIN, hi = INT64_MAX; break;
        default: lo = -32768, hi = 32767; break;
      }
      // Kafka writes some int defaults in hex as unsigned bit patterns (0x7fffffff); accept those.
      if (v < lo || v > hi) cx_.fail(at, "default out of range for the type");
    }
  }

  Context cx_;
  SpecFile& out_;
  std::map<std::string, StructDef*> shared_;
  std::map<std::string, StructDef*> api_structs_;
  std::set<const StructDef*> inline_structs_;
  Versions valid_;
};

}  // namespace

void parse_spec(const std::string& path, SpecFile& out) {
  out.path = path;
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.find('.');
  out.stem = base.substr(0, dot);
  if (!is_snake_name(out.stem)) throw SpecError(path + ": spec file names are snake_case");
  Parser(path, out).run();
}

}  // namespace protogen
