#!/usr/bin/python3
"""Measures int4 files (edgemt-convert --dtype int4, docs/int4.md) against int8, in one run.

    tests/bench/int4_bench.py                          # tiny, base, multi30k; 3 rounds
    tests/bench/int4_bench.py --blocks 32,64,128,256 --md /tmp/int4.md

Prints a Markdown section ("## int4 weights (tests/bench/int4_bench.py)") on stdout, writes
the figures as JSON (--json, default build/bench-cache/int4.json) and, with --md FILE, the
Markdown to FILE. Uses the binaries in build/bin (it builds nothing). The int8 and int4 files
come from run_benchmarks.py's model cache (build/bench-cache/<model>/), converted with this
tree's converter when missing or stale:

  multi30k  ../shared/models/multi30k-ende (int8: models/multi30k-ende.int8.edgemt)
  tiny/base make_random_checkpoint.py --preset tiny/base

1. File size: int4 against int8.
2. Batch-1 speed: edgemt-bench --batch-size 1, 32 output tokens per source (fixed length, as
   run_benchmarks.py's "b1"), --limit sources of build/bench-cache/fixed-100x32.ids for
   tiny/base and the dev set's first --limit lines for multi30k, at 1 and 2 threads; int8 and
   int4 processes alternate for --rounds rounds, each under flock(/tmp/edgemt-cpu.lock).
   Medians of the rounds' tokens/s; the ratio int4 / int8.
3. Multi30k accuracy: BLEU of the 500 dev sentences (the model's bleu.py) and the share of
   sentences identical to the float32 greedy reference (reference/dev.greedy.de), int8 and int4.
With --blocks, multi30k's accuracy, file size and batch-1 speed (1 thread) and base's speed
(1 thread) are also measured for each block size listed.
"""

import argparse
import datetime
import json
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_benchmarks as rb  # noqa: E402  (helpers only: its main() does not run on import)
from packed_cache_bench import ROUNDS, cpu_lock, relative_paths  # noqa: E402

REPO = rb.REPO
BENCH = os.path.join(REPO, "build", "bin", "edgemt-bench")
TRANSLATE = os.path.join(REPO, "build", "bin", "edgemt-translate")
FIXED_IDS = os.path.join(REPO, "build", "bench-cache", "fixed-100x32.ids")
CACHE = os.path.join(REPO, "build", "bench-cache")
FLOAT32_GREEDY = os.path.join(rb.MULTI30K, "reference", "dev.greedy.de")

GOAL_BASE_SPEEDUP = 1.4           # base int4 batch-1 tokens/s against int8
GOAL_SIZE_SHARE = 0.60            # multi30k int4 file against int8
GOAL_IDENTICAL = 0.85             # multi30k dev sentences identical to float32
GOAL_BLEU_DROP = 1.0              # multi30k BLEU at least float32's minus this
FLOAT32_BLEU = 36.57              # the float32 reference (tests/e2e/test_multi30k_int8.py)


def log(message):
    rb.log(message)


def int4_file(name, checkpoint, block, stamp):
    out = os.path.join(CACHE, name, "%s.int4-b%d.edgemt" % (name, block))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    conversion = rb.convert(checkpoint, out, "int4", stamp, extra=("--block-size", str(block)))
    return out, conversion


def speed(path, source, fixed, threads, limit):
    cmd = [BENCH, "--model", path, "--input-ids" if fixed else "--input", source, "--threads", str(threads),
           "--batch-size", "1", "--repeat", "1", "--limit", str(limit), "--profile-passes", "0",
           "--min-length", "32", "--max-length", "32"]
    r = rb.run_child(cmd)
    j = json.loads(r["out"])
    return dict(tokens_per_s=j["tokens_per_s"], load_ms=j["load_ms"], other_load=r["other_load"])


def alternate(files, source, fixed, threads, limit, rounds, label):
    """{dtype: [runs]}: one process per dtype per round, in turn."""
    runs = {d: [] for d in files}
    for i in range(rounds):
        for dtype, path in files.items():
            with cpu_lock("%s %s t%d round %d" % (label, dtype, threads, i + 1)):
                runs[dtype].append(speed(path, source, fixed, threads, limit))
    return runs


def median(runs, key="tokens_per_s"):
    return statistics.median(r[key] for r in runs)


def accuracy(path, work):
    out = os.path.join(work, os.path.basename(path) + ".de")
    with cpu_lock("accuracy " + os.path.basename(path)):
        rb.run_child([TRANSLATE, "--model", path, "--batch-size", "8"], stdin=rb.DEV_EN, stdout_path=out)
    bleu_out = rb.run_child([rb.PYTHON, os.path.join(rb.MULTI30K, "bleu.py"), out, rb.DEV_DE])["out"]
    bleu = float(re.search(r"BLEU = ([0-9.]+)", bleu_out).group(1))
    with open(out, encoding="utf-8") as f:
        ours = f.read().split("\n")[:-1]
    with open(FLOAT32_GREEDY, encoding="utf-8") as f:
        ref = f.read().split("\n")[:-1]
    same = sum(a == b for a, b in zip(ours, ref)) / len(ref)
    return dict(bleu=bleu, identical=round(same, 4), lines=len(ours))


