#include "engine/coord/zk_types.h"

#include <cstdio>

#include "engine/core/assert.h"

namespace gregor::coord {

const char* zk_error_name(ZkError e) {
  switch (e) {
    case ZkError::kOk: return "Ok";
    case ZkError::kSystemError: return "SystemError";
    case ZkError::kRuntimeInconsistency: return "RuntimeInconsistency";
    case ZkError::kDataInconsistency: return "DataInconsistency";
    case ZkError::kConnectionLoss: return "ConnectionLoss";
    case ZkError::kMarshallingError: return "MarshallingError";
    case ZkError::kUnimplemented: return "Unimplemented";
    case ZkError::kOperationTimeout: return "OperationTimeout";
    case ZkError::kBadArguments: return "BadArguments";
    case ZkError::kUnknownSession: return "UnknownSession";
    case ZkError::kNewConfigNoQuorum: return "NewConfigNoQuorum";
    case ZkError::kReconfigInProgress: return "ReconfigInProgress";
    case ZkError::kApiError: return "APIError";
    case ZkError::kNoNode: return "NoNode";
    case ZkError::kNoAuth: return "NoAuth";
    case ZkError::kBadVersion: return "BadVersion";
    case ZkError::kNoChildrenForEphemerals: return "NoChildrenForEphemerals";
    case ZkError::kNodeExists: return "NodeExists";
    case ZkError::kNotEmpty: return "NotEmpty";
    case ZkError::kSessionExpired: return "SessionExpired";
    case ZkError::kInvalidCallback: return "InvalidCallback";
    case ZkError::kInvalidAcl: return "InvalidACL";
    case ZkError::kAuthFailed: return "AuthFailed";
    case ZkError::kSessionMoved: return "SessionMoved";
    case ZkError::kNotReadOnly: return "NotReadOnly";
    case ZkError::kEphemeralOnLocalSession: return "EphemeralOnLocalSession";
    case ZkError::kNoWatcher: return "NoWatcher";
    case ZkError::kRequestTimeout: return "RequestTimeout";
    case ZkError::kReconfigDisabled: return "ReconfigDisabled";
    case ZkError::kSessionClosedRequireSaslAuth: return "SessionClosedRequireSaslAuth";
    case ZkError::kQuotaExceeded: return "QuotaExceeded";
    case ZkError::kThrottledOp: return "ThrottledOp";
  }
  return "Unknown";
}

ZkError zk_error_from_wire(int32_t v) {
  const ZkError e = static_cast<ZkError>(v);
  // Every listed code has a name; anything else is not trusted.
  return std::string_view(zk_error_name(e)) == "Unknown" ? ZkError::kSystemError : e;
}

std::vector<Acl> open_acl_unsafe() { return {Acl{kPermsAll, "world", "anyone"}}; }

std::vector<std::string> system_paths() { return {"/zookeeper", "/zookeeper/config", "/zookeeper/quota"}; }

bool is_system_path(std::string_view path) {
  return path == "/zookeeper" || path == "/zookeeper/quota" || path == kConfigPath;
}

const char* watch_type_name(WatchType t) {
  switch (t) {
    case WatchType::kNodeCreated: return "NodeCreated";
    case WatchType::kNodeDeleted: return "NodeDeleted";
    case WatchType::kNodeDataChanged: return "NodeDataChanged";
    case WatchType::kNodeChildrenChanged: return "NodeChildrenChanged";
  }
  return "Unknown";
}

const char* session_state_name(SessionState s) {
  switch (s) {
    case SessionState::kConnecting: return "Connecting";
    case SessionState::kConnected: return "SyncConnected";
    case SessionState::kDisconnected: return "Disconnected";
    case SessionState::kExpired: return "Expired";
  }
  return "Unknown";
}

ZkOp ZkOp::create(std::string path, std::optional<Bytes> data, CreateMode mode) {
  ZkOp op;
  op.type = ZkOpType::kCreate;
  op.path = std::move(path);
  op.null_data = !data.has_value();
  if (data) op.data = std::move(*data);
  op.mode = mode;
  op.acl = open_acl_unsafe();
  return op;
}

ZkOp ZkOp::remove(std::string path, int32_t expected_version) {
  ZkOp op;
  op.type = ZkOpType::kDelete;
  op.path = std::move(path);
  op.version = expected_version;
  return op;
}

ZkOp ZkOp::set_data(std::string path, Bytes data, int32_t expected_version) {
  ZkOp op;
  op.type = ZkOpType::kSetData;
  op.path = std::move(path);
  op.data = std::move(data);
  op.version = expected_version;
  return op;
}

ZkOp ZkOp::check(std::string path, int32_t expected_version) {
  ZkOp op;
  op.type = ZkOpType::kCheck;
  op.path = std::move(path);
  op.version = expected_version;
  return op;
}

bool valid_path(std::string_view path, bool sequential) {
  // A sequential path is checked as it will be with its counter, which lets it end in '/'.
  const size_t final_size = path.size() + (sequential ? 10 : 0);
  if (path.empty() || path.front() != '/' || final_size > ZkLimits::kMaxPathBytes) return false;
  if (path.size() == 1) return true;  // the root (or "/" + counter)
  if (path.back() == '/' && !sequential) return false;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view component = path.substr(start, end - start);
    const bool last = end == path.size();
    // An empty component is "//", or the trailing '/' a sequential name fills in.
    if (component.empty() && !(last && sequential)) return false;
    if (component == "." || component == "..") return false;
    for (char c : component) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f) return false;
    }
    start = end + 1;
  }
  return true;
}

std::string parent_path(std::string_view path) {
  GREGOR_ASSERT(path.size() > 1 && path.front() == '/');
  size_t slash = path.rfind('/');
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string last_component(std::string_view path) {
  GREGOR_ASSERT(path.size() > 1 && path.front() == '/');
  return std::string(path.substr(path.rfind('/') + 1));
}

std::string join_path(std::string_view parent, std::string_view child) {
  std::string out(parent);
  if (out.empty() || out.back() != '/') out.push_back('/');
  out += child;
  return out;
}

std::string sequence_suffix(int32_t counter) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%010d", counter);
  return buf;
}

std::string printable_data(ByteView data) {
  // Enough for what Kafka writes (a registration, a topic's assignment with its id) to reach the
  // trace whole: the dashboard reads replica assignments from it and shows znodes as they are.
  constexpr size_t kPrintableMax = 1024;
  bool printable = data.size() <= kPrintableMax;
  for (size_t i = 0; printable && i < data.size(); i++)
    printable = data[i] >= 0x20 && data[i] < 0x7f;
  if (printable) return to_string(data);
  return "<" + std::to_string(data.size()) + " bytes>";
}

}  // namespace gregor::coord
