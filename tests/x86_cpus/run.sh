#!/usr/bin/env bash
# Every x86 kernel path on every machine: the native build's programs (build/,
# nothing built here) under qemu-x86_64's emulated CPU models, which hide
# what this machine has:
#
#   Haswell   AVX2 and FMA3, no AVX-512: XNNPACK's AVX2 kernels
#   Nehalem   SSE4.2, no AVX: its SSE kernels
#
# For each: what cpuinfo and XNNPACK see (printed, and checked to hide what
# it should), the unit suite (with ../shared's SentencePiece model for its
# tokenizer cases) and the Multi30k float32, int8 and int4 end-to-end checks
# (tests/e2e, EDGEMT_EMULATOR: a slice of the dev set as on ARM, with
# x86-64's references). Cases that exist for one ISA (the VNNI shortlist
# loops) say "not applicable here" by name; they are counted apart.
#
#   tests/x86_cpus/run.sh            (after the native configuration)
#   tests/x86_cpus/run.sh Haswell    (one CPU)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$root/build/bin"
cpus=("$@")
[ ${#cpus[@]} -gt 0 ] || cpus=(Haswell Nehalem)
command -v qemu-x86_64 >/dev/null || { echo "tests/x86_cpus/run.sh: qemu-x86_64 is missing (tools/install-deps.sh)" >&2; exit 1; }
for program in edgemt_unit_tests xnnpack_platform_test edgemt-translate edgemt-dump-tensors; do
  [ -x "$bin/$program" ] || { echo "tests/x86_cpus/run.sh: $bin/$program is missing: run the native configuration first" >&2; exit 1; }
done
spm="$root/../shared/models/multi30k-ende/spm.model"
[ -f "$spm" ] || { echo "tests/x86_cpus/run.sh: $spm is missing (../shared)" >&2; exit 1; }
logs="$root/build/x86-cpus"
mkdir -p "$logs"

# qemu's models, less the features its TCG cannot give (it would warn at every thread).
declare -A model=([Haswell]="Haswell-noTSX,-pcid,-x2apic,-tsc-deadline,-invpcid" [Nehalem]="Nehalem")
# What must be hidden (=no) and what must be there (=yes) on each model.
declare -A expect=([Haswell]="avx2=yes fma3=yes avx512f=no avx512vnni=no"
                   [Nehalem]="sse4.1=yes avx=no avx2=no avx512f=no")
failed=0
passed=0
not_applicable=0

check_features() {
  local cpu="$1" features
  features="$(qemu-x86_64 -cpu "${model[$cpu]:-$cpu}" "$bin/xnnpack_platform_test" 2>&1 | grep '^xnnpack_platform: arch=')"
  echo "  $cpu: ${features#xnnpack_platform: }"
  for want in ${expect[$cpu]:-}; do
    if [[ " ${features#xnnpack_platform: } " != *" $want "* ]]; then
      echo "tests/x86_cpus/run.sh: $cpu: expected $want: the emulated CPU does not hide what it should" >&2
      return 1
    fi
  done
}

# qemu runs AVX2 code ~10x slower than SSE code (Haswell: 14 s a float32 dev sentence at one
# thread, Nehalem 2.7 s): each checks a slice of the dev set against the same references,
# Haswell the first 3 sentences for float32 (its golden tensors check the float kernels within
# 2e-6; 10 sentences took 207 s) and 100 for int8 and int4, Nehalem 30 and 100 (the
# checks that need all 500, BLEU and int8's share identical to float32, run natively); the int4
# ids are held to the converter's simulation and to a slice's floor of that share.
declare -A slice=([Haswell]="EDGEMT_FLOAT32_SENTENCES=3 EDGEMT_DEV_SENTENCES=100"
                  [Nehalem]="EDGEMT_FLOAT32_SENTENCES=30 EDGEMT_DEV_SENTENCES=100")
# The sweeps of our own code run natively (tests/unit/sweeps.txt says why). Haswell, whose AVX2
# code qemu runs slowest, also leaves to Nehalem and the native run the text layer's cases (the
# tokenizer's: 101 of its 536 s) and the thread pool's (1 and 2 threads: 176 s), which sit above
# the kernels; it runs every other case, each on XNNPACK's AVX2 kernels.
sweeps="$(grep '^[^#]' "$root/tests/unit/sweeps.txt" | paste -sd, -)"
declare -A unit_excludes=([Nehalem]="$sweeps" [Haswell]="$sweeps,tokenizer:*,the output is the same with 1 and 2 threads")
declare -A whole_set_checks=(
  [multi30k_int8]="--exclude test_bleu_within_a_fifth_of_a_point_of_float32 --exclude test_most_sentences_identical_to_float32"
  [multi30k_int4]="--exclude test_bleu_close_to_float32")

# One CPU's part of the checks ("unit": the platform test and the unit suite; "e2e": three
# modules), its output in $logs/CPU-PART.log and the number of its failed checks in CPU-PART.failed.
run_part() {
  local cpu="$1" part="$2" emulator="qemu-x86_64 -cpu ${model[$1]:-$1}" fails=0
  {
    if [ "$part" = unit ]; then
      echo "== $cpu: the platform test"
      $emulator "$bin/xnnpack_platform_test" || fails=$((fails + 1))
      echo "== $cpu: the unit tests"
      EDGEMT_TEST_SPM="$spm" $emulator "$bin/edgemt_unit_tests" \
        --test-case-exclude="${unit_excludes[$cpu]:-$sweeps}" || fails=$((fails + 1))
    else
      for e2e in multi30k_float32 multi30k_int8 multi30k_int4; do
        echo "== $cpu: e2e $e2e"
        local excludes=()
        case "$e2e" in
          multi30k_int8) excludes=(--exclude test_runtime_agrees_with_the_int8_simulation --exclude test_the_text_is_the_ids_decoded
                                   --exclude test_the_static_cli_translates_identically) ;;
          multi30k_int4) excludes=(--exclude test_the_text_is_the_ids_decoded) ;;
        esac
        if [ -n "${slice[$cpu]:-}" ]; then
          # shellcheck disable=SC2206
          excludes+=(${whole_set_checks[$e2e]:-})
        fi
        (cd "$root/tests/e2e" && env ${slice[$cpu]:-} EDGEMT_BIN="$bin" EDGEMT_EMULATOR="$emulator" EDGEMT_EMULATED_X86=1 \
           /usr/bin/python3 "$root/tests/support/ctest_unittest.py" "test_$e2e" "${excludes[@]}") || fails=$((fails + 1))
      done
    fi
  } >"$logs/$cpu-$part.log" 2>&1
  echo "$fails" >"$logs/$cpu-$part.failed"
}

