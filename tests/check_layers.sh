#!/usr/bin/env bash
# The layer rules, checked on the sources (headers that only other headers include too):
#  1. engine/ reaches the outside world only through Runtime and Disk: no sockets, threads, clocks,
#     files, SQLite or GUI headers, and nothing of sim/, net/, gui/, app/ or trace/.
#  2. engine's folders form one direction (engine/CMakeLists.txt): core -> record -> log -> protocol
#     -> coord -> group, client; txn may use group; broker may use txn and group. No folder includes one after it or beside it.
set -u
root="$1"
status=0
hits=$(grep -rnE '#include *<(boost/|thread|future|mutex|condition_variable|sqlite3\.h|GLFW/|imgui|fstream|filesystem|random|chrono|ctime|sys/|unistd\.h|fcntl\.h)|std::chrono::(system_clock|steady_clock|high_resolution_clock)|std::rand\(|random_device|std::thread|std::this_thread|fopen\(|(^|[^A-Za-z0-9_])::open\(|getenv\(' "$root/engine")
hits2=$(grep -rnE '#include *"(sim|net|gui|app|trace)/' "$root/engine")
if [ -n "$hits$hits2" ]; then
  echo "engine/ must reach the outside world only through Runtime and Disk:"
  echo "$hits"
  echo "$hits2"
  status=1
fi

# Each folder with the folders it may include (itself first).
allowed() {
  case "$1" in
    core) echo "core" ;;
    record) echo "record core" ;;
    log) echo "log record core" ;;
    protocol) echo "protocol log record core" ;;
    coord) echo "coord protocol log record core" ;;
    group) echo "group coord protocol log record core" ;;
    client) echo "client coord protocol log record core" ;;
    txn) echo "txn group coord protocol log record core" ;;
    broker) echo "broker txn group coord protocol log record core" ;;
    *) echo "" ;;
  esac
}
for dir in "$root"/engine/*/; do
  folder=$(basename "$dir")
  ok=$(allowed "$folder")
  if [ -z "$ok" ]; then
    echo "engine/$folder is not in the layer order: add it to engine/CMakeLists.txt and to this script"
    status=1
    continue
  fi
  pattern=$(echo "$ok" | tr ' ' '|')
  bad=$(grep -rnE '#include *"engine/[a-z_]+/' "$dir" | grep -vE "#include *\"engine/($pattern)/")
  if [ -n "$bad" ]; then
    echo "engine/$folder may include only engine/{${ok// /,}}:"
    echo "$bad"
    status=1
  fi
done
[ $status = 0 ] && echo "engine/ is clean: no outside world, and its folders keep their direction"
exit $status
