// Authorizer: ACLs kept in zk and checked on requests, as Kafka 3.9's ZooKeeper-mode AclAuthorizer
// (authorizer.class.name=kafka.security.authorizer.AclAuthorizer). Off when authorizer.class.name
// is empty: then every request is allowed and nothing is read or written in zk.
//
// Where the ACLs live (Kafka's paths and JSON):
//   /kafka-acl/<Type>/<name>                      LITERAL patterns, <Type> Topic, Group, Cluster,
//                                                 TransactionalId, DelegationToken, User
//   /kafka-acl-extended/prefixed/<Type>/<name>    PREFIXED patterns
//     both {"version":1,"acls":[{"principal":"User:bob","permissionType":"Allow",
//                                "operation":"Read","host":"*"}]}
//   /kafka-acl-changes/acl_changes_<seq>          "Topic:orders" (a LITERAL pattern changed)
//   /kafka-acl-extended-changes/acl_changes_<seq> {"version":1,"resourceType":"Topic","name":"ord",
//                                                  "patternType":"PREFIXED"}
// Whoever changes a pattern's ACLs rewrites its znode (a versioned write, retried on conflict) and
// then writes a change notification; every broker watches both change paths and re-reads the
// patterns named by notifications newer than the last it processed. At registration a broker
// creates the paths, marks where the notifications are, and reads every ACL.
// The rules themselves are AclCache's (engine/broker/acl.h).
#pragma once

#include <functional>
#include <set>
#include <string>

#include "engine/broker/acl.h"
#include "engine/broker/broker_config.h"
#include "engine/coord/zk_client.h"
#include "engine/core/runtime.h"

namespace gregor::broker {

class Authorizer {
 public:
  Authorizer(Runtime& rt, const BrokerConfig& config, coord::ZkClient& zk);

  bool enabled() const { return enabled_; }
  const AclCache& cache() const { return cache_; }

  // At registration (and again after a new session): paths, notification marks, every ACL.
  void start();
  // A zk watch fired; true when it was one of the change paths (handled here).
  bool on_watch(const coord::WatchEvent& e);

  // Whether principal from host may do operation on the resource; always true when off.
  bool authorize(const std::string& principal, const std::string& host, AclOperation operation, AclResourceType type,
                 const std::string& name) const;

  // Rewrites one pattern's entries in zk with edit (which gets the entries zk has now), then
  // writes the change notification and updates this broker's cache. done(ok): false when zk
  // could not be written (after retries on conflicting writes).
  using Edit = std::function<std::set<AccessControlEntry>(std::set<AccessControlEntry>)>;
  void update(const ResourcePattern& pattern, Edit edit, std::function<void(bool ok)> done);

  // Kafka's znode of a pattern, and the encoding of its entries.
  static std::string path_of(const ResourcePattern& pattern);
  static Bytes encode_entries(const std::set<AccessControlEntry>& entries);
  static Result<std::set<AccessControlEntry>> decode_entries(ByteView data);

 private:
  void list_changes(const std::string& changes_path, bool first);
  void reload(const ResourcePattern& pattern, std::function<void()> done);
  void load_all();
  void load_store(const std::string& root, AclPatternType pattern, std::function<void()> done);
  void update_attempt(const ResourcePattern& pattern, Edit edit, std::function<void(bool)> done, int attempts_left);
  void notify_change(const ResourcePattern& pattern, std::function<void(bool)> done);

  Runtime& rt_;
  coord::ZkClient& zk_;
  bool enabled_;
  AclCache cache_;
  std::map<std::string, int64_t> last_change_;  // per change path: the newest notification processed
};

}  // namespace gregor::broker
