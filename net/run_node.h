// run_node: runs one node as a process on real sockets, until SIGINT or SIGTERM.
//
// It creates the process's io_context (one thread: the caller's), an AsioRuntime for the config,
// binds the listener, builds the node through the factory and starts it, then serves until a
// signal (or the optional run-time limit) and stops cleanly: the listener and every connection
// are closed, timers cancelled, the node destroyed (its destructor runs), and the function returns.
// `gregor zk ...` and `gregor broker ...` are thin wrappers that fill a NodeConfig and call it:
//
//   net::NodeConfig config;
//   config.id = NodeId{1};
//   config.name = "broker-1";
//   config.listen_host = "127.0.0.1";
//   config.listen_port = 9092;
//   config.data_dir = "/tmp/gregor/broker-1";
//   config.peers[NodeId{1001}] = *net::parse_peer_address("127.0.0.1:2181");  // a zk server
//   config.event_sink = [&](const TraceEvent& e) { recorder->record(e); };   // optional
//   return net::run_node(config, [](Runtime& rt) { return std::make_unique<Broker>(rt, ...); });
//
// Exit codes follow app/commands.h: 0 after a clean stop, 1 when the node cannot start (address
// in use, ...) or halted (Runtime::halt: a broker whose log directory failed), 2 for a config that
// does not validate.
#pragma once

#include <functional>

#include "engine/core/types.h"
#include "net/asio_runtime.h"

namespace gregor::net {

struct RunOptions {
  // Stop as if signalled after this long; zero runs until a signal (demos and tests use it).
  Duration max_run_time{0};
  // What the node does before it stops on a signal (or the run-time limit), while it still serves:
  // a broker's controlled shutdown (Kafka's KafkaServer.shutdown). It calls `done` when finished;
  // the stop then goes on as without it. Unset: the node stops at once.
  std::function<void(Node& node, std::function<void()> done)> before_stop;
};

int run_node(NodeConfig config, const NodeFactory& factory, RunOptions options = {});

}  // namespace gregor::net
