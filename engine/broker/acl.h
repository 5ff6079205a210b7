// ACLs: Kafka's resource patterns, access control entries and the authorization rules of its
// ZooKeeper-mode AclAuthorizer, without any I/O (engine/broker/authorizer.h keeps them in zk).
//
// A binding is a resource pattern (type, name, LITERAL or PREFIXED) and an entry (principal,
// host, operation, Allow or Deny). The codes are Kafka's wire codes (DescribeAcls, CreateAcls,
// DeleteAcls); the names are Kafka's too (zk JSON, kafka-acls output).
//
// The rules (AclAuthorizer.authorize), for a principal from a host wanting an operation on a
// resource (type and name):
//   - a super user (super.users) may do everything;
//   - the ACLs that apply are those of the LITERAL pattern with the resource's name, the LITERAL
//     wildcard "*" and every PREFIXED pattern the name starts with;
//   - none at all: allowed only when allow.everyone.if.no.acl.found is true;
//   - a Deny entry for the principal (or User:*), the host (or *) and the operation (or All)
//     refuses, whatever allows it (Deny beats Allow);
//   - else an Allow entry likewise allows; Describe is implied by Read, Write, Delete and Alter,
//     DescribeConfigs by AlterConfigs;
//   - else refused.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gregor::broker {

// Kafka's ResourceType codes.
enum class AclResourceType : int8_t {
  kUnknown = 0, kAny = 1, kTopic = 2, kGroup = 3, kCluster = 4, kTransactionalId = 5, kDelegationToken = 6, kUser = 7,
};
// Kafka's PatternType codes.
enum class AclPatternType : int8_t { kUnknown = 0, kAny = 1, kMatch = 2, kLiteral = 3, kPrefixed = 4 };
// Kafka's AclOperation codes.
enum class AclOperation : int8_t {
  kUnknown = 0, kAny = 1, kAll = 2, kRead = 3, kWrite = 4, kCreate = 5, kDelete = 6, kAlter = 7, kDescribe = 8,
  kClusterAction = 9, kDescribeConfigs = 10, kAlterConfigs = 11, kIdempotentWrite = 12, kCreateTokens = 13,
  kDescribeTokens = 14,
};
// Kafka's AclPermissionType codes.
enum class AclPermission : int8_t { kUnknown = 0, kAny = 1, kDeny = 2, kAllow = 3 };

inline constexpr const char* kClusterResourceName = "kafka-cluster";
inline constexpr const char* kWildcard = "*";
inline constexpr const char* kWildcardPrincipal = "User:*";

// Kafka's names ("Topic", "Read", "Allow", "LITERAL"); "Unknown" (or "UNKNOWN") for a code it has
// no name for.
std::string resource_type_name(AclResourceType t);
std::string operation_name(AclOperation o);
std::string permission_name(AclPermission p);
std::string pattern_type_name(AclPatternType p);
// The reverse, case-insensitive, ignoring '_' and '-' ("cluster_action" reads as ClusterAction);
// nullopt for another word.
std::optional<AclResourceType> parse_resource_type(const std::string& s);
std::optional<AclOperation> parse_operation(const std::string& s);
std::optional<AclPermission> parse_permission(const std::string& s);
std::optional<AclPatternType> parse_pattern_type(const std::string& s);
// A wire code as the enum, kUnknown for a code Kafka does not define.
AclResourceType resource_type_of(int8_t code);
AclOperation operation_of(int8_t code);
AclPermission permission_of(int8_t code);
AclPatternType pattern_type_of(int8_t code);

struct ResourcePattern {
  AclResourceType type = AclResourceType::kUnknown;
  std::string name;
  AclPatternType pattern = AclPatternType::kLiteral;
  auto operator<=>(const ResourcePattern&) const = default;
  std::string to_string() const;  // Topic:LITERAL:orders
};

struct AccessControlEntry {
  std::string principal;  // User:bob, User:*
  std::string host;       // an address or *
  AclOperation operation = AclOperation::kUnknown;
  AclPermission permission = AclPermission::kUnknown;
  auto operator<=>(const AccessControlEntry&) const = default;
};

struct AclBinding {
  ResourcePattern pattern;
  AccessControlEntry entry;
  auto operator<=>(const AclBinding&) const = default;
};

// Why a binding cannot be created (Kafka's AclAuthorizer checks, answered INVALID_REQUEST), or
// nullopt when it can: no UNKNOWN or ANY element, a LITERAL or PREFIXED pattern, a non-empty name,
// kafka-cluster as the cluster's name, a principal of the form Type:name.
std::optional<std::string> invalid_binding(const AclBinding& b);

// A filter of DescribeAcls and DeleteAcls (Kafka's AclBindingFilter): null name, principal or host
// match any; ANY matches any type, pattern type, operation or permission; MATCH finds the patterns
// that apply to the named resource (the literal name, the wildcard, the prefixes).
struct AclBindingFilter {
  AclResourceType type = AclResourceType::kAny;
  std::optional<std::string> name;
  AclPatternType pattern = AclPatternType::kAny;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  AclOperation operation = AclOperation::kAny;
  AclPermission permission = AclPermission::kAny;

  bool matches(const AclBinding& b) const;
  bool matches_pattern(const ResourcePattern& p) const;
  // Why the filter is refused (INVALID_REQUEST): an UNKNOWN element. nullopt when it is fine.
  std::optional<std::string> invalid_reason() const;
};

// The ACLs a broker knows, by resource pattern, and the rules above.
class AclCache {
 public:
  struct Settings {
    std::set<std::string> super_users;  // User:alice
    bool allow_everyone_if_no_acl_found = false;
  };
  explicit AclCache(Settings settings) : settings_(std::move(settings)) {}

  // Sets one pattern's entries (an empty set removes the pattern).
  void set(const ResourcePattern& pattern, std::set<AccessControlEntry> entries);
  const std::set<AccessControlEntry>* entries(const ResourcePattern& pattern) const;
  const std::map<ResourcePattern, std::set<AccessControlEntry>>& all() const { return acls_; }
  std::vector<AclBinding> matching(const AclBindingFilter& filter) const;

  bool authorize(const std::string& principal, const std::string& host, AclOperation operation, AclResourceType type,
                 const std::string& name) const;
  // Whether the principal may do operation on some resource of the type (Kafka's
  // authorizeByResourceType, KIP-679): as on a resource no ACL names, or through an Allow entry on
  // any pattern that a Deny on the same pattern or the wildcard does not cancel.
  bool authorize_by_resource_type(const std::string& principal, const std::string& host, AclOperation operation,
                                  AclResourceType type) const;
  bool is_super_user(const std::string& principal) const { return settings_.super_users.count(principal) > 0; }

 private:
  Settings settings_;
  std::map<ResourcePattern, std::set<AccessControlEntry>> acls_;
};

// super.users: "User:alice;User:bob" (Kafka's separator is ';'), spaces around names ignored.
std::set<std::string> parse_super_users(const std::string& text);

}  // namespace gregor::broker
