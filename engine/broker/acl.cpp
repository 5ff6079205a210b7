#include "engine/broker/acl.h"

#include <array>
#include <utility>

namespace gregor::broker {

namespace {

// Lower case without '_' and '-': "CLUSTER_ACTION", "cluster-action" and "ClusterAction" read alike.
std::string fold(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == '-') continue;
    out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  }
  return out;
}

template <typename Enum, size_t N>
std::optional<Enum> parse_named(const std::string& s, const std::array<std::pair<Enum, const char*>, N>& names) {
  const std::string f = fold(s);
  for (const auto& [value, name] : names)
    if (fold(name) == f) return value;
  return std::nullopt;
}

template <typename Enum, size_t N>
std::string name_of(Enum value, const std::array<std::pair<Enum, const char*>, N>& names, const char* unknown) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return unknown;
}

const std::array<std::pair<AclResourceType, const char*>, 7> kResourceTypes = {{
    {AclResourceType::kAny, "Any"},
    {AclResourceType::kTopic, "Topic"},
    {AclResourceType::kGroup, "Group"},
    {AclResourceType::kCluster, "Cluster"},
    {AclResourceType::kTransactionalId, "TransactionalId"},
    {AclResourceType::kDelegationToken, "DelegationToken"},
    {AclResourceType::kUser, "User"},
}};
const std::array<std::pair<AclOperation, const char*>, 14> kOperations = {{
    {AclOperation::kAny, "Any"},
    {AclOperation::kAll, "All"},
    {AclOperation::kRead, "Read"},
    {AclOperation::kWrite, "Write"},
    {AclOperation::kCreate, "Create"},
    {AclOperation::kDelete, "Delete"},
    {AclOperation::kAlter, "Alter"},
    {AclOperation::kDescribe, "Describe"},
    {AclOperation::kClusterAction, "ClusterAction"},
    {AclOperation::kDescribeConfigs, "DescribeConfigs"},
    {AclOperation::kAlterConfigs, "AlterConfigs"},
    {AclOperation::kIdempotentWrite, "IdempotentWrite"},
    {AclOperation::kCreateTokens, "CreateTokens"},
    {AclOperation::kDescribeTokens, "DescribeTokens"},
}};
const std::array<std::pair<AclPermission, const char*>, 3> kPermissions = {{
    {AclPermission::kAny, "Any"},
    {AclPermission::kDeny, "Deny"},
    {AclPermission::kAllow, "Allow"},
}};
const std::array<std::pair<AclPatternType, const char*>, 4> kPatternTypes = {{
    {AclPatternType::kAny, "ANY"},
    {AclPatternType::kMatch, "MATCH"},
    {AclPatternType::kLiteral, "LITERAL"},
    {AclPatternType::kPrefixed, "PREFIXED"},
}};

template <typename Enum>
Enum checked(int8_t code, int8_t max) {
  return code >= 1 && code <= max ? static_cast<Enum>(code) : static_cast<Enum>(0);
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

}  // namespace

std::string resource_type_name(AclResourceType t) { return name_of(t, kResourceTypes, "Unknown"); }
std::string operation_name(AclOperation o) { return name_of(o, kOperations, "Unknown"); }
std::string permission_name(AclPermission p) { return name_of(p, kPermissions, "Unknown"); }
std::string pattern_type_name(AclPatternType p) { return name_of(p, kPatternTypes, "UNKNOWN"); }
std::optional<AclResourceType> parse_resource_type(const std::string& s) { return parse_named(s, kResourceTypes); }
std::optional<AclOperation> parse_operation(const std::string& s) { return parse_named(s, kOperations); }
std::optional<AclPermission> parse_permission(const std::string& s) { return parse_named(s, kPermissions); }
std::optional<AclPatternType> parse_pattern_type(const std::string& s) { return parse_named(s, kPatternTypes); }
AclResourceType resource_type_of(int8_t code) { return checked<AclResourceType>(code, 7); }
AclOperation operation_of(int8_t code) { return checked<AclOperation>(code, 14); }
AclPermission permission_of(int8_t code) { return checked<AclPermission>(code, 3); }
AclPatternType pattern_type_of(int8_t code) { return checked<AclPatternType>(code, 4); }

