#include "net/run_node.h"

#include <pthread.h>
#include <signal.h>

#include <csignal>
#include <cstdio>

#include "net/process_memory.h"

namespace gregor::net {

int run_node(NodeConfig config, const NodeFactory& factory, RunOptions options) {
  if (Status s = config.validate(); !s) {
    std::fprintf(stderr, "gregor: bad node configuration: %s\n", s.message().c_str());
    return 2;
  }
  // A write to a socket the peer has closed must be an error code, not a process-killing signal
  // (Asio already sends with MSG_NOSIGNAL on Linux; this covers every other path).
  std::signal(SIGPIPE, SIG_IGN);
  keep_freed_memory();

  asio::io_context io(1);  // concurrency hint: exactly one thread runs it
  AsioRuntime runtime(io, std::move(config));
  if (Status s = runtime.open(); !s) {
    runtime.log("cannot start: " + s.message());
    return 1;
  }
  // A stop happens once. Signals that come after the first (an operator's kill to the process
  // group on top of a parent's kill to each child) are blocked from then on, and discarded once
  // the signal set is gone, so they cannot end the process in the middle of its clean stop.
  sigset_t stop_signals, previous_mask;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  bool blocked = false;
  {
    asio::signal_set signals(io, SIGINT, SIGTERM);
    asio::steady_timer limit(io);
    bool stopping = false;  // a stop began (before_stop may still be running)
    bool stopped = false;
    auto begin_stop = [&](const std::string& why) {
      stopping = true;
      blocked = pthread_sigmask(SIG_BLOCK, &stop_signals, &previous_mask) == 0;
      runtime.log("stopping: " + why);
      boost::system::error_code ignored;
      signals.cancel(ignored);
      limit.cancel();
    };
    auto stop = [&](const std::string& why) {
      if (stopped) return;
      if (!stopping) begin_stop(why);
      stopped = true;
      runtime.stop();
      io.stop();
    };
    // A signal or the run-time limit: the node's before_stop first, when it has one, then the stop.
    auto request_stop = [&](const std::string& why) {
      if (stopping) return;
      if (!options.before_stop || runtime.halted() || !runtime.node()) return stop(why);
      begin_stop(why);
      runtime.after(Duration{0}, [&runtime, &io, &stop, &options, why] {
        Node* node = runtime.node();
        if (!node) return;
        options.before_stop(*node, [&io, &stop, why] {
          // Not from inside the node's own callback: AsioRuntime::stop destroys the node.
          asio::post(io, [&stop, why] { stop(why); });
        });
      });
    };
    signals.async_wait([&](const boost::system::error_code& ec, int signal_number) {
      if (ec) return;
      request_stop(signal_number == SIGINT ? "SIGINT" : "SIGTERM");
    });
    if (options.max_run_time.us > 0) {
      limit.expires_after(std::chrono::microseconds(options.max_run_time.us));
      limit.async_wait([&](const boost::system::error_code& ec) {
        if (ec) return;
        request_stop("run time limit of " + format_time(Time{options.max_run_time.us}) + " reached");
      });
    }
    runtime.start(factory);
    io.run();
    if (runtime.halted()) stop("halted: " + *runtime.halted());
    stop("the io_context ran out of work");  // no-op after a signal; reached otherwise only by a bug
  }  // the signal set is gone: SIGINT and SIGTERM have their default actions again
  if (blocked) {
    // Setting SIG_IGN discards a pending signal, and keeps discarding the ones still on their way
    // (a parent's SIGTERM may arrive after the one to the process group) until the process exits:
    // restoring the default action here let such a late signal kill a node that had already stopped
    // cleanly. A later run_node in the same process (tests) installs its own handlers again.
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, nullptr);
    sigaction(SIGTERM, &ignore, nullptr);
    pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  }
  // A node that halted (Runtime::halt) did not stop cleanly: the exit status says so.
  return runtime.halted() ? 1 : 0;
}

}  // namespace gregor::net
