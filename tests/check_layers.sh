#!/usr/bin/env bash
# Fails when engine/ includes or calls something that reaches the outside world directly.
set -u
root="$1"
hits=$(grep -rnE '#include *<(boost/|thread|future|mutex|condition_variable|sqlite3\.h|GLFW/|imgui|fstream|filesystem|random|chrono|ctime|sys/|unistd\.h|fcntl\.h)|std::chrono::(system_clock|steady_clock|high_resolution_clock)|std::rand\(|random_device|std::thread|std::this_thread|fopen\(|(^|[^A-Za-z0-9_])::open\(|getenv\(' "$root/engine")
hits2=$(grep -rnE '#include *"(sim|net|gui|app|trace)/' "$root/engine")
if [ -n "$hits$hits2" ]; then
  echo "engine/ must reach the outside world only through Runtime and Disk:"
  echo "$hits"
  echo "$hits2"
  exit 1
fi
echo "engine/ is clean"