echo "tests/x86_cpus/run.sh: the emulated CPUs, as cpuinfo and XNNPACK see them:"
for cpu in "${cpus[@]}"; do
  check_features "$cpu" || { failed=$((failed + 1)); continue; }
done
[ $failed -eq 0 ] || { echo "x86-cpus: 0 passed, $failed failed"; exit 1; }

# The parts two at a time (a core each), the longest first: Haswell's, then Nehalem's
# (tests/README.md has their times).
parts=()
for part in "Haswell unit" "Haswell e2e" "Nehalem e2e" "Nehalem unit"; do
  [[ " ${cpus[*]} " == *" ${part%% *} "* ]] && parts+=("$part")
done
for cpu in "${cpus[@]}"; do
  [[ " Haswell Nehalem " == *" $cpu "* ]] || parts+=("$cpu unit" "$cpu e2e")
done
running=0
for part in "${parts[@]}"; do
  rm -f "$logs/${part% *}-${part#* }.failed"
  if [ $running -ge 2 ]; then
    wait -n
    running=$((running - 1))
  fi
  # shellcheck disable=SC2086  # "CPU PART": two words, two arguments
  run_part ${part} &
  running=$((running + 1))
done
wait

for cpu in "${cpus[@]}"; do
  rc=0
  for part in unit e2e; do
    rc=$((rc + $(cat "$logs/$cpu-$part.failed" 2>/dev/null || echo 1)))
  done
  cat "$logs/$cpu-unit.log" "$logs/$cpu-e2e.log" >"$logs/$cpu.log" 2>/dev/null
  checks=5  # the platform test, the unit tests, three e2e modules
  if [ $rc -eq 0 ]; then
    echo "  $cpu: passed (log: build/x86-cpus/$cpu.log)"
  else
    echo "  $cpu: $rc of $checks checks FAILED (log: build/x86-cpus/$cpu.log):"
    grep -E 'FAIL|ERROR|error|Error' "$logs/$cpu.log" | head -n 40
  fi
  passed=$((passed + checks - rc))
  failed=$((failed + rc))
  grep -E '^xnnpack_platform: (arch|xnn_initialize)' "$logs/$cpu.log" | sed "s/^/  $cpu: /"
  while IFS= read -r line; do
    echo "  $cpu: $line"
    not_applicable=$((not_applicable + 1))
  done < <(grep '^not applicable here: ' "$logs/$cpu.log")
done
echo "x86-cpus: $not_applicable not applicable on their CPU (listed above, not counted as passed)"
echo "x86-cpus: $passed passed, $failed failed"
[ $failed -eq 0 ]
