#!/usr/bin/python3
"""Runs EdgeMT's benchmarks and writes BENCHMARKS.json, and BENCHMARKS.md from it.

    tests/bench/run_benchmarks.py             # the full run (<= 20 min here)
    tests/bench/run_benchmarks.py --quick     # a few sentences, 1 repetition:
                                              # checks the driver, writes
                                              # build/bench-quick/BENCHMARKS.md
    tests/bench/run_benchmarks.py --baseline 76ad1be   # the run, and this
                                              # tree against commit 76ad1be
                                              # (+5-10 min; the first time
                                              # +3 min to build and convert)
    tests/bench/run_benchmarks.py --report-only   # BENCHMARKS.md again from
                                              # BENCHMARKS.json alone
    tests/bench/run_benchmarks.py --report-only --attach-section FILE.md
                                              # ... with a separate script's
                                              # section (--md FILE of
                                              # packed_cache_bench.py, ...)
    tests/bench/run_benchmarks.py --report-only --peer-json FILE
                                              # ... with peer_bench.py's run:
                                              # the headline table
    tests/bench/run_benchmarks.py --report-only --history refactor,baseline
                                              # ... those runs as history:
                                              # kept in the JSON, named in
                                              # "Runs", their figures in
                                              # tests/bench/ANALYSIS.md

Models: multi30k, the trained example (../shared/models/multi30k-ende: the 500 dev sentences, normal
stopping); tiny and base, random checkpoints (make_random_checkpoint.py), decoded to exactly 32 tokens from
100 sources of 32 ids. Checkpoints and converted files are cached in build/bench-cache/<model>/, keyed by
the converter's sources (tests/bench/benchlib/models.py).

Every measured program runs as a child process (tests/bench/benchlib/processes.py: wall time, peak RSS via
/usr/bin/time, the CPU other processes used meanwhile). EdgeMT figures come from build/bin/edgemt-bench at 1
and 2 threads, memory from build/bin/edgemt-translate translating the same inputs, the PyTorch reference
(Debian's python3-torch, no KV cache) from the same invocation with OpenBLAS unless --torch-blas system, the
decoder step's floor from build/bin/edgemt-xnnpack-gemm-bench (tests/bench/benchrun/). --baseline REV
compares this tree with an earlier commit in the same run, int8, in alternating processes
(tests/bench/benchrun/baseline.py). The page is written by tests/bench/benchreport/ from the JSON alone.

Options: --quick, --out FILE (default BENCHMARKS.md in the repository root; the JSON beside it), --report-only
(rewrite BENCHMARKS.md from its JSON and the headings of tests/bench/ANALYSIS.md, measuring nothing), --build-dir,
--cache-dir, --no-build, --models multi30k,tiny,base, --repeat N (default 3), --skip-torch, --skip-xnnpack
(also skips the decoder-step floor unless --baseline is given), --torch-blas openblas|system,
--generated-models (tiny and base files written by build/bin/edgemt-bench-model instead of converted
checkpoints: no converter needed, random weights, speed only; the PyTorch runs still use the checkpoints, so
their outputs differ; the baseline still converts them), --wait-quiet SECONDS (wait up to that long for the
1-minute load average to fall to --quiet-load, default 0.5), --baseline REV, --baseline-rounds N.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib.paths import REPO  # noqa: E402
from benchlib.processes import TIME_PROGRAM  # noqa: E402
from benchreport.update import report_only  # noqa: E402

MODELS = ("multi30k", "tiny", "base")


def parser():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="few sentences, 1 repetition; writes build/bench-quick/")
    ap.add_argument("--out", help="BENCHMARKS.md path (JSON beside it)")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    ap.add_argument("--cache-dir")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--skip-xnnpack", action="store_true")
    ap.add_argument("--torch-blas", default="openblas", choices=["openblas", "system"])
    ap.add_argument("--generated-models", action="store_true",
                    help="tiny/base from build/bin/edgemt-bench-model instead of converted checkpoints")
    ap.add_argument("--wait-quiet", type=int, default=0, help="wait up to N s for a quiet machine")
    ap.add_argument("--report-only", action="store_true",
                    help="measure nothing: rewrite BENCHMARKS.md from the JSON beside it (e.g. after editing "
                         "the headings of tests/bench/ANALYSIS.md)")
    ap.add_argument("--attach-section", metavar="MD",
                    help="with --report-only: keep this section, measured by another script (its --md FILE, e.g. "
                         "tests/bench/packed_cache_bench.py --md FILE, or its --json FILE), in the JSON and the report")
    ap.add_argument("--peer-json", metavar="JSON",
                    help="with --report-only: tests/bench/peer_bench.py's JSON, the headline's run")
    ap.add_argument("--history", metavar="NAMES",
                    help="with --report-only: mark these runs (separate runs' names, or baseline) as history: kept "
                         "in the JSON and named in the table of runs, their section only in tests/bench/ANALYSIS.md")
    ap.add_argument("--quiet-load", type=float, default=0.5)
    ap.add_argument("--idle-wait", type=float, default=None,
                    help="before each timed child, wait up to S s for other processes to use < 0.15 cores "
                         "(default 30, quick 0)")
    ap.add_argument("--idle-budget", type=float, default=300, help="total seconds of such waiting (default 300)")
    ap.add_argument("--baseline", metavar="REV",
                    help="also compare with commit REV in the same run: int8, alternating processes (a worktree "
                         "in BUILD/bench-baseline/, its own converter's models in CACHE/baseline/)")
    ap.add_argument("--baseline-rounds", type=int, default=3, metavar="N",
                    help="rounds of baseline/new processes per configuration (default 3; at least 3 unless "
                         "--quick)")
    return ap


def check(ap, args):
    """Refuses a bad invocation before anything is built."""
    if not os.access(TIME_PROGRAM, os.X_OK):
        raise SystemExit("%s is missing: peak memory is measured with it (Debian package time; "
                         "tools/install-deps.sh installs it)" % TIME_PROGRAM)
    if args.repeat < 3 and not args.quick:
        ap.error("--repeat must be at least 3 (the table promises >= 3 repetitions)")
    if args.baseline_rounds < (1 if args.quick else 3):
        ap.error("--baseline-rounds must be at least 3 (1 with --quick)")
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    for n in names:
        if n not in MODELS:
            ap.error("unknown model %r" % n)
    if args.baseline:
        from benchrun.baseline import resolve_commit
        resolve_commit(args.baseline)
    return names


def main():
    ap = parser()
    args = ap.parse_args()
    if args.report_only:
        report_only(args.out or os.path.join(REPO, "BENCHMARKS.md"), args.peer_json, args.attach_section,
                    [n.strip() for n in (args.history or "").split(",") if n.strip()])
        return
    names = check(ap, args)
    from benchrun import full_run
    full_run.run(args, names)


if __name__ == "__main__":
    main()
