// Always-on assertions. GREGOR_ASSERT stays on in every build type (Release included): an
// assertion is cheap next to the cost of a silent corruption in a replication protocol.
//
// When an assertion fails inside a simulation it prints the run's seed and virtual time, so the
// failure can be replayed exactly; the simulator registers that context with set_assert_context().
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace gregor {

// Something that can describe where a run stands: "seed=42 virtual time=1.250000s". Registered by
// the runtime for as long as it lives; when several are registered on one thread (two simulators
// side by side in a test), the most recent one still registered is printed. Registrations may be
// cleared in any order.
using AssertContextFn = std::function<std::string()>;
[[nodiscard]] uint64_t set_assert_context(AssertContextFn fn);
void clear_assert_context(uint64_t handle);

[[noreturn]] void assert_fail(const char* expr, const char* file, int line, const std::string& message);

}  // namespace gregor

#define GREGOR_ASSERT(cond)                                                  \
  do {                                                                       \
    if (!(cond)) [[unlikely]] ::gregor::assert_fail(#cond, __FILE__, __LINE__, ""); \
  } while (0)

#define GREGOR_ASSERT_MSG(cond, msg)                                            \
  do {                                                                          \
    if (!(cond)) [[unlikely]] ::gregor::assert_fail(#cond, __FILE__, __LINE__, (msg)); \
  } while (0)

#define GREGOR_UNREACHABLE(msg) ::gregor::assert_fail("unreachable", __FILE__, __LINE__, (msg))
