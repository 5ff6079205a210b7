#include "engine/coord/znode_tree.h"

#include "engine/core/assert.h"

namespace gregor::coord {

ZnodeTree::ZnodeTree() {
  // As ZooKeeper's DataTree: the system znodes are there from the start, with zeroed stats, and
  // adding them changes no cversion.
  nodes_.emplace("/", Znode{});
  for (const auto& path : system_paths()) {
    nodes_.emplace(path, Znode{});
    Znode& parent = nodes_.find(parent_path(path))->second;
    parent.children.insert(last_component(path));
    parent.stat.num_children = static_cast<int32_t>(parent.children.size());
  }
}

const Znode* ZnodeTree::find(std::string_view path) const {
  auto it = nodes_.find(path);
  return it == nodes_.end() ? nullptr : &it->second;
}

std::vector<std::string> ZnodeTree::ephemerals(int64_t session) const {
  auto it = ephemerals_.find(session);
  if (it == ephemerals_.end()) return {};
  return std::vector<std::string>(it->second.begin(), it->second.end());
}

ZkError ZnodeTree::create(const std::string& path, Bytes data, bool null_data, int64_t ephemeral_owner, int64_t zxid,
                          int64_t time_ms) {
  if (!valid_path(path) || path == "/") return ZkError::kBadArguments;
  if (data.size() > ZkLimits::kMaxDataBytes) return ZkError::kBadArguments;
  auto parent = nodes_.find(parent_path(path));
  if (parent == nodes_.end()) return ZkError::kNoNode;
  if (parent->second.stat.ephemeral_owner != 0) return ZkError::kNoChildrenForEphemerals;
  if (nodes_.count(path)) return ZkError::kNodeExists;

  Znode node;
  node.stat.czxid = zxid;
  node.stat.mzxid = zxid;
  node.stat.pzxid = zxid;
  node.stat.ctime = time_ms;
  node.stat.mtime = time_ms;
  node.stat.ephemeral_owner = ephemeral_owner;
  node.stat.data_length = static_cast<int32_t>(data.size());
  node.data = std::move(data);
  node.null_data = null_data;
  Znode& p = parent->second;
  p.children.insert(last_component(path));
  p.stat.cversion++;
  p.stat.pzxid = zxid;
  p.stat.num_children = static_cast<int32_t>(p.children.size());
  nodes_.emplace(path, std::move(node));
  if (ephemeral_owner != 0) ephemerals_[ephemeral_owner].insert(path);
  return ZkError::kOk;
}

ZkError ZnodeTree::remove(const std::string& path, int64_t zxid) {
  if (path == "/" || is_system_path(path) || !valid_path(path)) return ZkError::kBadArguments;
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return ZkError::kNoNode;
  if (!it->second.children.empty()) return ZkError::kNotEmpty;
  auto parent = nodes_.find(parent_path(path));
  GREGOR_ASSERT_MSG(parent != nodes_.end(), "znode without parent: " + path);
  const int64_t owner = it->second.stat.ephemeral_owner;
  if (owner != 0) {
    auto e = ephemerals_.find(owner);
    GREGOR_ASSERT(e != ephemerals_.end());
    e->second.erase(path);
    if (e->second.empty()) ephemerals_.erase(e);
  }
  nodes_.erase(it);
  Znode& p = parent->second;
  p.children.erase(last_component(path));
  p.stat.cversion++;
  p.stat.pzxid = zxid;
  p.stat.num_children = static_cast<int32_t>(p.children.size());
  return ZkError::kOk;
}

ZkError ZnodeTree::set_data(const std::string& path, Bytes data, bool null_data, int32_t new_version, int64_t zxid,
                            int64_t time_ms) {
  if (data.size() > ZkLimits::kMaxDataBytes) return ZkError::kBadArguments;
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return ZkError::kNoNode;
  Znode& node = it->second;
  if (new_version != node.stat.version + 1) return ZkError::kBadVersion;
  node.stat.version = new_version;
  node.stat.mzxid = zxid;
  node.stat.mtime = time_ms;
  node.stat.data_length = static_cast<int32_t>(data.size());
  node.data = std::move(data);
  node.null_data = null_data;
  return ZkError::kOk;
}

bool ZnodeTree::restore(const std::string& path, Bytes data, bool null_data, const Stat& stat) {
  if (data.size() > ZkLimits::kMaxDataBytes || stat.data_length != static_cast<int32_t>(data.size())) return false;
  if (path == "/" || is_system_path(path)) {
    // Present from the start; a snapshot holds them once, before any other node of theirs.
    Znode& node = nodes_.at(path);
    if (stat.ephemeral_owner != 0) return false;
    node.data = std::move(data);
    node.null_data = null_data;
    node.stat = stat;
    return true;
  }
  if (!valid_path(path) || nodes_.count(path)) return false;
  auto parent = nodes_.find(parent_path(path));
  if (parent == nodes_.end() || parent->second.stat.ephemeral_owner != 0) return false;
  parent->second.children.insert(last_component(path));
  nodes_.emplace(path, Znode{std::move(data), null_data, stat, {}});
  if (stat.ephemeral_owner != 0) ephemerals_[stat.ephemeral_owner].insert(path);
  return true;
}

bool ZnodeTree::consistent() const {
  for (const auto& [path, node] : nodes_)
    if (node.stat.num_children != static_cast<int32_t>(node.children.size())) return false;
  return true;
}

std::string ZnodeTree::dump() const {
  std::string out;
  for (const auto& [path, node] : nodes_) {
    out += path;
    out += " v" + std::to_string(node.stat.version) + " cv" + std::to_string(node.stat.cversion);
    if (node.stat.ephemeral_owner != 0) out += " eph=" + std::to_string(node.stat.ephemeral_owner);
    out += " data=" + (node.null_data ? std::string("null") : printable_data(as_view(node.data))) + "\n";
  }
  return out;
}

}  // namespace gregor::coord
