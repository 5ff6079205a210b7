#include "engine/coord/zk_watch_manager.h"

namespace gregor::coord {

void ZkWatchManager::add_data_watch(const std::string& path, int32_t connection) {
  data_[path].insert(connection);
  data_by_connection_[connection].insert(path);
}

void ZkWatchManager::add_child_watch(const std::string& path, int32_t connection) {
  child_[path].insert(connection);
  child_by_connection_[connection].insert(path);
}

void ZkWatchManager::take(Table& table, const std::string& path, std::set<int32_t>& out,
                          std::map<int32_t, std::set<std::string>>& by_connection) {
  auto it = table.find(path);
  if (it == table.end()) return;
  for (int32_t c : it->second) {
    out.insert(c);
    auto back = by_connection.find(c);
    if (back != by_connection.end()) {
      back->second.erase(path);
      if (back->second.empty()) by_connection.erase(back);
    }
  }
  table.erase(it);
}

std::vector<int32_t> ZkWatchManager::trigger(const std::string& path, WatchType type) {
  std::set<int32_t> out;
  switch (type) {
    case WatchType::kNodeCreated:
    case WatchType::kNodeDataChanged:
      take(data_, path, out, data_by_connection_);
      break;
    case WatchType::kNodeDeleted:
      take(data_, path, out, data_by_connection_);
      take(child_, path, out, child_by_connection_);
      break;
    case WatchType::kNodeChildrenChanged:
      take(child_, path, out, child_by_connection_);
      break;
  }
  return std::vector<int32_t>(out.begin(), out.end());
}

void ZkWatchManager::remove_connection(int32_t connection) {
  auto drop = [connection](Table& table, std::map<int32_t, std::set<std::string>>& by_connection) {
    auto it = by_connection.find(connection);
    if (it == by_connection.end()) return;
    for (const auto& path : it->second) {
      auto t = table.find(path);
      if (t == table.end()) continue;
      t->second.erase(connection);
      if (t->second.empty()) table.erase(t);
    }
    by_connection.erase(it);
  };
  drop(data_, data_by_connection_);
  drop(child_, child_by_connection_);
}

size_t ZkWatchManager::watch_count() const {
  size_t n = 0;
  for (const auto& [path, conns] : data_) n += conns.size();
  for (const auto& [path, conns] : child_) n += conns.size();
  return n;
}

size_t ZkWatchManager::watch_count(int32_t connection) const {
  size_t n = 0;
  if (auto it = data_by_connection_.find(connection); it != data_by_connection_.end()) n += it->second.size();
  if (auto it = child_by_connection_.find(connection); it != child_by_connection_.end()) n += it->second.size();
  return n;
}

}  // namespace gregor::coord
