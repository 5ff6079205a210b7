// A failed GREGOR_ASSERT inside a simulation prints the seed and the virtual time, so the failure can
// be replayed. Catch2 cannot catch an abort, so each case runs in a forked child whose stderr comes
// back through a pipe (Linux only, like the rest of the test suite).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>

#include "engine/core/assert.h"
#include "probe_node.h"

using namespace gregor;

namespace {

struct ChildResult {
  bool aborted = false;
  int exit_code = -1;
  std::string stderr_text;
};

// Runs body in a child process; the child exits 0 if body returns.
ChildResult run_in_child(const std::function<void()>& body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The child must die of the abort itself: Catch2's fatal-signal handlers would report it as a
    // failure of the parent's test case, on the shared stdout.
    signal(SIGABRT, SIG_DFL);
    signal(SIGSEGV, SIG_DFL);
    close(fds[0]);
    dup2(fds[1], STDERR_FILENO);
    if (FILE* devnull = std::freopen("/dev/null", "w", stdout)) (void)devnull;
    close(fds[1]);
    body();
    std::fflush(stderr);
    _exit(0);
  }
  close(fds[1]);
  ChildResult r;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) r.stderr_text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  r.aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

class FailsLater final : public Node {
 public:
  explicit FailsLater(Runtime& rt) : rt_(rt) {}
  void start() override {
    rt_.after(Duration::micros(1'500'250), [] { GREGOR_ASSERT_MSG(1 + 1 == 3, "arithmetic is broken"); });
  }
  void on_message(NodeId, Bytes) override {}

 private:
  Runtime& rt_;
};

}  // namespace

TEST_CASE("GREGOR_ASSERT in a simulation prints the expression, the message, the seed and the virtual time") {
  ChildResult r = run_in_child([] {
    sim::Simulator simulator(4242);
    simulator.add_node(NodeId{1}, "doomed", [](Runtime& rt) { return std::make_unique<FailsLater>(rt); });
    simulator.run_for(Duration::seconds(5));
  });
  INFO(r.stderr_text);
  CHECK(r.aborted);
  CHECK(r.stderr_text.find("assertion failed: 1 + 1 == 3") != std::string::npos);
  CHECK(r.stderr_text.find("arithmetic is broken") != std::string::npos);
  CHECK(r.stderr_text.find("assert_context_test.cpp") != std::string::npos);
  CHECK(r.stderr_text.find("seed=4242") != std::string::npos);
  CHECK(r.stderr_text.find("virtual time=1.500250s") != std::string::npos);
}

TEST_CASE("GREGOR_ASSERT outside a simulation prints no stale run context") {
  ChildResult r = run_in_child([] {
    { sim::Simulator gone(99); }
    GREGOR_ASSERT(false);
  });
  INFO(r.stderr_text);
  CHECK(r.aborted);
  CHECK(r.stderr_text.find("assertion failed: false") != std::string::npos);
  CHECK(r.stderr_text.find("seed=") == std::string::npos);
}

TEST_CASE("GREGOR_ASSERT names the simulation that is still alive when another one was destroyed") {
  ChildResult r = run_in_child([] {
    sim::Simulator outer(7);
    { sim::Simulator inner(8); }
    outer.run_for(Duration::millis(3));
    GREGOR_ASSERT(outer.now() == Time{0});
  });
  INFO(r.stderr_text);
  CHECK(r.aborted);
  CHECK(r.stderr_text.find("seed=7 virtual time=0.003000s") != std::string::npos);
}

TEST_CASE("a passing assertion and an ok child exit cleanly") {
  ChildResult r = run_in_child([] { GREGOR_ASSERT(1 + 1 == 2); });
  CHECK_FALSE(r.aborted);
  CHECK(r.exit_code == 0);
  CHECK(r.stderr_text.empty());
}
