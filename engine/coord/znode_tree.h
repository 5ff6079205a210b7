// ZnodeTree: the committed tree of znodes, ZooKeeper's DataTree.
//
// Every znode has data, a Stat and a sorted set of child names; the root "/" and ZooKeeper's
// system znodes (/zookeeper, /zookeeper/quota, /zookeeper/config: system_paths()) always exist.
// The tree changes only through create / remove / set_data, called by ZkDatabase when it applies a
// transaction, so it always holds exactly the state of the transactions applied (in zxid order).
// The mutators re-check what the request processor checked (parent exists, version, no children
// under an ephemeral...) and return an error instead of changing anything when the change does not
// fit: on a live server that is a bug (asserted by the caller); during recovery it means the log is
// inconsistent, which recovery reports as corruption.
//
// Ordered containers only: iteration order (children, ephemerals, snapshots) is deterministic.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/bytes.h"
#include "engine/coord/zk_types.h"

namespace gregor::coord {

struct Znode {
  Bytes data;
  bool null_data = false;  // created or set with jute's null buffer (getData answers null)
  Stat stat;
  std::set<std::string> children;  // names, not paths; sorted as getChildren returns them
  bool operator==(const Znode&) const = default;
};

class ZnodeTree {
 public:
  ZnodeTree();

  const Znode* find(std::string_view path) const;
  bool exists(std::string_view path) const { return find(path) != nullptr; }
  size_t node_count() const { return nodes_.size(); }
  // Every znode by path, sorted (a parent sorts before its children).
  const std::map<std::string, Znode, std::less<>>& nodes() const { return nodes_; }
  // Paths of the ephemeral znodes a session owns, sorted.
  std::vector<std::string> ephemerals(int64_t session) const;
  // Sessions that own at least one ephemeral znode, with their paths.
  const std::map<int64_t, std::set<std::string>>& ephemerals_by_session() const { return ephemerals_; }

  // Creates path with ephemeral_owner (0 = persistent) as transaction zxid at time_ms; the
  // parent's cversion goes up by one and its pzxid becomes zxid.
  ZkError create(const std::string& path, Bytes data, bool null_data, int64_t ephemeral_owner, int64_t zxid,
                 int64_t time_ms);
  // Removes a znode without children; the parent's cversion goes up by one.
  ZkError remove(const std::string& path, int64_t zxid);
  // Replaces the data and sets the version to new_version (the previous version + 1).
  ZkError set_data(const std::string& path, Bytes data, bool null_data, int32_t new_version, int64_t zxid,
                   int64_t time_ms);

  // Restores one znode from a snapshot with its stat as it was. Parents must be restored before
  // their children (sorted path order does that); the root and the system znodes, which every tree
  // has, take the restored data and stat. Returns false when the node does not fit.
  bool restore(const std::string& path, Bytes data, bool null_data, const Stat& stat);
  // After restoring: every num_children matches the children actually present.
  bool consistent() const;

  // A canonical text form of the whole tree (paths, versions, data), for tests and debugging.
  std::string dump() const;

  bool operator==(const ZnodeTree& o) const { return nodes_ == o.nodes_; }

 private:
  std::map<std::string, Znode, std::less<>> nodes_;
  std::map<int64_t, std::set<std::string>> ephemerals_;
};

}  // namespace gregor::coord
