#include "net/asio_world.h"

#include <cstdio>

#include "engine/core/assert.h"

namespace gregor::net {

AsioWorld::AsioWorld(std::string data_root, uint64_t seed, bool verbose)
    : data_root_(std::move(data_root)), seed_(seed), verbose_(verbose) {}

AsioWorld::~AsioWorld() {
  for (auto& [id, m] : members_)
    if (m.runtime) m.runtime->stop();
  members_.clear();
}

AsioWorld::Member& AsioWorld::member(NodeId id) {
  auto it = members_.find(id);
  GREGOR_ASSERT_MSG(it != members_.end(), "no node " + std::to_string(id.value) + " in this AsioWorld");
  return it->second;
}

const AsioWorld::Member& AsioWorld::member(NodeId id) const {
  auto it = members_.find(id);
  GREGOR_ASSERT_MSG(it != members_.end(), "no node " + std::to_string(id.value) + " in this AsioWorld");
  return it->second;
}

std::unique_ptr<AsioRuntime> AsioWorld::make_runtime(const Member& m) {
  NodeConfig config = m.config;
  if (config.listen) config.listen_port = m.port;  // 0 the first time: the OS picks
  // Every listening node is a known peer, at its current address.
  for (const auto& [id, other] : members_)
    if (id != config.id && other.port != 0 && !config.peers.count(id)) config.peers[id] = PeerAddress{"127.0.0.1", other.port};
  return std::make_unique<AsioRuntime>(io_, std::move(config), epoch_);
}

AsioRuntime& AsioWorld::add_node(NodeConfig config, NodeFactory factory) {
  GREGOR_ASSERT_MSG(!members_.count(config.id), "node " + std::to_string(config.id.value) + " added twice");
  if (config.name.empty()) config.name = "node-" + std::to_string(config.id.value);
  if (config.data_dir.empty()) config.data_dir = data_root_ + "/" + config.name;
  if (!config.seed) config.seed = seed_;
  if (!config.log_sink) {
    config.log_sink = [this](const std::string& line) {
      if (log_lines_.size() < kLogLinesMax) log_lines_.push_back(line);
      if (verbose_) std::fprintf(stderr, "%s\n", line.c_str());
    };
  }
  if (verbose_) config.verbose = true;
  Member& m = members_[config.id];
  m.config = std::move(config);
  m.factory = std::move(factory);
  m.runtime = make_runtime(m);
  Status s = m.runtime->open();
  GREGOR_ASSERT_MSG(s.is_ok(), "AsioWorld: cannot open node " + m.config.name + ": " + s.message());
  m.port = m.runtime->bound_port();
  if (m.port != 0) {
    for (auto& [id, other] : members_)
      if (id != m.config.id && other.runtime) other.runtime->set_peer(m.config.id, PeerAddress{"127.0.0.1", m.port});
  }
  return *m.runtime;
}

void AsioWorld::start(NodeId id) {
  Member& m = member(id);
  GREGOR_ASSERT(m.runtime && !m.runtime->running());
  m.runtime->start(m.factory);
}

void AsioWorld::start_all() {
  for (auto& [id, m] : members_)
    if (m.runtime && !m.runtime->running()) m.runtime->start(m.factory);
}

void AsioWorld::stop(NodeId id) {
  Member& m = member(id);
  if (!m.runtime) return;
  m.runtime->stop();
  m.runtime.reset();
}

Status AsioWorld::restart(NodeId id) {
  stop(id);
  Member& m = member(id);
  auto runtime = make_runtime(m);
  GREGOR_RETURN_IF_ERROR(runtime->open());
  m.runtime = std::move(runtime);
  m.runtime->start(m.factory);
  return Status::ok();
}

bool AsioWorld::running(NodeId id) const {
  const Member& m = member(id);
  return m.runtime && m.runtime->running();
}

AsioRuntime& AsioWorld::runtime(NodeId id) {
  Member& m = member(id);
  GREGOR_ASSERT_MSG(m.runtime != nullptr, "node " + std::to_string(id.value) + " is stopped");
  return *m.runtime;
}

uint16_t AsioWorld::port(NodeId id) const { return member(id).port; }

Node* AsioWorld::node(NodeId id) {
  Member& m = member(id);
  return m.runtime ? m.runtime->node() : nullptr;
}

bool AsioWorld::run_until(const std::function<bool()>& done, Duration timeout) {
  const auto deadline = SteadyClock::now() + std::chrono::microseconds(timeout.us);
  while (!done()) {
    if (SteadyClock::now() >= deadline) return false;
    if (io_.stopped()) io_.restart();
    // Blocks until one handler ran or the deadline passed; 0 handlers before the deadline means the
    // loop has no work left at all, and then nothing can change done().
    if (io_.run_one_until(deadline) == 0 && SteadyClock::now() < deadline) return done();
  }
  return true;
}

void AsioWorld::run_for(Duration d) {
  run_until([] { return false; }, d);
}

bool AsioWorld::logged(std::string_view needle) const {
  for (const auto& line : log_lines_)
    if (line.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace gregor::net
