#include "engine/broker/authorizer.h"

#include <algorithm>
#include <memory>

#include "engine/broker/async_steps.h"
#include "engine/broker/zk_data.h"
#include "engine/core/json.h"

namespace gregor::broker {

using coord::CreateMode;
using coord::ZkError;

namespace {

constexpr const char* kLiteralRoot = "/kafka-acl";
constexpr const char* kExtendedRoot = "/kafka-acl-extended";
constexpr const char* kPrefixedRoot = "/kafka-acl-extended/prefixed";
constexpr const char* kLiteralChanges = "/kafka-acl-changes";
constexpr const char* kExtendedChanges = "/kafka-acl-extended-changes";
constexpr const char* kChangePrefix = "/acl_changes_";
// Conflicting writes of one pattern's znode (another broker's CreateAcls at the same moment) are
// retried with what zk has then; this many times at most.
constexpr int kUpdateAttemptsMax = 10;

// The resource types that have a folder in each store (Kafka's ResourceType values but ANY/UNKNOWN).
const std::vector<AclResourceType> kStoredTypes = {AclResourceType::kTopic, AclResourceType::kGroup,
                                                   AclResourceType::kCluster, AclResourceType::kTransactionalId,
                                                   AclResourceType::kDelegationToken, AclResourceType::kUser};

std::string text_of(ByteView data) { return std::string(reinterpret_cast<const char*>(data.data()), data.size()); }

// A change notification's pattern: "Topic:orders" in the literal store's, JSON in the extended one's.
std::optional<ResourcePattern> decode_change(const std::string& changes_path, ByteView data) {
  const std::string text = text_of(data);
  if (changes_path == kLiteralChanges) {
    const size_t colon = text.find(':');
    if (colon == std::string::npos) return std::nullopt;
    auto type = parse_resource_type(text.substr(0, colon));
    if (!type) return std::nullopt;
    return ResourcePattern{*type, text.substr(colon + 1), AclPatternType::kLiteral};
  }
  auto j = Json::parse(text);
  if (!j) return std::nullopt;
  auto type = parse_resource_type((*j)["resourceType"].as_string());
  auto pattern = parse_pattern_type((*j)["patternType"].as_string());
  if (!type || !pattern || (*j)["name"].as_string().empty()) return std::nullopt;
  return ResourcePattern{*type, (*j)["name"].as_string(), *pattern};
}

Bytes encode_change(const ResourcePattern& p) {
  if (p.pattern == AclPatternType::kLiteral) return to_bytes(resource_type_name(p.type) + ":" + p.name);
  Json::Object o;
  o["version"] = Json(1);
  o["resourceType"] = Json(resource_type_name(p.type));
  o["name"] = Json(p.name);
  o["patternType"] = Json(pattern_type_name(p.pattern));
  return to_bytes(Json(std::move(o)).dump());
}

}  // namespace

Authorizer::Authorizer(Runtime& rt, const BrokerConfig& config, coord::ZkClient& zk)
    : rt_(rt),
      zk_(zk),
      enabled_(!config.authorizer_class_name.empty()),
      cache_(AclCache::Settings{parse_super_users(config.super_users), config.allow_everyone_if_no_acl_found}) {}

std::string Authorizer::path_of(const ResourcePattern& p) {
  const std::string root = p.pattern == AclPatternType::kPrefixed ? kPrefixedRoot : kLiteralRoot;
  return root + "/" + resource_type_name(p.type) + "/" + p.name;
}

Bytes Authorizer::encode_entries(const std::set<AccessControlEntry>& entries) {
  Json::Array acls;
  for (const AccessControlEntry& e : entries) {
    Json::Object o;
    o["principal"] = Json(e.principal);
    o["permissionType"] = Json(permission_name(e.permission));
    o["operation"] = Json(operation_name(e.operation));
    o["host"] = Json(e.host);
    acls.push_back(Json(std::move(o)));
  }
  Json::Object top;
  top["version"] = Json(1);
  top["acls"] = Json(std::move(acls));
  return to_bytes(Json(std::move(top)).dump());
}

Result<std::set<AccessControlEntry>> Authorizer::decode_entries(ByteView data) {
  auto j = Json::parse(text_of(data));
  if (!j) return j.status();
  if (!j->is_object() || !(*j)["acls"].is_array())
    return Status::error(StatusCode::kCorruption, "an ACL znode without an \"acls\" array");
  std::set<AccessControlEntry> out;
  for (const Json& a : (*j)["acls"].as_array()) {
    auto op = parse_operation(a["operation"].as_string());
    auto permission = parse_permission(a["permissionType"].as_string());
    if (!op || !permission || a["principal"].as_string().empty() || a["host"].as_string().empty())
      return Status::error(StatusCode::kCorruption, "an ACL entry that is not Kafka's: " + a.dump());
    out.insert({a["principal"].as_string(), a["host"].as_string(), *op, *permission});
  }
  return out;
}

bool Authorizer::authorize(const std::string& principal, const std::string& host, AclOperation operation,
                           AclResourceType type, const std::string& name) const {
  if (!enabled_) return true;
  return cache_.authorize(principal, host, operation, type, name);
}

void Authorizer::start() {
  if (!enabled_) return;
  // Kafka's createAclPaths: both stores, a folder per resource type, both change paths. Creates
  // answer in order on the session, before the listings below; NodeExists is fine.
  auto create = [this](const std::string& path) {
    zk_.create(path, std::nullopt, CreateMode::kPersistent, [](ZkError, std::string) {});
  };
  create(kLiteralRoot);
  create(kExtendedRoot);
  create(kPrefixedRoot);
  for (AclResourceType t : kStoredTypes) {
    create(std::string(kLiteralRoot) + "/" + resource_type_name(t));
    create(std::string(kPrefixedRoot) + "/" + resource_type_name(t));
  }
  create(kLiteralChanges);
  create(kExtendedChanges);
  // Mark the newest notifications first, then read everything: a change after the mark is both
  // read whole and notified, which is harmless.
  last_change_.clear();
  list_changes(kLiteralChanges, true);
  list_changes(kExtendedChanges, true);
  load_all();
}

bool Authorizer::on_watch(const coord::WatchEvent& e) {
  if (!enabled_ || e.type != coord::WatchType::kNodeChildrenChanged) return false;
  if (e.path != kLiteralChanges && e.path != kExtendedChanges) return false;
  list_changes(e.path, false);
  return true;
}

void Authorizer::list_changes(const std::string& changes_path, bool first) {
  zk_.get_children(changes_path, true, [this, changes_path, first](ZkError err, std::vector<std::string> kids) {
    if (err != ZkError::kOk) return;
    std::sort(kids.begin(), kids.end());
    auto it = last_change_.find(changes_path);
    const int64_t last = it == last_change_.end() ? -1 : it->second;
    int64_t newest = last;
    std::vector<std::string> fresh;
    for (const auto& k : kids) {
      const int64_t seq = sequence_of(k);
      if (seq < 0) continue;
      if (!first && seq > last) fresh.push_back(k);
      newest = std::max(newest, seq);
    }
    last_change_[changes_path] = newest;
    sequentially<std::string>(
        fresh,
        [this, changes_path](const std::string& k, std::function<void()> next) {
          zk_.get_data(changes_path + "/" + k, false, [this, changes_path, next](ZkError e2, Bytes data, coord::Stat) {
            if (e2 != ZkError::kOk) return next();
            auto pattern = decode_change(changes_path, as_view(data));
            if (!pattern) {
              rt_.log("ignoring an ACL change notification that names no resource pattern: " + text_of(as_view(data)));
              return next();
            }
            reload(*pattern, next);
          });
        },
        [] {});
  });
}

void Authorizer::reload(const ResourcePattern& pattern, std::function<void()> done) {
  zk_.get_data(path_of(pattern), false, [this, pattern, done](ZkError err, Bytes data, coord::Stat) {
    std::set<AccessControlEntry> entries;
    if (err == ZkError::kOk) {
      auto decoded = decode_entries(as_view(data));
      if (!decoded) {
        rt_.log("ignoring the ACLs of " + pattern.to_string() + ": " + decoded.status().to_string());
        return done();
      }
      entries = std::move(*decoded);
    } else if (err != ZkError::kNoNode) {
      return done();
    }
    const auto count = static_cast<int32_t>(entries.size());
    cache_.set(pattern, std::move(entries));
    rt_.emit(ev::AclChange{.resource = pattern.to_string(), .acls = count});
    done();
  });
}

void Authorizer::load_all() {
  // Patterns the cache holds but zk no longer has are dropped: the cache is rebuilt from zk.
  for (const auto& [pattern, entries] : std::map(cache_.all())) cache_.set(pattern, {});
  load_store(kLiteralRoot, AclPatternType::kLiteral, [this] {
    load_store(kPrefixedRoot, AclPatternType::kPrefixed, [] {});
  });
}

void Authorizer::load_store(const std::string& root, AclPatternType pattern_type, std::function<void()> done) {
  sequentially<AclResourceType>(
      kStoredTypes,
      [this, root, pattern_type](const AclResourceType& type, std::function<void()> next) {
        const std::string folder = root + "/" + resource_type_name(type);
        zk_.get_children(folder, false, [this, type, pattern_type, next](ZkError err, std::vector<std::string> names) {
          if (err != ZkError::kOk) return next();
          std::sort(names.begin(), names.end());
          std::vector<ResourcePattern> patterns;
          for (auto& n : names) patterns.push_back({type, std::move(n), pattern_type});
          sequentially<ResourcePattern>(
              patterns, [this](const ResourcePattern& p, std::function<void()> step) { reload(p, step); }, next);
        });
      },
      std::move(done));
}

void Authorizer::update(const ResourcePattern& pattern, Edit edit, std::function<void(bool ok)> done) {
  GREGOR_ASSERT(enabled_);
  update_attempt(pattern, std::move(edit), std::move(done), kUpdateAttemptsMax);
}

void Authorizer::update_attempt(const ResourcePattern& pattern, Edit edit, std::function<void(bool)> done,
                                int attempts_left) {
  if (attempts_left == 0) return done(false);
  const std::string path = path_of(pattern);
  zk_.get_data(path, false, [this, pattern, edit, done, attempts_left, path](ZkError err, Bytes data, coord::Stat stat) {
    if (err != ZkError::kOk && err != ZkError::kNoNode) return done(false);
    std::set<AccessControlEntry> current;
    if (err == ZkError::kOk) {
      auto decoded = decode_entries(as_view(data));
      if (decoded) current = std::move(*decoded);  // a damaged znode is replaced by what the edit makes
    }
    const bool exists = err == ZkError::kOk;
    std::set<AccessControlEntry> next = edit(current);
    if (next == current && exists == !current.empty()) {
      cache_.set(pattern, std::move(next));
      return done(true);
    }
    auto retry = [this, pattern, edit, done, attempts_left] { update_attempt(pattern, edit, done, attempts_left - 1); };
    auto written = [this, pattern, next, done] {
      cache_.set(pattern, next);
      notify_change(pattern, done);
    };
    if (next.empty()) {
      return zk_.remove(path, stat.version, [retry, written, done](ZkError e2) {
        if (e2 == ZkError::kOk || e2 == ZkError::kNoNode) return written();
        if (e2 == ZkError::kBadVersion) return retry();
        done(false);
      });
    }
    if (!exists) {
      return zk_.create(path, encode_entries(next), CreateMode::kPersistent, [retry, written, done](ZkError e2, std::string) {
        if (e2 == ZkError::kOk) return written();
        if (e2 == ZkError::kNodeExists) return retry();
        done(false);
      });
    }
    zk_.set_data(path, encode_entries(next), stat.version, [retry, written, done](ZkError e2, coord::Stat) {
      if (e2 == ZkError::kOk) return written();
      if (e2 == ZkError::kBadVersion || e2 == ZkError::kNoNode) return retry();
      done(false);
    });
  });
}

void Authorizer::notify_change(const ResourcePattern& pattern, std::function<void(bool)> done) {
  const std::string changes = pattern.pattern == AclPatternType::kLiteral ? kLiteralChanges : kExtendedChanges;
  zk_.create(changes + kChangePrefix, encode_change(pattern), CreateMode::kPersistentSequential,
             [done](ZkError err, std::string) { done(err == ZkError::kOk); });
}

}  // namespace gregor::broker