def kept_int8(path):
    """The 'kept int8:' line of the file's quantization summary."""
    with open(path, "rb") as f:
        data = f.read()
    m = re.search(rb"kept int8: ([^\n]*)", data)
    return m.group(1).decode() if m else None


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--limit", type=int, default=30, help="sources per speed run (default 30)")
    p.add_argument("--block", type=int, default=128, help="the block size of the main comparison (default 128)")
    p.add_argument("--blocks", default="", help="block sizes to compare, e.g. 32,64,128,256 (default: none)")
    p.add_argument("--models", default="multi30k,tiny,base")
    p.add_argument("--json", default=os.path.join(CACHE, "int4.json"))
    p.add_argument("--md", default=None)
    return p.parse_args()


def main():
    args = parse_args()
    t0 = time.time()
    names = [n for n in args.models.split(",") if n]
    for path in (BENCH, TRANSLATE, FIXED_IDS):
        if not os.path.exists(path):
            raise SystemExit("missing %s (build/bin is built by cmake; the ids by run_benchmarks.py)" % path)
    if "multi30k" in names and not os.path.isdir(rb.MULTI30K):
        raise SystemExit("multi30k needs ../shared")
    stamp = rb.converter_stamp()
    models = rb.prepare_models(CACHE, names, quick=False)
    work = os.path.join(CACHE, "int4-work")
    os.makedirs(work, exist_ok=True)
    meta = dict(machine=rb.machine_info(), git=rb.git_info(), loadavg_start=list(os.getloadavg()),
                date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                rounds=args.rounds, limit=args.limit, block=args.block)
    results = {}
    for name in names:
        m = models[name]
        int8 = m["files"]["int8"]
        int4, conversion = int4_file(name, m["checkpoint"], args.block, stamp)
        fixed = name != "multi30k"
        source = FIXED_IDS if fixed else rb.DEV_EN
        for path in (int8, int4):
            rb.warm_page_cache(path)
        r = dict(int8_bytes=os.path.getsize(int8), int4_bytes=os.path.getsize(int4), kept_int8=kept_int8(int4),
                 int4_file=rb.rel(int4), int8_file=rb.rel(int8), conversion=conversion, speed={})
        for threads in (1, 2):
            runs = alternate(dict(int8=int8, int4=int4), source, fixed, threads, args.limit, args.rounds, name)
            r["speed"]["t%d" % threads] = dict(runs=runs, int8=median(runs["int8"]), int4=median(runs["int4"]))
        if name == "multi30k":
            r["accuracy"] = dict(int8=accuracy(int8, work), int4=accuracy(int4, work))
        results[name] = r
        log("%s: int4 %.1f%% of int8's size; b1 t1 %.2fx, t2 %.2fx" % (
            name, 100.0 * r["int4_bytes"] / r["int8_bytes"], r["speed"]["t1"]["int4"] / r["speed"]["t1"]["int8"],
            r["speed"]["t2"]["int4"] / r["speed"]["t2"]["int8"]))
    sweep = {}
    for block in [int(b) for b in args.blocks.split(",") if b]:
        row = {}
        for name in [n for n in ("multi30k", "base") if n in names]:
            m = models[name]
            int4, _ = int4_file(name, m["checkpoint"], block, stamp)
            fixed = name != "multi30k"
            runs = alternate(dict(int8=m["files"]["int8"], int4=int4), FIXED_IDS if fixed else rb.DEV_EN, fixed, 1,
                             args.limit, args.rounds, "%s block %d" % (name, block))
            row[name] = dict(bytes=os.path.getsize(int4), speedup_t1=median(runs["int4"]) / median(runs["int8"]),
                             kept_int8=kept_int8(int4))
            if name == "multi30k":
                row[name]["accuracy"] = accuracy(int4, work)
        sweep[block] = row
    meta["loadavg_end"] = list(os.getloadavg())
    meta["duration_s"] = round(time.time() - t0, 1)
    meta["commands"] = list(rb.COMMANDS)
    meta["lock_rounds"] = ROUNDS
    text = relative_paths(markdown(results, sweep, meta))
    sys.stdout.write(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    with open(args.json, "w") as f:
        f.write(relative_paths(json.dumps(dict(meta=meta, models=results, blocks=sweep), indent=1)) + "\n")
    log("wrote %s in %.1f min" % (rb.rel(args.json), meta["duration_s"] / 60))


def pct(x):
    return "%.1f%%" % (100.0 * x)


def markdown(results, sweep, meta):
    mc = meta["machine"]
    other = [r["other_load"] for r in meta["lock_rounds"]]
    lines = ["## int4 weights (tests/bench/int4_bench.py)", "",
             "Measured %s at %s on %s (%d cores%s); load average %.2f at the start, %.2f at the end; other "
             "processes used at most %.2f cores during a measured round. int8 and int4 processes alternate, "
             "%d rounds; medians. Block size %d unless a row says otherwise. Nothing else of ours ran meanwhile."
             % (meta["date"], meta["git"].get("commit", "?")[:7], mc["cpu_model"], mc["cores"],
                ", " + " ".join(mc["simd_flags"]) if mc.get("simd_flags") else "", meta["loadavg_start"][0],
                meta["loadavg_end"][0], max(other) if other else 0.0, meta["rounds"], meta["block"]), "",
             "| model | int8 file | int4 file | int4/int8 | b1 t1 int8 tok/s | b1 t1 int4 | ratio | "
             "b1 t2 int8 | b1 t2 int4 | ratio | kept int8 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        s1, s2 = r["speed"]["t1"], r["speed"]["t2"]
        kept = r["kept_int8"] or "?"
        kept = "none" if kept == "none" else "%d layers" % (kept.count("), ") + 1)
        lines.append("| %s | %.2f MB | %.2f MB | %s | %.0f | %.0f | %.2fx | %.0f | %.0f | %.2fx | %s |" % (
            name, r["int8_bytes"] / 1e6, r["int4_bytes"] / 1e6, pct(r["int4_bytes"] / r["int8_bytes"]),
            s1["int8"], s1["int4"], s1["int4"] / s1["int8"], s2["int8"], s2["int4"], s2["int4"] / s2["int8"], kept))
    if "multi30k" in results:
        a = results["multi30k"]["accuracy"]
        lines += ["", "Multi30k dev (500 sentences; float32 BLEU %.2f):" % FLOAT32_BLEU, "",
                  "| file | BLEU | identical to float32 |", "|---|---|---|"]
        for dtype in ("int8", "int4"):
            lines.append("| %s | %.2f | %s |" % (dtype, a[dtype]["bleu"], pct(a[dtype]["identical"])))
    if sweep:
        lines += ["", "Block sizes (1 thread; speed ratio int4/int8 in the same rounds):", "",
                  "| block | multi30k BLEU | identical | int4 file | multi30k b1 ratio | base b1 ratio |",
                  "|---|---|---|---|---|---|"]
        for block, row in sweep.items():
            mm, bb = row.get("multi30k"), row.get("base")
            lines.append("| %d | %s | %s | %s | %s | %s |" % (
                block, "%.2f" % mm["accuracy"]["bleu"] if mm else "-", pct(mm["accuracy"]["identical"]) if mm else "-",
                "%.2f MB" % (mm["bytes"] / 1e6) if mm else "-", "%.2fx" % mm["speedup_t1"] if mm else "-",
                "%.2fx" % bb["speedup_t1"] if bb else "-"))
    goals = []
    if "base" in results:
        s = results["base"]["speed"]
        best = max(s["t1"]["int4"] / s["t1"]["int8"], s["t2"]["int4"] / s["t2"]["int8"])
        goals.append(("base int4 batch-1 tokens/s at least %.1fx int8" % GOAL_BASE_SPEEDUP, "%.2fx" % best,
                      best >= GOAL_BASE_SPEEDUP))
    if "multi30k" in results:
        r = results["multi30k"]
        share = r["int4_bytes"] / r["int8_bytes"]
        a = r["accuracy"]["int4"]
        goals += [("multi30k int4 file at most %s of int8" % pct(GOAL_SIZE_SHARE), pct(share), share <= GOAL_SIZE_SHARE),
                  ("multi30k BLEU at least float32 - %.1f (%.2f)" % (GOAL_BLEU_DROP, FLOAT32_BLEU - GOAL_BLEU_DROP),
                   "%.2f" % a["bleu"], a["bleu"] >= FLOAT32_BLEU - GOAL_BLEU_DROP),
                  ("multi30k at least %s identical to float32" % pct(GOAL_IDENTICAL), pct(a["identical"]),
                   a["identical"] >= GOAL_IDENTICAL)]
    if goals:
        lines += ["", "| goal (issue 12) | measured | met |", "|---|---|---|"]
        for goal, value, met in goals:
            lines.append("| %s | %s | %s |" % (goal, value, "yes" if met else "**no**"))
    lines += ["", "Commands: `%s` (see build/bench-cache/int4.json for every command)." % " ".join(sys.argv), ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
