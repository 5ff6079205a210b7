// Which malloc the process runs on. The gregor command links mimalloc (app/CMakeLists.txt); the test
// binaries keep glibc's. Benchmarks print it next to their figures, since it changes all of them.
#include <dlfcn.h>

#include "app/commands.h"

namespace gregor::app {

const char* allocator_name() {
  // mimalloc exports mi_version; when it is loaded, its malloc is the process's malloc.
  return dlsym(RTLD_DEFAULT, "mi_version") != nullptr ? "mimalloc" : "glibc malloc";
}

}  // namespace gregor::app
