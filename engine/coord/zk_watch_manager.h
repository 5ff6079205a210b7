// ZkWatchManager: the server's one-shot watches (ZooKeeper's WatchManager, data and child tables).
//
// A watch belongs to a client connection, as in ZooKeeper (watches live on the server connection;
// a client that reconnects re-registers its watches with SetWatches). get_data and exists register
// a data watch (exists also on a missing node, to hear NodeCreated); get_children a child watch.
// trigger() returns the connections to notify and forgets their watches: a watch fires once.
// Which table an event reads, as ZooKeeper's DataTree does:
//   NodeCreated, NodeDataChanged  -> data watches of the path
//   NodeDeleted                   -> data and child watches of the path (one event per connection)
//   NodeChildrenChanged           -> child watches of the path
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/coord/zk_types.h"

namespace gregor::coord {

class ZkWatchManager {
 public:
  void add_data_watch(const std::string& path, int32_t connection);
  void add_child_watch(const std::string& path, int32_t connection);
  // Connections to notify, in ascending id order (deterministic); their watches are removed.
  std::vector<int32_t> trigger(const std::string& path, WatchType type);
  void remove_connection(int32_t connection);
  size_t watch_count() const;
  size_t watch_count(int32_t connection) const;

 private:
  using Table = std::map<std::string, std::set<int32_t>>;
  static void take(Table& table, const std::string& path, std::set<int32_t>& out,
                   std::map<int32_t, std::set<std::string>>& by_connection);
  Table data_;
  Table child_;
  // The reverse index, so a closed connection's watches go without a scan.
  std::map<int32_t, std::set<std::string>> data_by_connection_;
  std::map<int32_t, std::set<std::string>> child_by_connection_;
};

}  // namespace gregor::coord
