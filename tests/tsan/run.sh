#!/usr/bin/env bash
# ThreadSanitizer run of the tests that use threads: one Model shared by
# translators on several threads (tests/unit/concurrency_test.cc) and one
# translator with a 2-thread pool (tests/unit/translator_test.cc).
#
#   tests/tsan/run.sh
#
# Builds only the unit tests in build-tsan/ with clang-14 and
# -fsanitize=thread for all of EdgeMT's code. XNNPACK, pthreadpool and
# cpuinfo are Debian's uninstrumented builds: TSan sees their memory
# accesses only through what our code does, and not the synchronization
# inside them; tests/tsan/suppressions.txt lists (and explains) what that
# makes it report. EdgeMT's own tasks on the pool (ParallelFor in
# runtime/src/thread_pool.h) tell TSan the ordering pthreadpool gives them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$root/build-tsan"
command -v clang++-14 >/dev/null || { echo "tests/tsan/run.sh: clang++-14 is missing (tools/install-deps.sh)" >&2; exit 1; }

mkdir -p "$build"
flags="-fsanitize=thread -fno-omit-frame-pointer -g"
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DEDGEMT_BUILD_EXAMPLES=OFF "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread" >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target edgemt_unit_tests

export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan/suppressions.txt}"
# The selection is by name: a rename must not leave it empty.
count="$("$build/bin/edgemt_unit_tests" --test-case="*thread*" --count | sed -n 's/.*passing the current filters: //p')"
[ "${count:-0}" -gt 0 ] || { echo "tests/tsan/run.sh: no test case matches *thread*" >&2; exit 1; }
echo "tests/tsan/run.sh: $count test cases"
"$build/bin/edgemt_unit_tests" --test-case="*thread*"
echo "tests/tsan/run.sh: no data races reported"