std::string ResourcePattern::to_string() const {
  return resource_type_name(type) + ":" + pattern_type_name(pattern) + ":" + name;
}

std::optional<std::string> invalid_binding(const AclBinding& b) {
  const ResourcePattern& p = b.pattern;
  const AccessControlEntry& e = b.entry;
  if (p.type == AclResourceType::kUnknown || p.type == AclResourceType::kAny || e.operation == AclOperation::kUnknown ||
      e.operation == AclOperation::kAny || e.permission == AclPermission::kUnknown || e.permission == AclPermission::kAny)
    return "Invalid ACL creation: " + resource_type_name(p.type) + " " + operation_name(e.operation) + " " +
           permission_name(e.permission) + " (no UNKNOWN or ANY element may be created)";
  if (p.pattern != AclPatternType::kLiteral && p.pattern != AclPatternType::kPrefixed)
    return "Invalid ACL creation: the pattern type must be LITERAL or PREFIXED, not " + pattern_type_name(p.pattern);
  if (p.name.empty()) return "Invalid empty resource name specified";
  if (p.type == AclResourceType::kCluster && p.name != kClusterResourceName)
    return std::string("The only valid name for the CLUSTER resource is ") + kClusterResourceName;
  const size_t colon = e.principal.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == e.principal.size())
    return "Invalid principal '" + e.principal + "': expected a principal of the form Type:name (User:alice)";
  if (e.host.empty()) return "Invalid empty host specified";
  return std::nullopt;
}

bool AclBindingFilter::matches_pattern(const ResourcePattern& p) const {
  if (type != AclResourceType::kAny && type != p.type) return false;
  if (pattern != AclPatternType::kAny && pattern != AclPatternType::kMatch && pattern != p.pattern) return false;
  if (!name) return true;
  if (pattern == AclPatternType::kAny || pattern == p.pattern) return *name == p.name;
  // MATCH: the patterns that apply to the named resource.
  switch (p.pattern) {
    case AclPatternType::kLiteral: return *name == p.name || p.name == kWildcard;
    case AclPatternType::kPrefixed: return starts_with(*name, p.name);
    default: return false;
  }
}

bool AclBindingFilter::matches(const AclBinding& b) const {
  if (!matches_pattern(b.pattern)) return false;
  if (principal && *principal != b.entry.principal) return false;
  if (host && *host != b.entry.host) return false;
  if (operation != AclOperation::kAny && operation != b.entry.operation) return false;
  return permission == AclPermission::kAny || permission == b.entry.permission;
}

std::optional<std::string> AclBindingFilter::invalid_reason() const {
  if (type == AclResourceType::kUnknown || pattern == AclPatternType::kUnknown || operation == AclOperation::kUnknown ||
      permission == AclPermission::kUnknown)
    return "The filter contains UNKNOWN elements";
  return std::nullopt;
}

void AclCache::set(const ResourcePattern& pattern, std::set<AccessControlEntry> entries) {
  if (entries.empty()) {
    acls_.erase(pattern);
  } else {
    acls_[pattern] = std::move(entries);
  }
}

const std::set<AccessControlEntry>* AclCache::entries(const ResourcePattern& pattern) const {
  auto it = acls_.find(pattern);
  return it == acls_.end() ? nullptr : &it->second;
}

std::vector<AclBinding> AclCache::matching(const AclBindingFilter& filter) const {
  std::vector<AclBinding> out;
  for (const auto& [pattern, entries] : acls_) {
    if (!filter.matches_pattern(pattern)) continue;
    for (const AccessControlEntry& e : entries) {
      AclBinding b{pattern, e};
      if (filter.matches(b)) out.push_back(std::move(b));
    }
  }
  return out;
}

