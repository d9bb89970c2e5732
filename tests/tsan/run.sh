#!/usr/bin/env bash
# ThreadSanitizer run of the whole unit suite (with its threads: one Model
# shared by 16 translators on their threads in tests/unit/across_layers/concurrency_test.cc,
# translators with 2-thread pools), of the C API test (two threads taking
# turns on one translator; tests/c_api/) and of edgemt-serve's batcher (8
# threads' requests on 2 workers; tests/serve/batcher_test.cc).
#
#   tests/tsan/run.sh
#
# Builds only those tests in build-tsan/ with clang-14 and
# -fsanitize=thread for all of EdgeMT's code. XNNPACK, pthreadpool and
# cpuinfo are Debian's uninstrumented builds: TSan sees their memory
# accesses only through what our code does, and not the synchronization
# inside them; tests/tsan/suppressions.txt lists (and explains) what that
# makes it report. EdgeMT's own tasks on the pool (ParallelFor in
# runtime/src/base/thread_pool.h) tell TSan the ordering pthreadpool gives them.
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
cmake --build "$build" -j "$(nproc)" --target edgemt_unit_tests edgemt_c_api_test edgemt-make-test-model \
  edgemt_serve_tests

export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan/suppressions.txt}"
# The tokenizer cases use a tiny SentencePiece model trained on the spot
# (with_tiny_spm.py); a skip (77) fails this run, as any skipped check.
echo "tests/tsan/run.sh: the unit tests"
/usr/bin/python3 "$root/tests/robustness/with_tiny_spm.py" "$build/bin/edgemt_unit_tests"
echo "tests/tsan/run.sh: the C API test"
/usr/bin/python3 "$root/tests/c_api/run_c_api_test.py" "$build/bin/edgemt_c_api_test" "$build/bin/edgemt-make-test-model"
echo "tests/tsan/run.sh: edgemt-serve's batcher"
/usr/bin/python3 "$root/tests/robustness/with_tiny_spm.py" "$build/bin/edgemt_serve_tests"
echo "tests/tsan/run.sh: no data races reported"
