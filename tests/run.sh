#!/usr/bin/env bash
# The whole test suite (the README's test command; .ci/run calls it):
# installs what is missing, then builds and runs CTest in these configurations
#
#   == native ==  build/        Release, the full suite
#   == asan ==    build-asan/   RelWithDebInfo, ASan + UBSan, built with clang-14, without `slow`
#                               (the Python API tests too: the module instrumented, the runtime preloaded)
#   == arm64 ==   build-arm64/  aarch64 cross build, tests under qemu-aarch64 (a Cortex-A76, and -cpu max), without `slow`
#   == armhf ==   build-armhf/  armhf cross build, tests under qemu-arm, without `slow`
#   == fuzz ==    build-fuzz/   libFuzzer on the model loader, packed cache and text layouts (tests/fuzz/run.sh)
#   == tsan ==    build-tsan/   ThreadSanitizer on the unit suite, the C API test and the serve batcher (tests/tsan/run.sh)
#   == x86-cpus == build/       native's programs under qemu-x86_64's Haswell (AVX2) and Nehalem (SSE4.2):
#                               the unit suite and the Multi30k e2e checks (tests/x86_cpus/run.sh; after native)
#   == wasm ==    build-wasm/   WebAssembly (Emscripten): the JavaScript API in Node.js, the dev set in
#                               Node.js and headless Chromium against native's CLI (after native)
#   == wasm-threads == build-wasm-threads/  the threaded WebAssembly build: the dev set in Chromium at
#                               2 threads on a cross-origin-isolated page (after native)
#
# all with -DEDGEMT_WERROR=ON. A test case that exists for one CPU feature or
# build only (the VNNI loops, huge pages, the allocation hooks) says "not
# applicable here" where it cannot run: listed by name, counted apart, never
# as passed. It goes on through all of them when one fails
# and exits non-zero if anything failed. A configuration that runs no test
# fails; a skipped test (CTest's "Skipped": exit 77, e.g. without ../shared)
# is listed, and fails the run when EDGEMT_FAIL_ON_SKIP=1 (.ci/run sets it).
# Only some configurations:
#   tests/run.sh native asan
# The sanitizer build uses clang: a second compiler for the project's code,
# and the sanitizer headers GCC 12 lacks (<sanitizer/allocator_interface.h>).
# EDGEMT_ASAN_CXX=g++ (say) overrides.
#
# CTest label convention (tests/README.md):
#   slow  a test that takes long (big models, long sweeps): run natively only,
#         skipped in the sanitizer and ARM (emulated: ~10-50x slower) runs.
#   host  a test of the build machine itself (the converter's Python tests,
#         install + consumer projects): registered only when not
#         cross-compiling (if(NOT CMAKE_CROSSCOMPILING)), and excluded from
#         the ARM runs here as well.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

"$root/tools/install-deps.sh" || { echo "tests/run.sh: installing the dependencies failed" >&2; exit 1; }

jobs="$(nproc)"
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(native x86-cpus wasm wasm-threads asan arm64 armhf fuzz tsan)

export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

declare -A result=() duration=()
total_passed=0 total_failed=0 total_skipped=0
not_applicable=()
failed_any=0

