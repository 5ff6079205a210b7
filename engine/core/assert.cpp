#include "engine/core/assert.h"

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace gregor {
namespace {
// Per thread: a swarm runs its simulations on separate threads.
struct Registered {
  uint64_t handle;
  AssertContextFn fn;
};
thread_local std::vector<Registered> g_contexts;
thread_local uint64_t g_next_handle = 1;
}  // namespace

uint64_t set_assert_context(AssertContextFn fn) {
  uint64_t handle = g_next_handle++;
  g_contexts.push_back(Registered{handle, std::move(fn)});
  return handle;
}

void clear_assert_context(uint64_t handle) {
  for (auto it = g_contexts.begin(); it != g_contexts.end(); ++it)
    if (it->handle == handle) {
      g_contexts.erase(it);
      return;
    }
}

void assert_fail(const char* expr, const char* file, int line, const std::string& message) {
  std::fprintf(stderr, "assertion failed: %s at %s:%d", expr, file, line);
  if (!message.empty()) std::fprintf(stderr, ": %s", message.c_str());
  std::fprintf(stderr, "\n");
  if (!g_contexts.empty()) {
    AssertContextFn fn = std::move(g_contexts.back().fn);
    g_contexts.clear();  // a context that fails an assertion itself must not recurse
    std::fprintf(stderr, "  while running: %s\n", fn().c_str());
  }
  std::fflush(stderr);
  std::abort();
}

}  // namespace gregor
