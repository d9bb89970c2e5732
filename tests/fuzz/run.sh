#!/usr/bin/env bash
# Fuzzes the model loader, the packed-cache loader, the document and
# HTML layouts (fuzz_text_layout) and the whole path (fuzz_translate: a
# model with its fields changed, decoding options and texts through the text
# layer and the C API) for a bounded time and fails if libFuzzer finds
# anything (a crash, a sanitizer report, a timeout, a broken promise).
#
#   tests/fuzz/run.sh                 # 60 s + 20 s + 20 s + 45 s + 30 s
#   FUZZ_SECONDS=600 FUZZ_CACHE_SECONDS=120 FUZZ_TEXT_SECONDS=600 FUZZ_TRANSLATE_SECONDS=3600 tests/fuzz/run.sh
#   FUZZ_MERGE=1 tests/fuzz/run.sh    # then fold what the whole-path run found into tests/fuzz/translate-corpus
#
# fuzz_translate starts from tests/fuzz/translate-corpus (kept in the
# repository, minimised) and adds what it finds to build-fuzz/corpus-translate;
# FUZZ_MERGE=1 merges that back into the repository's corpus (libFuzzer
# -merge=1 keeps only inputs that add coverage), to be committed.
#
# Builds build-fuzz/ with clang-14 and -fsanitize=fuzzer-no-link,address,undefined
# for all of EdgeMT's code, writes the seed corpus (small valid float32,
# int8 and int4 models) and runs fuzz_model_loader on build-fuzz/corpus (kept between
# runs) plus tests/fuzz/regressions. A finding is saved as
# build-fuzz/artifacts/TARGET-crash-*: reproduce it with
#   build-fuzz/bin/TARGET build-fuzz/artifacts/TARGET-crash-...
# then fix the runtime and move the file to tests/fuzz/regressions/ with the
# status the unit test must see (tests/unit/across_layers/fuzz_regressions_test.cc).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$root/build-fuzz"
seconds="${FUZZ_SECONDS:-60}"
cache_seconds="${FUZZ_CACHE_SECONDS:-20}"
text_seconds="${FUZZ_TEXT_SECONDS:-20}"
translate_seconds="${FUZZ_TRANSLATE_SECONDS:-45}"
serve_seconds="${FUZZ_SERVE_SECONDS:-30}"

for tool in clang-14 clang++-14; do
  command -v "$tool" >/dev/null || { echo "tests/fuzz/run.sh: $tool is missing (tools/install-deps.sh)" >&2; exit 1; }
done

mkdir -p "$build"
# No vptr check: the runtime is built with -fno-rtti, so objects it creates
# (shared_ptr control blocks) have no type information for UBSan to check.
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr -fno-sanitize-recover=all -fno-omit-frame-pointer -g"
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DEDGEMT_FUZZ=ON -DEDGEMT_BUILD_EXAMPLES=OFF \
  "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target fuzz_model_loader fuzz_packed_cache fuzz_text_layout fuzz_translate fuzz_serve_api edgemt-fuzz-seeds

mkdir -p "$build/corpus" "$build/seeds" "$build/artifacts"
"$build/bin/edgemt-fuzz-seeds" "$build/seeds"

# Leaks are reported too (detect_leaks); allocator_may_return_null lets a
# huge allocation fail with a Status, as on a device, instead of aborting.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# Runs one target; fails the script when libFuzzer reports a finding.
fuzz() {
  local target="$1" time="$2"
  shift 2
  set +e
  "$build/bin/$target" -max_total_time="$time" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" \
    "$@" 2>&1 | tee "$build/$target.log" | grep -v '^#[0-9]*.*\(NEW\|REDUCE\|pulse\)'
  local status=${PIPESTATUS[0]}
  set -e
  if [ "$status" -ne 0 ]; then
    echo "tests/fuzz/run.sh: $target found a problem (exit $status); inputs in build-fuzz/artifacts/, log in build-fuzz/$target.log" >&2
    exit 1
  fi
}
fuzz fuzz_model_loader "$seconds" "$build/corpus" "$build/seeds" "$root/tests/fuzz/regressions"
# Its corpus starts empty: the target builds the good file itself and the
# odd-first-byte inputs edit it.
mkdir -p "$build/corpus-packed-cache"
fuzz fuzz_packed_cache "$cache_seconds" "$build/corpus-packed-cache"
# Documents and HTML: seeds of tags, references and sentences in tests/fuzz/text-seeds.
mkdir -p "$build/corpus-text-layout"
fuzz fuzz_text_layout "$text_seconds" "$build/corpus-text-layout" "$root/tests/fuzz/text-seeds"
# The whole path, from the repository's corpus.
mkdir -p "$build/corpus-translate"
fuzz fuzz_translate "$translate_seconds" "$build/corpus-translate" "$root/tests/fuzz/translate-corpus"
# edgemt-serve's request handling, from its seeds.
mkdir -p "$build/corpus-serve-api"
fuzz fuzz_serve_api "$serve_seconds" "$build/corpus-serve-api" "$root/tests/fuzz/serve-seeds"
if [ "${FUZZ_MERGE:-0}" = 1 ]; then
  "$build/bin/fuzz_translate" -merge=1 "$root/tests/fuzz/translate-corpus" "$build/corpus-translate" 2>&1 | tail -n 2
fi
echo "tests/fuzz/run.sh: no findings in ${seconds} s + ${cache_seconds} s + ${text_seconds} s + ${translate_seconds} s + ${serve_seconds} s"