run_config() {
  local name="$1" dir="$2" exclude="$3"
  shift 3
  local log="$root/$dir/run.log"
  mkdir -p "$root/$dir"
  echo "$ cmake -S . -B $dir $*"
  if ! cmake -S "$root" -B "$root/$dir" -DEDGEMT_WERROR=ON "$@" >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "tests/run.sh: $name: configure failed (log: $dir/run.log)"
    return 1
  fi
  echo "$ cmake --build $dir -j $jobs"
  if ! cmake --build "$root/$dir" -j "$jobs" >>"$log" 2>&1; then
    grep -E -B2 -A12 'error|Error' "$log" | head -n 80
    echo "tests/run.sh: $name: build failed (log: $dir/run.log)"
    return 1
  fi
  local ctest_args=(--test-dir "$root/$dir" -j "$jobs" --output-on-failure --no-tests=error)
  [ -z "$exclude" ] || ctest_args+=(-LE "$exclude")
  echo "$ ctest --test-dir $dir -j $jobs --output-on-failure${exclude:+ -LE \"$exclude\"}"
  local rc
  ctest "${ctest_args[@]}" 2>&1 | tee "$root/$dir/ctest.log"
  rc=${PIPESTATUS[0]}
  # What XNNPACK found on the (emulated) CPU of each platform test.
  awk '/^[0-9]+\/[0-9]+ Testing: / { test = $3 }
       /^xnnpack_platform: / { sub(/^xnnpack_platform: /, ""); print "  " test ": " $0 }' \
    "$root/$dir/Testing/Temporary/LastTest.log" 2>/dev/null
  # Cases that cannot run on this CPU or build, by name.
  local case_line
  while IFS= read -r case_line; do
    not_applicable+=("$name: $case_line")
    echo "  $name: not applicable here: $case_line"
  done < <(awk '/^[0-9]+\/[0-9]+ Testing: / { test = $3 }
                /^not applicable here: / { sub(/^not applicable here: /, ""); print test ": " $0 }' \
             "$root/$dir/Testing/Temporary/LastTest.log" 2>/dev/null | sort -u)
  local skipped skipped_count=0
  skipped="$(grep -E '\*\*\*Skipped' "$root/$dir/ctest.log" | sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .*/\1/' | sort -u | tr '\n' ' ')"
  if [ -n "$skipped" ]; then
    echo "tests/run.sh: $name: skipped: $skipped"
    skipped_count=$(wc -w <<<"$skipped")
    total_skipped=$((total_skipped + skipped_count))
    if [ "${EDGEMT_FAIL_ON_SKIP:-0}" = 1 ]; then
      echo "tests/run.sh: $name: a skipped test fails this run (EDGEMT_FAIL_ON_SKIP=1)"
      rc=1
    fi
  fi
  local line passed failed
  line="$(grep -E '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$root/$dir/ctest.log" | tail -n 1)"
  if [ -n "$line" ]; then
    failed="$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")"
    # CTest's percentage counts a skipped test as passed: not here.
    passed=$(($(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line") - failed - skipped_count))
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
  fi
  return $rc
}

# A check that is a script of its own: it passes or fails as one test. Its
# "not applicable here: CASE" lines are listed as a configuration's are.
run_script() {
  local name="$1" script="$2" rc case_line
  echo "$ $script"
  mkdir -p "$root/build"
  "$root/$script" 2>&1 | tee "$root/build/$name.script.log"
  rc=${PIPESTATUS[0]}
  while IFS= read -r case_line; do
    not_applicable+=("$name: $case_line")
  done < <(sed -n 's/^ *\([^ ]*\): not applicable here: /\1: /p' "$root/build/$name.script.log" | sort -u)
  if [ "$rc" -eq 0 ]; then
    total_passed=$((total_passed + 1))
    echo "$name: 1 passed, 0 failed"
    return 0
  fi
  echo "$name: 0 passed, 1 failed"
  return 1
}

for config in "${configs[@]}"; do
  echo
  echo "== $config =="
  start=$SECONDS
  failed_before=$total_failed
  case "$config" in
    # (examples/demo.sh may have configured build/ without the tests and Python.)
    native) run_config native build "" -DCMAKE_BUILD_TYPE=Release -DEDGEMT_BUILD_TESTS=ON -DEDGEMT_PYTHON=ON ;;
    asan)
      asan_cxx="${EDGEMT_ASAN_CXX:-clang++-14}"
      asan_cc="${asan_cxx/clang++/clang}"
      asan_cc="${asan_cc/g++/gcc}"
      run_config asan build-asan slow -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDGEMT_SANITIZE=ON -DEDGEMT_PYTHON=ON \
        -DCMAKE_CXX_COMPILER="$asan_cxx" -DCMAKE_C_COMPILER="$asan_cc" ;;
    arm64) run_config arm64 build-arm64 "slow|host" -DCMAKE_BUILD_TYPE=Release \
             --toolchain "$root/toolchains/aarch64-linux-gnu.cmake" ;;
    armhf) run_config armhf build-armhf "slow|host" -DCMAKE_BUILD_TYPE=Release \
             --toolchain "$root/toolchains/arm-linux-gnueabihf.cmake" ;;
    wasm) run_config wasm build-wasm "" -DCMAKE_BUILD_TYPE=Release \
            --toolchain "$root/toolchains/wasm32-emscripten.cmake" -DEDGEMT_NATIVE_BIN="$root/build/bin" ;;
    wasm-threads) run_config wasm-threads build-wasm-threads "" -DCMAKE_BUILD_TYPE=Release \
            --toolchain "$root/toolchains/wasm32-emscripten-threads.cmake" -DEDGEMT_NATIVE_BIN="$root/build/bin" ;;
    fuzz) run_script fuzz tests/fuzz/run.sh ;;
    tsan) run_script tsan tests/tsan/run.sh ;;
    x86-cpus) run_script x86-cpus tests/x86_cpus/run.sh ;;
    *) echo "tests/run.sh: unknown configuration '$config' (native, x86-cpus, wasm, wasm-threads, asan, arm64, armhf, fuzz, tsan)"; false ;;
  esac
  rc=$?
  duration[$config]=$((SECONDS - start))
  if [ $rc -eq 0 ]; then
    result[$config]=passed
  else
    result[$config]=FAILED
    failed_any=1
    # A configuration that failed before CTest counted anything counts as one failure.
    [ "$total_failed" -gt "$failed_before" ] || total_failed=$((total_failed + 1))
  fi
done

echo
echo "== summary =="
for config in "${configs[@]}"; do
  printf '  %-12s %-7s %4ds\n' "$config" "${result[$config]}" "${duration[$config]}"
done
if [ ${#not_applicable[@]} -gt 0 ]; then
  echo "not applicable on their CPU or build (not counted as passed): ${#not_applicable[@]}"
  printf '  %s\n' "${not_applicable[@]}"
fi
echo "tests: $total_passed passed, $total_failed failed, $total_skipped skipped"
exit $failed_any
