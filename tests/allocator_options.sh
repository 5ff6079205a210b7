#!/bin/sh
# The gregor command's heap on huge pages (app/main.cxx): the option must be set before mimalloc
# reads its options at start-up, and MIMALLOC_LARGE_OS_PAGES, when the user sets it, must decide.
# Usage: allocator_options.sh GREGOR
set -eu
gregor=$1
large_os_pages() {  # the value mimalloc reports at start-up, with the given environment
  env "$@" MIMALLOC_VERBOSE=1 "$gregor" --help 2>&1 | sed -n "s/^mimalloc: option 'large_os_pages': \([0-9-]*\)$/\1/p"
}
fail=0
check() {
  if [ "$2" != "$3" ]; then echo "FAIL: $1: large_os_pages is '$2', expected $3"; fail=1; else echo "ok: $1: $2"; fi
}
check "by default" "$(large_os_pages -u MIMALLOC_LARGE_OS_PAGES)" 1
check "MIMALLOC_LARGE_OS_PAGES=0" "$(large_os_pages MIMALLOC_LARGE_OS_PAGES=0)" 0
check "MIMALLOC_LARGE_OS_PAGES=1" "$(large_os_pages MIMALLOC_LARGE_OS_PAGES=1)" 1
exit $fail
