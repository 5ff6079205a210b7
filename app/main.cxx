#include "app/commands.h"

#ifdef GREGOR_MIMALLOC
#include <mimalloc.h>

#include <string_view>

namespace {

// mimalloc's heap in transparent huge pages (2 MiB) unless MIMALLOC_LARGE_OS_PAGES says otherwise.
// Under a hypervisor a fresh 4 KiB page faults on its first write in the host as well as in the
// guest: with 4 KiB pages leader-failover spent about a sixth of its time growing the heap
// (docs/simulator.md, "eighth round"). mimalloc reads its options once, when it starts, which is
// before main and before any static constructor of the program; a function of the executable's
// .preinit_array runs before both. It is handed the environment (environ is not set yet) and
// allocates nothing.
void mimalloc_options(int, char**, char** envp) {
  constexpr std::string_view kName = "MIMALLOC_LARGE_OS_PAGES=";
  for (char** e = envp; e != nullptr && *e != nullptr; e++)
    if (std::string_view(*e).substr(0, kName.size()) == kName) return;  // the user's choice stands
  mi_option_enable(mi_option_large_os_pages);
}
[[gnu::used, gnu::section(".preinit_array")]] void (*const preinit_mimalloc_options)(int, char**, char**) = mimalloc_options;

}  // namespace
#endif

int main(int argc, char** argv) { return gregor::app::main(argc, argv); }
