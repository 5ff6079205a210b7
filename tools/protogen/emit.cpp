// Turns the model of a spec file into C++: per message a struct with its fields and nested structs,
// and per struct four functions (encode_to, decode_from, encoded_size, min_encoded_size) made of
// straight-line code with version checks, calling the primitives of engine/protocol/codec.h.
#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "model.h"

namespace protogen {

namespace {

// ---- small text helpers -------------------------------------------------------------------------

class Code {
 public:
  void line(const std::string& text = "") {
    if (text.empty()) {
      out_ << "\n";
      return;
    }
    out_ << std::string(static_cast<size_t>(indent_) * 2, ' ') << text << "\n";
  }
  void open(const std::string& text) {
    line(text);
    indent_++;
  }
  void close(const std::string& text = "}") {
    indent_--;
    line(text);
  }
  // A line at the enclosing level between two blocks ("} else {").
  void middle(const std::string& text) {
    indent_--;
    line(text);
    indent_++;
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
  int indent_ = 0;
};

// The versions a struct's code is written for: the API's valid versions for its own structs, any
// version for a struct shared between APIs (its conditions then only test the field's own range).
Versions domain_of(const Api* api) { return api ? api->valid : Versions{0, kNoVersion}; }

// A C++ condition that is true exactly for the versions of `range` within `domain`.
std::string range_cond(const Versions& range, const Versions& domain) {
  Versions r = range.intersect(domain);
  if (r.empty()) return "false";
  if (r.lo <= domain.lo && r.hi >= domain.hi) return "true";
  std::string cond;
  if (r.lo > domain.lo) cond = "version >= " + std::to_string(r.lo);
  if (r.hi < domain.hi) cond += std::string(cond.empty() ? "" : " && ") + "version <= " + std::to_string(r.hi);
  return cond;
}

std::string wrap_if(const std::string& cond) { return cond == "true" ? "" : "if (" + cond + ") "; }

bool is_fixed_size(Kind k) {
  return k != Kind::String && k != Kind::Bytes && k != Kind::Records && k != Kind::Struct;
}

size_t fixed_size(Kind k) {
  switch (k) {
    case Kind::Int8:
    case Kind::Bool: return 1;
    case Kind::Int16:
    case Kind::Uint16:
    case Kind::Error:
    case Kind::ApiKey: return 2;
    case Kind::Int32: return 4;
    case Kind::Int64:
    case Kind::Float64: return 8;
    case Kind::Uuid: return 16;
    default: return 0;
  }
}

std::string element_type(const Field& f) {
  switch (f.kind) {
    case Kind::Int8: return "int8_t";
    case Kind::Int16: return "int16_t";
    case Kind::Int32: return "int32_t";
    case Kind::Int64: return "int64_t";
    case Kind::Uint16: return "uint16_t";
    case Kind::Float64: return "double";
    case Kind::Bool: return "bool";
    case Kind::Error: return "ErrorCode";
    case Kind::ApiKey: return "ApiKey";
    case Kind::Uuid: return "Uuid";
    case Kind::String: return "std::string";
    case Kind::Bytes: return "Bytes";
    case Kind::Records: return "Records";
    case Kind::Struct: return f.struct_name;
  }
  return "?";
}

// The member's C++ type: arrays are vectors, and a field that is nullable in some version is an
// optional (Records is nullable by itself).
std::string member_type(const Field& f) {
  std::string t = element_type(f);
  if (f.array) t = "std::vector<" + t + ">";
  if (f.ever_nullable() && f.kind != Kind::Records) t = "std::optional<" + t + ">";
  return t;
}

bool optional_member(const Field& f) { return f.ever_nullable() && f.kind != Kind::Records; }

// Whether the default is null: said so, or the field is nullable in all its versions and says
// nothing (Kafka's own convention for such fields).
bool default_is_null(const Field& f) {
  if (!f.ever_nullable()) return false;
  if (f.default_text) return *f.default_text == "null";
  return f.nullable.contains(f.versions);
}

std::string integer_literal(Kind k, const std::string& text) {
  long long v = std::stoll(text, nullptr, 0);
  std::string type = k == Kind::Int8 ? "int8_t" : k == Kind::Int32 ? "int32_t" : k == Kind::Int64 ? "int64_t" : "int16_t";
  if ((k == Kind::Int32 && v == -2147483648LL) || (k == Kind::Int64 && v == INT64_MIN)) {
    return "std::numeric_limits<" + type + ">::min()";
  }
  return std::to_string(v);
}

// The default as an expression of the member's type (for initializers and default checks).
std::string default_value(const Field& f) {
  std::string type = member_type(f);
  if (default_is_null(f)) return "std::nullopt";
  if (f.kind == Kind::Records && !f.array) return "Records(SharedBytes())";
  if (f.kind == Kind::Bytes && !f.array && optional_member(f)) return "std::optional<Bytes>(Bytes{})";
  if (f.array && optional_member(f)) return type + "(std::vector<" + element_type(f) + ">{})";
  if (f.array || f.kind == Kind::Struct || f.kind == Kind::Uuid || f.kind == Kind::Bytes) {
    return type + "{}";
  }
  const std::string d = f.default_text.value_or("");
  switch (f.kind) {
    case Kind::Bool: return d.empty() ? "false" : d;
    case Kind::Float64: return d.empty() ? "0.0" : "double(" + d + ")";
    case Kind::String: return d.empty() ? "std::string()" : "std::string(" + d + ")";
    case Kind::Error: {
      long long v = d.empty() ? 0 : std::stoll(d, nullptr, 0);
      return v == 0 ? "ErrorCode::NONE" : "static_cast<ErrorCode>(" + std::to_string(v) + ")";
    }
    case Kind::ApiKey: return "static_cast<ApiKey>(" + (d.empty() ? std::string("0") : d) + ")";
    case Kind::Uint16: return "uint16_t(" + (d.empty() ? std::string("0") : d) + ")";
    default: return element_type(f) + "(" + (d.empty() ? std::string("0") : integer_literal(f.kind, d)) + ")";
  }
}

// The member initializer (every member has one, so partial aggregate initialization stays
// warning-free under -Wmissing-field-initializers).
std::string initializer(const Field& f) {
  if (default_is_null(f)) return "{}";
  if (f.array) return optional_member(f) ? " = std::vector<" + element_type(f) + ">{}" : "{}";
  if (f.kind == Kind::Struct || f.kind == Kind::Uuid) return "{}";
  if (f.kind == Kind::Bytes || f.kind == Kind::Records) return optional_member(f) || f.kind == Kind::Records ? " = Bytes{}" : "{}";
  if (!f.default_text && f.kind != Kind::String) return "{}";
  if (!f.default_text) return optional_member(f) ? " = std::string()" : "{}";
  return " = " + default_value(f);
}

std::string is_default_check(const Field& f, const std::string& e) {
  if (f.array && !optional_member(f)) return e + ".empty()";
  if (f.array) return default_is_null(f) ? "!" + e + ".has_value()" : "(" + e + " && " + e + "->empty())";
  if (f.kind == Kind::Struct) return "(" + e + " == " + f.struct_name + "{})";
  return "(" + e + " == " + default_value(f) + ")";
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// ---- code for one field -------------------------------------------------------------------------

struct Scope {
  const Api* api;          // null for a namespace-scope struct
  std::string owner;       // the struct's name, for assertion messages
};

std::string min_size_of(const Field& f, bool as_element);

std::string min_size_of_element(const Field& f) {
  if (is_fixed_size(f.kind)) return std::to_string(fixed_size(f.kind));
  if (f.kind == Kind::String) return "(flexible ? 1u : 2u)";
  if (f.kind == Kind::Bytes || f.kind == Kind::Records) return "(flexible ? 1u : 4u)";
  return f.struct_name + "::min_encoded_size(version, flexible)";
}

std::string min_size_of(const Field& f, bool as_element) {
  if (f.array && !as_element) return "(flexible ? 1u : 4u)";
  return min_size_of_element(f);
}

class FieldCode {
 public:
  FieldCode(const Scope& scope, const Field& f) : scope_(scope), f_(f) {}

  std::string nullable_cond() const { return range_cond(f_.nullable, f_.versions.intersect(domain_of(scope_.api))); }
  std::string what() const { return quoted(scope_.owner + "." + f_.name); }

  // Writes one element (or the whole value when not an array) held in `e`.
  void put_element(Code& c, const std::string& e, bool element_of_array) const {
    std::string nullable = element_of_array ? "false" : nullable_cond();
    bool optional = !element_of_array && optional_member(f_);
    switch (f_.kind) {
      case Kind::Int8: return c.line("w.i8(" + e + ");");
      case Kind::Int16: return c.line("w.i16(" + e + ");");
      case Kind::Int32: return c.line("w.i32(" + e + ");");
      case Kind::Int64: return c.line("w.i64(" + e + ");");
      case Kind::Uint16: return c.line("w.u16(" + e + ");");
      case Kind::Float64: return c.line("codec::put_float64(w, " + e + ");");
      case Kind::Bool: return c.line("w.boolean(" + e + ");");
      case Kind::Error:
      case Kind::ApiKey: return c.line("w.i16(static_cast<int16_t>(" + e + "));");
      case Kind::Uuid: return c.line("codec::put_uuid(w, " + e + ");");
      case Kind::String:
        if (optional) return c.line("codec::put_nullable_string(w, " + e + ", flexible, " + nullable + ", " + what() + ");");
        return c.line("codec::put_string(w, " + e + ", flexible);");
      case Kind::Bytes:
        if (optional) return c.line("codec::put_nullable_bytes(w, " + e + ", flexible, " + nullable + ", " + what() + ");");
        return c.line("codec::put_bytes(w, as_view(" + e + "), flexible);");
      case Kind::Records: return c.line("codec::put_records(w, " + e + ", flexible, " + nullable + ", " + what() + ");");
      case Kind::Struct: return c.line(e + ".encode_to(w, version, flexible);");
    }
  }

  void put(Code& c, const std::string& e) const {
    if (!f_.array) return put_element(c, e, false);
    std::string items = e;
    if (optional_member(f_)) {
      c.open("if (!" + e + ") {");
      c.line("codec::put_null_length(w, flexible, " + nullable_cond() + ", " + what() + ");");
      c.middle("} else {");
      items = "(*" + e + ")";
    }
    c.line("codec::put_length(w, " + items + ".size(), flexible);");
    c.open("for (const auto& item_ : " + items + ") {");
    put_element(c, "item_", true);
    c.close();
    if (optional_member(f_)) c.close();
  }

  void get_element(Code& c, const std::string& target, const std::string& rd, bool element_of_array,
                   bool push) const {
    std::string nullable = element_of_array ? "false" : nullable_cond();
    bool optional = !element_of_array && optional_member(f_);
    std::string value;
    switch (f_.kind) {
      case Kind::Int8: value = rd + ".i8()"; break;
      case Kind::Int16: value = rd + ".i16()"; break;
      case Kind::Int32: value = rd + ".i32()"; break;
      case Kind::Int64: value = rd + ".i64()"; break;
      case Kind::Uint16: value = rd + ".u16()"; break;
      case Kind::Float64: value = "codec::get_float64(" + rd + ")"; break;
      case Kind::Bool: value = rd + ".boolean()"; break;
      case Kind::Error: value = "static_cast<ErrorCode>(" + rd + ".i16())"; break;
      case Kind::ApiKey: value = "static_cast<ApiKey>(" + rd + ".i16())"; break;
      case Kind::Uuid: value = "codec::get_uuid(" + rd + ")"; break;
      case Kind::String:
        value = optional ? "codec::get_nullable_string(" + rd + ", flexible, " + nullable + ")"
                         : "codec::get_string(" + rd + ", flexible)";
        break;
      case Kind::Bytes:
        value = optional ? "codec::get_nullable_bytes(" + rd + ", flexible, " + nullable + ")"
                         : "codec::get_bytes(" + rd + ", flexible)";
        break;
      case Kind::Records: value = "codec::get_records(" + rd + ", flexible, " + nullable + ")"; break;
      case Kind::Struct:
        if (push) return c.line(target + ".emplace_back().decode_from(" + rd + ", version, flexible);");
        return c.line(target + ".decode_from(" + rd + ", version, flexible);");
    }
    if (push) return c.line(target + ".push_back(" + value + ");");
    c.line(target + " = " + value + ";");
  }

  void get(Code& c, const std::string& target, const std::string& rd) const {
    if (!f_.array) return get_element(c, target, rd, false, false);
    c.open("{");
    c.line("int32_t count_ = codec::get_length(" + rd + ", flexible, " + (optional_member(f_) ? nullable_cond() : "false") +
           ", " + min_size_of_element(f_) + ");");
    std::string items = target;
    if (optional_member(f_)) {
      c.open("if (count_ < 0) {");
      c.line(target + " = std::nullopt;");
      c.middle("} else {");
      c.line("auto& items_ = " + target + ".emplace();");
      items = "items_";
    }
    c.line(items + ".reserve(codec::reserve_hint(count_));");
    c.open("for (int32_t i_ = 0; i_ < count_ && " + rd + ".ok(); i_++) {");
    get_element(c, items, rd, true, true);
    c.close();
    if (optional_member(f_)) c.close();
    c.close();
  }

  // An expression for the encoded size of the value in `e`.
  std::string size_element(const std::string& e, bool element_of_array) const {
    bool optional = !element_of_array && optional_member(f_);
    if (is_fixed_size(f_.kind)) return std::to_string(fixed_size(f_.kind));
    switch (f_.kind) {
      case Kind::String:
        return optional ? "codec::nullable_string_size(" + e + ", flexible)" : "codec::string_size(" + e + ", flexible)";
      case Kind::Bytes:
        return optional ? "codec::nullable_bytes_size(" + e + ", flexible)" : "codec::bytes_size(" + e + ".size(), flexible)";
      case Kind::Records: return "codec::records_size(" + e + ", flexible)";
      default: return e + ".encoded_size(version, flexible)";
    }
  }

  void size(Code& c, const std::string& e, const std::string& acc) const {
    if (!f_.array) return c.line(acc + " += " + size_element(e, false) + ";");
    std::string items = e;
    if (optional_member(f_)) {
      c.open("if (!" + e + ") {");
      c.line(acc + " += flexible ? 1 : 4;");
      c.middle("} else {");
      items = "(*" + e + ")";
    }
    c.line(acc + " += codec::length_size(" + items + ".size(), flexible);");
    if (is_fixed_size(f_.kind)) {
      c.line(acc + " += " + items + ".size() * " + std::to_string(fixed_size(f_.kind)) + ";");
    } else {
      c.line("for (const auto& item_ : " + items + ") " + acc + " += " + size_element("item_", true) + ";");
    }
    if (optional_member(f_)) c.close();
  }

 private:
  const Scope& scope_;
  const Field& f_;
};

// ---- one struct ---------------------------------------------------------------------------------

std::vector<const Field*> tagged_fields(const StructDef& s) {
  std::vector<const Field*> tagged;
  for (const Field& f : s.fields) {
    if (f.tag >= 0) tagged.push_back(&f);
  }
  std::sort(tagged.begin(), tagged.end(), [](const Field* a, const Field* b) { return a->tag < b->tag; });
  return tagged;
}

const Field& via_field(const Field& f) {
  for (const Field& g : f.def->fields) {
    if (g.name == f.flatten_via) return g;
  }
  throw SpecError(f.where + ": flatten field not found");
}

// The versions below flatten_below in which the field exists: there it is written ungrouped.
std::string flatten_cond(const Field& f, const Scope& scope) {
  return range_cond(Versions{0, f.flatten_below - 1}, f.versions.intersect(domain_of(scope.api)));
}


// Emits `if (<versions>) { emit(field) }` for each field of `fields` that is not tagged, exists in
// some version and is not `skip`, in wire order.
template <typename Emit>
void for_each_wire_field(Code& c, const Scope& scope, const std::vector<Field>& fields, const Field* skip,
                         Emit&& emit) {
  Versions domain = domain_of(scope.api);
  for (const Field& f : fields) {
    if (f.tag >= 0 || &f == skip) continue;
    std::string cond = range_cond(f.versions, domain);
    if (cond == "false") continue;
    c.open(cond == "true" ? "{" : "if (" + cond + ") {");
    emit(f);
    c.close();
  }
}

// For a flattened field, `if (<ungrouped versions>) { flat() } else { grouped() }`; for any other
// field, grouped() alone.
template <typename Flat, typename Grouped>
void flattened_or_not(Code& c, const Scope& scope, const Field& f, Flat&& flat, Grouped&& grouped) {
  if (f.flatten_below < 0) return grouped();
  c.open("if (" + flatten_cond(f, scope) + ") {");
  flat();
  c.middle("} else {");
  grouped();
  c.close();
}

void emit_encode(Code& c, const Scope& scope, const StructDef& s, const std::string& qualified) {
  c.open("void " + qualified + "::encode_to(ByteWriter& w, int16_t version, bool flexible) const {");
  c.line("(void)version;");
  c.line("(void)flexible;");
  Versions domain = domain_of(scope.api);
  for_each_wire_field(c, scope, s.fields, nullptr, [&](const Field& f) {
    flattened_or_not(
        c, scope, f,
        [&] {
          const Field& via = via_field(f);
          Scope inner{scope.api, f.struct_name};
          c.line("size_t flat_count_ = 0;");
          c.line("for (const auto& group_ : " + f.name + ") flat_count_ += group_." + via.name + ".size();");
          c.line("codec::put_length(w, flat_count_, flexible);");
          c.open("for (const auto& group_ : " + f.name + ") {");
          c.open("for (const auto& element_ : group_." + via.name + ") {");
          for_each_wire_field(c, inner, f.def->fields, &via,
                              [&](const Field& g) { FieldCode(inner, g).put(c, "group_." + g.name); });
          FieldCode(inner, via).put_element(c, "element_", true);
          c.close();
          c.close();
        },
        [&] { FieldCode(scope, f).put(c, f.name); });
  });
  if (s.has_tagged_section && tagged_fields(s).empty()) {
    c.line("if (flexible) codec::put_unknown_tags(w, unknown_tagged_fields);");
  } else if (s.has_tagged_section) {
    c.open("if (flexible) {");
    std::vector<const Field*> tagged = tagged_fields(s);
    c.line("uint32_t tag_count_ = static_cast<uint32_t>(unknown_tagged_fields.size());");
    for (const Field* f : tagged) {
      c.line("const bool has_" + f->name + "_ = " + range_cond(f->versions, domain) + " && !" +
             is_default_check(*f, f->name) + ";");
      c.line("tag_count_ += has_" + f->name + "_ ? 1 : 0;");
    }
    c.line("w.uvarint(tag_count_);");
    if (!tagged.empty()) c.line("size_t unknown_ = 0;");
    for (const Field* f : tagged) {
      FieldCode fc(scope, *f);
      c.open("if (has_" + f->name + "_) {");
      c.line("unknown_ = codec::put_unknown_tags_below(w, unknown_tagged_fields, unknown_, " + std::to_string(f->tag) + ");");
      c.line("w.uvarint(" + std::to_string(f->tag) + ");");
      c.line("size_t size_ = 0;");
      fc.size(c, f->name, "size_");
      c.line("w.uvarint(static_cast<uint32_t>(size_));");
      fc.put(c, f->name);
      c.close();
    }
    c.line(std::string("codec::put_unknown_tags_below(w, unknown_tagged_fields, ") + (tagged.empty() ? "0" : "unknown_") +
           ", UINT64_MAX);");
    c.close();
  }
  c.close();
  c.line();
}

void emit_decode(Code& c, const Scope& scope, const StructDef& s, const std::string& qualified) {
  c.open("void " + qualified + "::decode_from(ByteReader& r, int16_t version, bool flexible) {");
  c.line("(void)version;");
  c.line("(void)flexible;");
  Versions domain = domain_of(scope.api);
  for_each_wire_field(c, scope, s.fields, nullptr, [&](const Field& f) {
    flattened_or_not(
        c, scope, f,
        [&] {
          const Field& via = via_field(f);
          Scope inner{scope.api, f.struct_name};
          c.line("size_t element_min_ = " + min_size_of_element(via) + ";");
          std::string same = "!" + f.name + ".empty()";
          for (const Field& g : f.def->fields) {
            if (&g == &via || g.tag >= 0) continue;
            c.line(wrap_if(range_cond(g.versions, domain)) + "element_min_ += " + min_size_of(g, false) + ";");
            same += " && " + f.name + ".back()." + g.name + " == key_." + g.name;
          }
          c.line("int32_t flat_count_ = codec::get_length(r, flexible, false, element_min_);");
          c.open("for (int32_t flat_index_ = 0; flat_index_ < flat_count_ && r.ok(); flat_index_++) {");
          c.line(f.struct_name + " key_;");
          for_each_wire_field(c, inner, f.def->fields, &via,
                              [&](const Field& g) { FieldCode(inner, g).get(c, "key_." + g.name, "r"); });
          c.line("if (!(" + same + ")) " + f.name + ".push_back(std::move(key_));");
          FieldCode(inner, via).get_element(c, f.name + ".back()." + via.name, "r", true, true);
          c.close();
        },
        [&] { FieldCode(scope, f).get(c, f.name, "r"); });
  });
  if (s.has_tagged_section && tagged_fields(s).empty()) {
    c.line("if (flexible) codec::get_unknown_tags(r, unknown_tagged_fields);");
  } else if (s.has_tagged_section) {
    std::vector<const Field*> tagged = tagged_fields(s);
    c.open("if (flexible) {");
    c.line("uint32_t tag_count_ = codec::get_tag_count(r);");
    c.open("for (uint32_t tag_index_ = 0; tag_index_ < tag_count_ && r.ok(); tag_index_++) {");
    c.line("uint32_t tag_ = 0;");
    c.line("ByteView data_;");
    c.line("if (!codec::get_tagged_field(r, tag_, data_)) break;");
    c.line("bool known_ = false;");
    if (!tagged.empty()) {
      c.open("switch (tag_) {");
      for (const Field* f : tagged) {
        c.open("case " + std::to_string(f->tag) + ":");
        c.open("if (" + range_cond(f->versions, domain) + ") {");
        c.line("known_ = true;");
        c.line("ByteReader field_(data_);");
        FieldCode(scope, *f).get(c, f->name, "field_");
        c.line("codec::finish_tagged_field(r, field_);");
        c.close();
        c.line("break;");
        c.close("");
      }
      c.open("default:");
      c.line("break;");
      c.close("");
      c.close();
    }
    c.line("if (!known_) unknown_tagged_fields.push_back(RawTaggedField{tag_, Bytes(data_.begin(), data_.end())});");
    c.close();
    c.close();
  }
  c.close();
  c.line();
}

void emit_size(Code& c, const Scope& scope, const StructDef& s, const std::string& qualified) {
  c.open("size_t " + qualified + "::encoded_size(int16_t version, bool flexible) const {");
  c.line("(void)version;");
  c.line("(void)flexible;");
  c.line("size_t size_ = 0;");
  Versions domain = domain_of(scope.api);
  for_each_wire_field(c, scope, s.fields, nullptr, [&](const Field& f) {
    flattened_or_not(
        c, scope, f,
        [&] {
          const Field& via = via_field(f);
          Scope inner{scope.api, f.struct_name};
          c.line("size_t flat_count_ = 0;");
          c.open("for (const auto& group_ : " + f.name + ") {");
          c.line("size_t key_size_ = 0;");
          for_each_wire_field(c, inner, f.def->fields, &via,
                              [&](const Field& g) { FieldCode(inner, g).size(c, "group_." + g.name, "key_size_"); });
          c.line("flat_count_ += group_." + via.name + ".size();");
          c.line("size_ += key_size_ * group_." + via.name + ".size();");
          if (is_fixed_size(via.kind)) {
            c.line("size_ += group_." + via.name + ".size() * " + std::to_string(fixed_size(via.kind)) + ";");
          } else {
            c.line("for (const auto& element_ : group_." + via.name + ") size_ += " +
                   FieldCode(inner, via).size_element("element_", true) + ";");
          }
          c.close();
          c.line("size_ += codec::length_size(flat_count_, flexible);");
        },
        [&] { FieldCode(scope, f).size(c, f.name, "size_"); });
  });
  if (s.has_tagged_section && tagged_fields(s).empty()) {
    c.line("if (flexible) size_ += codec::unknown_tags_section_size(unknown_tagged_fields);");
  } else if (s.has_tagged_section) {
    std::vector<const Field*> tagged = tagged_fields(s);
    c.open("if (flexible) {");
    c.line("uint32_t tag_count_ = static_cast<uint32_t>(unknown_tagged_fields.size());");
    c.line("size_ += codec::unknown_tags_size(unknown_tagged_fields);");
    for (const Field* f : tagged) {
      c.open("if (" + range_cond(f->versions, domain) + " && !" + is_default_check(*f, f->name) + ") {");
      c.line("size_t field_size_ = 0;");
      FieldCode(scope, *f).size(c, f->name, "field_size_");
      c.line("size_ += codec::uvarint_size(" + std::to_string(f->tag) + ") + codec::uvarint_size(field_size_) + field_size_;");
      c.line("tag_count_++;");
      c.close();
    }
    c.line("size_ += codec::uvarint_size(tag_count_);");
    c.close();
  }
  c.line("return size_;");
  c.close();
  c.line();
}

void emit_min_size(Code& c, const Scope& scope, const StructDef& s, const std::string& qualified) {
  c.open("size_t " + qualified + "::min_encoded_size(int16_t version, bool flexible) {");
  c.line("(void)version;");
  c.line("(void)flexible;");
  c.line("size_t size_ = 0;");
  Versions domain = domain_of(scope.api);
  for (const Field& f : s.fields) {
    if (f.tag >= 0) continue;
    std::string cond = range_cond(f.versions, domain);
    if (cond == "false") continue;
    c.line(wrap_if(cond) + "size_ += " + min_size_of(f, false) + ";");
  }
  if (s.has_tagged_section) c.line("if (flexible) size_ += 1;");
  c.line("return size_;");
  c.close();
  c.line();
}

std::string field_comment(const Field& f, const Versions& domain) {
  std::vector<std::string> notes;
  Versions v = f.versions.intersect(domain);
  if (!(v.lo <= domain.lo && v.hi >= domain.hi)) notes.push_back("v" + f.versions.text());
  Versions n = f.nullable.intersect(v);
  if (!n.empty() && !(n.lo <= v.lo && n.hi >= v.hi)) notes.push_back("nullable v" + f.nullable.text());
  if (f.tag >= 0) notes.push_back("tag_ " + std::to_string(f.tag));
  if (f.flatten_below >= 0) notes.push_back("ungrouped below v" + std::to_string(f.flatten_below));
  if (notes.empty()) return "";
  std::string text = "  // ";
  for (size_t i = 0; i < notes.size(); i++) text += (i ? ", " : "") + notes[i];
  return text;
}

void declare_struct_members(Code& c, const StructDef& s, const Versions& domain) {
  for (const Field& f : s.fields) {
    c.line(member_type(f) + " " + f.name + initializer(f) + ";" + field_comment(f, domain));
  }
  if (s.has_tagged_section) c.line("TaggedFields unknown_tagged_fields{};  // tags this codec does not know, kept as read");
}

void declare_codec_functions(Code& c, const std::string& name) {
  c.line("void encode_to(ByteWriter& w, int16_t version, bool flexible) const;");
  c.line("void decode_from(ByteReader& r, int16_t version, bool flexible);");
  c.line("size_t encoded_size(int16_t version, bool flexible) const;");
  c.line("static size_t min_encoded_size(int16_t version, bool flexible);");
  c.line("bool operator==(const " + name + "&) const = default;");
}

void declare_struct(Code& c, const StructDef& s, const Versions& domain) {
  c.open("struct " + s.name + " {");
  declare_struct_members(c, s, domain);
  c.line();
  declare_codec_functions(c, s.name);
  c.close("};");
}

std::string api_key_enumerator(const std::string& api_name) {
  std::string out;
  for (size_t i = 0; i < api_name.size(); i++) {
    char ch = api_name[i];
    if (i > 0 && std::isupper(static_cast<unsigned char>(ch))) out += '_';
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  }
  return out;
}

void declare_message(Code& c, const Api& api, const Message& m) {
  c.open("struct " + m.cpp_name + " {");
  c.line("static constexpr ApiKey kApiKey = ApiKey::" + api_key_enumerator(api.name) + ";");
  c.line("static constexpr int16_t kMinVersion = " + std::to_string(api.valid.lo) + ";");
  c.line("static constexpr int16_t kMaxVersion = " + std::to_string(api.valid.hi) + ";");
  c.line("// The first flexible version (KIP-482), or -1 when no version is flexible.");
  c.line("static constexpr int16_t kFirstFlexibleVersion = " +
         std::to_string(api.flexible.empty() ? -1 : api.flexible.lo) + ";");
  c.line("static constexpr bool is_flexible(int16_t version) {");
  c.line("  return kFirstFlexibleVersion >= 0 && version >= kFirstFlexibleVersion;");
  c.line("}");
  c.line();
  for (const StructDef* s : m.nested) {
    declare_struct(c, *s, api.valid);
    c.line();
  }
  declare_struct_members(c, m.body, api.valid);
  c.line();
  c.line("// REQUIRES: kMinVersion <= version <= kMaxVersion.");
  c.line("void encode(ByteWriter& w, int16_t version) const;");
  c.line("// Reads the body at `version`; an error for a version outside the API's range or malformed input.");
  c.line("static Result<" + m.cpp_name + "> decode(ByteReader& r, int16_t version);");
  c.line("// The exact number of bytes encode() writes.");
  c.line("size_t encoded_size(int16_t version) const { return encoded_size(version, is_flexible(version)); }");
  c.line();
  c.line("// The codec of the body as a struct (used by encode/decode and by tests).");
  declare_codec_functions(c, m.cpp_name);
  c.close("};");
}

void define_struct(Code& c, const Scope& scope, const StructDef& s, const std::string& qualified) {
  emit_encode(c, scope, s, qualified);
  emit_decode(c, scope, s, qualified);
  emit_size(c, scope, s, qualified);
  emit_min_size(c, scope, s, qualified);
}

void define_message(Code& c, const Api& api, const Message& m) {
  for (const StructDef* s : m.nested) {
    define_struct(c, Scope{&api, m.cpp_name + "." + s->name}, *s, m.cpp_name + "::" + s->name);
  }
  define_struct(c, Scope{&api, m.cpp_name}, m.body, m.cpp_name);
  c.open("void " + m.cpp_name + "::encode(ByteWriter& w, int16_t version) const {");
  c.line("GREGOR_ASSERT_MSG(version >= kMinVersion && version <= kMaxVersion,");
  c.line("                  \"" + m.cpp_name + " has no version \" + std::to_string(version));");
  c.line("encode_to(w, version, is_flexible(version));");
  c.close();
  c.line();
  c.open("Result<" + m.cpp_name + "> " + m.cpp_name + "::decode(ByteReader& r, int16_t version) {");
  c.line("if (version < kMinVersion || version > kMaxVersion) return unsupported_version_status(\"" + m.cpp_name +
         "\", version);");
  c.line(m.cpp_name + " m;");
  c.line("m.decode_from(r, version, is_flexible(version));");
  c.line("if (!r.ok()) return malformed_status(\"" + m.cpp_name + "\", version);");
  c.line("return m;");
  c.close();
  c.line();
}

const char* kBanner = "// Generated by tools/protogen from engine/protocol/specs/";

}  // namespace

Emitted emit_spec(const SpecFile& spec) {
  Emitted out;
  Code h;
  h.line(std::string(kBanner) + spec.stem + ".yaml. Do not edit: edit the spec.");
  h.line("#pragma once");
  h.line();
  for (const char* inc : {"<cstddef>", "<cstdint>", "<limits>", "<optional>", "<string>", "<vector>"}) {
    h.line(std::string("#include ") + inc);
  }
  h.line();
  for (const char* inc : {"engine/core/bytes.h", "engine/core/status.h", "engine/core/uuid.h",
                          "engine/protocol/api_keys.h", "engine/protocol/codec.h", "engine/protocol/errors.h",
                          "engine/protocol/records_field.h"}) {
    h.line(std::string("#include \"") + inc + "\"");
  }
  h.line();
  h.line("namespace gregor::protocol {");
  h.line();
  for (const StructDef* s : spec.shared) {
    declare_struct(h, *s, Versions{0, kNoVersion});
    h.line();
  }
  for (const Api& api : spec.apis) {
    h.line("// " + api.name + " (api key_ " + std::to_string(api.key) + "): versions " + api.valid.text() +
           ", flexible " + api.flexible.text() + (api.deprecated.empty() ? "" : ", deprecated " + api.deprecated.text()) +
           ".");
    declare_message(h, api, api.request);
    h.line();
    declare_message(h, api, api.response);
    h.line();
  }
  h.line("}  // namespace gregor::protocol");
  out.header = h.str();

  Code s;
  s.line(std::string(kBanner) + spec.stem + ".yaml. Do not edit: edit the spec.");
  s.line("#include \"generated/protocol/" + spec.stem + ".h\"");
  s.line();
  s.line("namespace gregor::protocol {");
  s.line();
  for (const StructDef* st : spec.shared) define_struct(s, Scope{nullptr, st->name}, *st, st->name);
  for (const Api& api : spec.apis) {
    define_message(s, api, api.request);
    define_message(s, api, api.response);
  }
  s.line("}  // namespace gregor::protocol");
  out.source = s.str();
  return out;
}

std::string emit_api_table(const std::vector<const SpecFile*>& specs) {
  std::vector<const Api*> apis;
  for (const SpecFile* spec : specs) {
    for (const Api& api : spec->apis) apis.push_back(&api);
  }
  std::sort(apis.begin(), apis.end(), [](const Api* a, const Api* b) { return a->key < b->key; });
  Code c;
  c.line("// Generated by tools/protogen from engine/protocol/specs/*.yaml. Do not edit.");
  c.line("#include \"engine/protocol/api_specs.h\"");
  c.line();
  c.line("namespace gregor::protocol {");
  c.line();
  c.line("namespace {");
  c.line();
  c.line("// api key_, name, valid versions, first flexible version (-1: never), deprecated versions (-1: none).");
  c.open("constexpr ApiSpec kSpecs[] = {");
  for (const Api* api : apis) {
    c.line("{ApiKey::" + api_key_enumerator(api->name) + ", \"" + api->name + "\", " + std::to_string(api->valid.lo) +
           ", " + std::to_string(api->valid.hi) + ", " + std::to_string(api->flexible.empty() ? -1 : api->flexible.lo) +
           ", " + std::to_string(api->deprecated.empty() ? -1 : api->deprecated.lo) + ", " +
           std::to_string(api->deprecated.empty() ? -1 : api->deprecated.hi) + "},");
  }
  c.close("};");
  c.line();
  c.line("}  // namespace");
  c.line();
  c.line("std::span<const ApiSpec> kafka_api_specs() { return kSpecs; }");
  c.line();
  c.line("}  // namespace gregor::protocol");
  return c.str();
}

// ---- test support: samples ----------------------------------------------------------------------

namespace {

void emit_fill_field(Code& c, const Scope& scope, const Field& f, const std::string& target, bool element);

std::string sample_scalar(const Field& f, bool element) {
  // An array's elements have no default of their own: zero.
  std::string d = element ? (f.kind == Kind::Bool ? "false" : f.kind == Kind::Float64 ? "0.0" : f.kind == Kind::Error ? "ErrorCode::NONE" : f.kind == Kind::ApiKey ? "static_cast<ApiKey>(0)" : element_type(f) + "(0)") : default_value(f);
  switch (f.kind) {
    case Kind::Bool: return "!" + d;
    case Kind::Float64: return d + " + 1.5";
    case Kind::Error:
    case Kind::ApiKey: return "static_cast<" + element_type(f) + ">(static_cast<int16_t>(" + d + ") + s.small())";
    case Kind::Uuid: return "s.uuid()";
    default: return "static_cast<" + element_type(f) + ">(" + d + " + s.small())";
  }
}

void emit_fill_value(Code& c, const Scope& scope, const Field& f, const std::string& target, bool element) {
  std::string nullable = element ? "false" : FieldCode(scope, f).nullable_cond();
  switch (f.kind) {
    case Kind::Struct: return c.line("fill(" + target + ", version, flexible, s);");
    case Kind::String:
      if (!element && optional_member(f)) {
        return c.line(target + " = (" + nullable + ") && s.null_now() ? std::nullopt : std::optional<std::string>(s.text());");
      }
      return c.line(target + " = s.text();");
    case Kind::Bytes:
      if (!element && optional_member(f)) {
        return c.line(target + " = (" + nullable + ") && s.null_now() ? std::nullopt : std::optional<Bytes>(s.bytes());");
      }
      return c.line(target + " = s.bytes();");
    case Kind::Records:
      return c.line(target + " = (" + nullable + ") && s.null_now() ? Records() : Records(SharedBytes(s.bytes()));");
    default: return c.line(target + " = " + sample_scalar(f, element) + ";");
  }
}

void emit_fill_field(Code& c, const Scope& scope, const Field& f, const std::string& target, bool element) {
  if (!f.array || element) return emit_fill_value(c, scope, f, target, element);
  c.open("{");
  c.line("size_t count = s.count();");
  if (optional_member(f)) {
    c.open("if ((" + FieldCode(scope, f).nullable_cond() + ") && s.null_now()) {");
    c.line(target + " = std::nullopt;");
    c.middle("} else {");
    c.line("auto& items = " + target + ".emplace();");
  } else {
    c.line("auto& items = " + target + ";");
  }
  if (f.flatten_below >= 0) {
    // Ungrouped versions cannot carry an empty group, and regroup by key: keep groups non-empty
    // (their keys are distinct sample texts).
    c.line("if (" + flatten_cond(f, scope) + " && count == 0) count = 1;");
  }
  c.open("for (size_t i = 0; i < count; i++) {");
  c.line("items.emplace_back();");
  emit_fill_field(c, scope, f, "items.back()", true);
  if (f.flatten_below >= 0) {
    const Field& via = via_field(f);
    c.line("if (" + flatten_cond(f, scope) + " && items.back()." + via.name + ".empty()) items.back()." + via.name +
           ".emplace_back();");
  }
  c.close();
  if (optional_member(f)) c.close();
  c.close();
}

void emit_fill_struct(Code& c, const Scope& scope, const StructDef& s, const std::string& qualified) {
  c.open("[[maybe_unused]] void fill(" + qualified + "& x, int16_t version, bool flexible, Sampler& s) {");
  c.line("(void)version;");
  c.line("(void)flexible;");
  Versions domain = domain_of(scope.api);
  for (const Field& f : s.fields) {
    std::string cond = range_cond(f.versions, domain);
    if (cond == "false") continue;
    if (f.tag >= 0) cond = "(" + cond + ") && s.chance(70)";
    c.open(cond == "true" ? "{" : "if (" + cond + ") {");
    emit_fill_field(c, scope, f, "x." + f.name, false);
    c.close();
  }
  if (s.has_tagged_section) c.line("if (flexible) s.unknown_tags(x.unknown_tagged_fields);");
  c.close();
  c.line();
}

}  // namespace

Emitted emit_samples(const std::vector<const SpecFile*>& specs) {
  Emitted out;
  Code h;
  h.line("// Generated by tools/protogen from engine/protocol/specs/*.yaml. Do not edit.");
  h.line("// Test support: a sample of every message at every version, and a catalog of the messages.");
  h.line("#pragma once");
  h.line();
  h.line("#include <cstdint>");
  h.line("#include <span>");
  h.line("#include <string>");
  h.line();
  h.line("#include \"engine/core/bytes.h\"");
  h.line("#include \"engine/protocol/api_keys.h\"");
  for (const SpecFile* spec : specs) h.line("#include \"generated/protocol/" + spec->stem + ".h\"");
  h.line();
  h.line("namespace gregor::protocol::spec_samples {");
  h.line();
  h.line("// Sets every field that `version` carries to a value other than its default (nulls, empty");
  h.line("// arrays, absent tagged fields and unknown tagged fields now and then, as the seed decides);");
  h.line("// fields the version does not carry keep their defaults, which is what decoding yields.");
  for (const SpecFile* spec : specs) {
    for (const Api& api : spec->apis) {
      for (const Message* m : {&api.request, &api.response}) {
        h.line("void fill_sample(" + m->cpp_name + "& m, int16_t version, uint64_t seed);");
      }
    }
  }
  h.line();
  h.open("struct MessageInfo {");
  h.line("ApiKey api_key;");
  h.line("bool request;");
  h.line("const char* name;");
  h.line("int16_t min_version;");
  h.line("int16_t max_version;");
  h.line("int16_t first_flexible_version;  // -1: never");
  h.line("// The encoded sample of (version, seed).");
  h.line("Bytes (*sample)(int16_t version, uint64_t seed);");
  h.line("// Whether `body` decodes at `version`, to its last byte.");
  h.line("bool (*decodes)(ByteView body, int16_t version);");
  h.line("// Encodes the sample, checks encoded_size, decodes, compares, re-encodes and compares the bytes;");
  h.line("// \"\" when all holds, else what did not.");
  h.line("std::string (*round_trip)(int16_t version, uint64_t seed);");
  h.close("};");
  h.line();
  h.line("// Every request and response of every spec, ordered by api key, request first.");
  h.line("std::span<const MessageInfo> all_messages();");
  h.line();
  h.line("}  // namespace gregor::protocol::spec_samples");
  out.header = h.str();

  Code c;
  c.line("// Generated by tools/protogen from engine/protocol/specs/*.yaml. Do not edit.");
  c.line("#include \"generated/protocol/samples.h\"");
  c.line();
  c.line("#include <vector>");
  c.line();
  c.line("namespace gregor::protocol::spec_samples {");
  c.line();
  c.line("namespace {");
  c.line();
  c.line("// Deterministic values from a seed (splitmix64), small enough to keep samples short.");
  c.open("class Sampler {");
  c.line(" public:");
  c.line("explicit Sampler(uint64_t seed) : state_(seed), nulls_(seed % 3 == 1) {}");
  c.open("uint64_t next() {");
  c.line("uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);");
  c.line("z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;");
  c.line("z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;");
  c.line("return z ^ (z >> 31);");
  c.close();
  c.line("bool chance(int percent) { return static_cast<int>(next() % 100) < percent; }");
  c.line("// 1..100: added to a default, never yields the default.");
  c.line("int small() { return 1 + static_cast<int>(next() % 100); }");
  c.line("bool null_now() { return nulls_ && chance(50); }");
  c.line("size_t count() { return chance(15) ? 0 : 1 + next() % 2; }");
  c.line("std::string text() { return \"s\" + std::to_string(counter_++); }");
  c.open("Bytes bytes() {");
  c.line("Bytes b(next() % 6);");
  c.line("for (uint8_t& byte : b) byte = static_cast<uint8_t>(next());");
  c.line("return b;");
  c.close();
  c.line("Uuid uuid() { return Uuid(next() | 1, next()); }");
  c.line("// Unknown tags above every known one, ascending, so re-encoding keeps their order.");
  c.open("void unknown_tags(TaggedFields& fields) {");
  c.line("if (!chance(30)) return;");
  c.line("fields.push_back(RawTaggedField{100 + static_cast<uint32_t>(next() % 10), bytes()});");
  c.line("if (chance(50)) fields.push_back(RawTaggedField{200, bytes()});");
  c.close();
  c.line();
  c.line(" private:");
  c.line("uint64_t state_;");
  c.line("bool nulls_;");
  c.line("int counter_ = 0;");
  c.close("};");
  c.line();
  // Declarations first: fill functions call each other in any order.
  for (const SpecFile* spec : specs) {
    for (const StructDef* s : spec->shared) c.line("void fill(" + s->name + "& x, int16_t version, bool flexible, Sampler& s);");
    for (const Api& api : spec->apis) {
      for (const Message* m : {&api.request, &api.response}) {
        for (const StructDef* s : m->nested) {
          c.line("void fill(" + m->cpp_name + "::" + s->name + "& x, int16_t version, bool flexible, Sampler& s);");
        }
        c.line("void fill(" + m->cpp_name + "& x, int16_t version, bool flexible, Sampler& s);");
      }
    }
  }
  c.line();
  for (const SpecFile* spec : specs) {
    for (const StructDef* s : spec->shared) emit_fill_struct(c, Scope{nullptr, s->name}, *s, s->name);
    for (const Api& api : spec->apis) {
      for (const Message* m : {&api.request, &api.response}) {
        for (const StructDef* s : m->nested) {
          emit_fill_struct(c, Scope{&api, m->cpp_name + "." + s->name}, *s, m->cpp_name + "::" + s->name);
        }
        emit_fill_struct(c, Scope{&api, m->cpp_name}, m->body, m->cpp_name);
      }
    }
  }
  c.open("template <typename M>");
  c.line("Bytes sample(int16_t version, uint64_t seed) {");
  c.line("  M m;");
  c.line("  fill_sample(m, version, seed);");
  c.line("  ByteWriter w;");
  c.line("  m.encode(w, version);");
  c.line("  return w.take();");
  c.close("}");
  c.line();
  c.open("template <typename M>");
  c.line("bool decodes(ByteView body, int16_t version) {");
  c.line("  ByteReader r(body);");
  c.line("  return M::decode(r, version).is_ok() && r.at_end();");
  c.close("}");
  c.line();
  c.open("template <typename M>");
  c.line("std::string round_trip(int16_t version, uint64_t seed) {");
  c.line("  M m;");
  c.line("  fill_sample(m, version, seed);");
  c.line("  ByteWriter w;");
  c.line("  m.encode(w, version);");
  c.line("  Bytes bytes = w.take();");
  c.line("  if (m.encoded_size(version) != bytes.size()) {");
  c.line("    return \"encoded_size \" + std::to_string(m.encoded_size(version)) + \" but \" + std::to_string(bytes.size()) + \" bytes written\";");
  c.line("  }");
  c.line("  ByteReader r(as_view(bytes));");
  c.line("  Result<M> back = M::decode(r, version);");
  c.line("  if (!back.is_ok()) return \"decode failed: \" + back.status().to_string();");
  c.line("  if (!r.at_end()) return std::to_string(r.remaining()) + \" bytes left after decoding\";");
  c.line("  if (!(back.value() == m)) return \"the decoded message differs from the encoded one\";");
  c.line("  ByteWriter again;");
  c.line("  back.value().encode(again, version);");
  c.line("  if (again.bytes_ref() != bytes) return \"re-encoding the decoded message gives other bytes\";");
  c.line("  return \"\";");
  c.close("}");
  c.line();
  c.line("struct Entry {");
  c.line("  int key;");
  c.line("  MessageInfo info;");
  c.line("};");
  c.line();
  c.line("}  // namespace");
  c.line();
  for (const SpecFile* spec : specs) {
    for (const Api& api : spec->apis) {
      for (const Message* m : {&api.request, &api.response}) {
        c.open("void fill_sample(" + m->cpp_name + "& m, int16_t version, uint64_t seed) {");
        c.line("Sampler s(seed);");
        c.line("fill(m, version, " + m->cpp_name + "::is_flexible(version), s);");
        c.close();
        c.line();
      }
    }
  }
  std::vector<std::pair<int, std::string>> entries;
  for (const SpecFile* spec : specs) {
    for (const Api& api : spec->apis) {
      for (const Message* m : {&api.request, &api.response}) {
        std::string n = m->cpp_name;
        entries.emplace_back(api.key * 2 + (m->request ? 0 : 1),
                             "MessageInfo{" + n + "::kApiKey, " + (m->request ? "true" : "false") + ", \"" + n + "\", " +
                                 n + "::kMinVersion, " + n + "::kMaxVersion, " + n + "::kFirstFlexibleVersion, &sample<" +
                                 n + ">, &decodes<" + n + ">, &round_trip<" + n + ">}");
      }
    }
  }
  std::sort(entries.begin(), entries.end());
  c.open("std::span<const MessageInfo> all_messages() {");
  c.open("static const MessageInfo kMessages[] = {");
  for (const auto& e : entries) c.line(e.second + ",");
  c.close("};");
  c.line("return kMessages;");
  c.close();
  c.line();
  c.line("}  // namespace gregor::protocol::spec_samples");
  out.source = c.str();
  return out;
}

}  // namespace protogen
