// AsioWorld: several real-socket nodes on one io_context, in the calling thread, for tests.
//
// Each node is an AsioRuntime listening on 127.0.0.1 with a port the OS picks (bind to port 0), so
// tests need no fixed ports; every listening node is a known peer of every other. Nothing runs until
// the test runs the loop, always bounded: run_until(condition, timeout) or run_for(duration). There
// are no sleeps: the loop blocks in the OS until a socket or a timer has something.
//
// stop(id) is a process exit (listener and connections closed, timers cancelled, node destroyed;
// the data directory stays); restart(id) is a new process on the same port and data directory.
// Log lines of all nodes are captured (and echoed to stderr when verbose), so a test can check
// that something was logged.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/asio_runtime.h"

namespace gregor::net {

class AsioWorld {
 public:
  // data_root: each node's data goes to data_root/<name> unless its config says otherwise.
  // seed: each node's seed unless its config sets one.
  explicit AsioWorld(std::string data_root, uint64_t seed = 1, bool verbose = false);
  ~AsioWorld();
  AsioWorld(const AsioWorld&) = delete;
  AsioWorld& operator=(const AsioWorld&) = delete;

  asio::io_context& io() { return io_; }

  // Adds a node and binds its listener (unless config.listen is false); it starts with start().
  // Empty name, data_dir and seed get the defaults above; listen_host is 127.0.0.1 and
  // listen_port 0 unless set. REQUIRES: the id is new; the bind succeeds.
  AsioRuntime& add_node(NodeConfig config, NodeFactory factory);
  void start(NodeId id);
  void start_all();  // every added node not yet started, in id order
  void stop(NodeId id);
  // A new runtime on the node's port and data directory, started. Fails if the port was taken.
  Status restart(NodeId id);

  bool running(NodeId id) const;
  AsioRuntime& runtime(NodeId id);  // REQUIRES: not stopped
  uint16_t port(NodeId id) const;   // 0 for a node that does not listen
  Node* node(NodeId id);            // nullptr when stopped or not started
  template <typename T>
  T* node_as(NodeId id) {
    return dynamic_cast<T*>(node(id));
  }

  // Runs the loop until done() is true (checked before and after every handler) or timeout passes;
  // returns done(). Both return early when the loop has no work left at all (no listener, timer or
  // connection): then nothing could happen anyway.
  bool run_until(const std::function<bool()>& done, Duration timeout);
  void run_for(Duration d);

  const std::vector<std::string>& log_lines() const { return log_lines_; }
  bool logged(std::string_view needle) const;

 private:
  struct Member {
    NodeConfig config;
    NodeFactory factory;
    std::unique_ptr<AsioRuntime> runtime;
    uint16_t port = 0;
  };
  Member& member(NodeId id);
  const Member& member(NodeId id) const;
  std::unique_ptr<AsioRuntime> make_runtime(const Member& m);

  static constexpr size_t kLogLinesMax = 100000;
  asio::io_context io_{1};  // first: destroyed last, after every runtime
  std::string data_root_;
  uint64_t seed_;
  bool verbose_;
  SteadyClock::time_point epoch_ = SteadyClock::now();  // one time base for every node
  std::map<NodeId, Member> members_;
  std::vector<std::string> log_lines_;
};

}  // namespace gregor::net