bool AclCache::authorize(const std::string& principal, const std::string& host, AclOperation operation,
                         AclResourceType type, const std::string& name) const {
  if (is_super_user(principal)) return true;
  // The entries that apply to this resource: its literal name, the wildcard, and the prefixes of
  // its name (the map is ordered by type, name, pattern type: walk this type's prefixed patterns).
  std::vector<const AccessControlEntry*> applicable;
  auto collect = [&](const ResourcePattern& p) {
    if (const auto* es = entries(p))
      for (const AccessControlEntry& e : *es) applicable.push_back(&e);
  };
  collect({type, name, AclPatternType::kLiteral});
  if (name != kWildcard) collect({type, kWildcard, AclPatternType::kLiteral});
  for (auto it = acls_.lower_bound({type, "", AclPatternType::kUnknown}); it != acls_.end() && it->first.type == type; ++it)
    if (it->first.pattern == AclPatternType::kPrefixed && starts_with(name, it->first.name))
      for (const AccessControlEntry& e : it->second) applicable.push_back(&e);
  if (applicable.empty()) return settings_.allow_everyone_if_no_acl_found;

  auto entry_applies = [&](const AccessControlEntry& e, AclPermission permission, AclOperation op) {
    return e.permission == permission && (e.principal == principal || e.principal == kWildcardPrincipal) &&
           (e.host == kWildcard || e.host == host) && (e.operation == op || e.operation == AclOperation::kAll);
  };
  for (const AccessControlEntry* e : applicable)
    if (entry_applies(*e, AclPermission::kDeny, operation)) return false;
  std::vector<AclOperation> allowing = {operation};
  if (operation == AclOperation::kDescribe) {
    allowing = {AclOperation::kDescribe, AclOperation::kRead, AclOperation::kWrite, AclOperation::kDelete,
                AclOperation::kAlter};
  } else if (operation == AclOperation::kDescribeConfigs) {
    allowing = {AclOperation::kDescribeConfigs, AclOperation::kAlterConfigs};
  }
  for (const AccessControlEntry* e : applicable)
    for (AclOperation op : allowing)
      if (entry_applies(*e, AclPermission::kAllow, op)) return true;
  return false;
}

bool AclCache::authorize_by_resource_type(const std::string& principal, const std::string& host, AclOperation operation,
                                          AclResourceType type) const {
  // Kafka asks first about a resource named "hardcode" (one no ACL is likely to name).
  if (authorize(principal, host, operation, type, "hardcode")) return true;
  auto applies = [&](const AccessControlEntry& e, AclPermission permission) {
    return e.permission == permission && (e.principal == principal || e.principal == kWildcardPrincipal) &&
           (e.host == kWildcard || e.host == host) && (e.operation == operation || e.operation == AclOperation::kAll);
  };
  if (const auto* wildcard = entries({type, kWildcard, AclPatternType::kLiteral}))
    for (const AccessControlEntry& e : *wildcard)
      if (applies(e, AclPermission::kDeny)) return false;
  for (const auto& [pattern, es] : acls_) {
    if (pattern.type != type) continue;
    bool allowed = false, denied = false;
    for (const AccessControlEntry& e : es) {
      allowed = allowed || applies(e, AclPermission::kAllow);
      denied = denied || applies(e, AclPermission::kDeny);
    }
    if (allowed && !denied) return true;
  }
  return false;
}

std::set<std::string> parse_super_users(const std::string& text) {
  std::set<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    const size_t first = item.find_first_not_of(' ');
    const size_t last = item.find_last_not_of(' ');
    if (first != std::string::npos) out.insert(item.substr(first, last - first + 1));
    start = end + 1;
  }
  return out;
}

}  // namespace gregor::broker
