#include "engine/core/assert.h"

#include <cstdio>
#include <cstdlib>

namespace gregor {
namespace {
// One context per thread: a swarm runs one simulation per thread at most.
thread_local AssertContextFn g_context;
}  // namespace

void set_assert_context(AssertContextFn fn) { g_context = std::move(fn); }
void clear_assert_context() { g_context = nullptr; }

void assert_fail(const char* expr, const char* file, int line, const std::string& message) {
  std::fprintf(stderr, "assertion failed: %s at %s:%d", expr, file, line);
  if (!message.empty()) std::fprintf(stderr, ": %s", message.c_str());
  std::fprintf(stderr, "\n");
  if (g_context) {
    AssertContextFn fn = std::move(g_context);  // a failing context must not recurse
    std::fprintf(stderr, "  while running: %s\n", fn().c_str());
  }
  std::fflush(stderr);
  std::abort();
}

}  // namespace gregor
