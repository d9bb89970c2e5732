#!/usr/bin/python3
"""Measures beam search on the trained Multi30k model, float32, int8 and int4, in one run.

    tests/bench/beam_bench.py                     # beams 1,2,4,5; 2 rounds
    tests/bench/beam_bench.py --md /tmp/beam.md

Prints a Markdown section ("## Beam search (tests/bench/beam_bench.py)"), writes JSON
(--json, default build/bench-cache/beam.json) and, with --md FILE, the Markdown to FILE. Uses
build/bin (it builds nothing) and the model files of run_benchmarks.py's cache (int8: the
committed models/multi30k-ende.int8.edgemt; int4 converted with this tree's converter).

1. Accuracy: BLEU of the 500 dev sentences (the model's bleu.py), edgemt-translate
   --beam-size B --batch-size 16, for each file and beam size.
2. Speed: edgemt-bench on the first --limit dev sentences (normal stopping), 1 thread:
   ms per sentence at batch 1 and tokens/s at batch 32, and from a profiled pass at batch 1
   the steps per sentence, XNNPACK ms per step and the cache-reorder share; for --rounds rounds, each round
   running every file and beam size once in turn (each process under
   flock(/tmp/edgemt-cpu.lock)); medians.
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
import run_benchmarks as rb  # noqa: E402
from packed_cache_bench import ROUNDS, cpu_lock, relative_paths  # noqa: E402
from int4_bench import int4_file  # noqa: E402

REPO = rb.REPO
BENCH = os.path.join(REPO, "build", "bin", "edgemt-bench")
TRANSLATE = os.path.join(REPO, "build", "bin", "edgemt-translate")
CACHE = os.path.join(REPO, "build", "bench-cache")
GOAL_TIME_FACTOR = 2.0     # int8 beam 4 at batch 1: at most 2x greedy's time per sentence


def bleu_of(path, beam, work):
    out = os.path.join(work, "%s.beam%d.de" % (os.path.basename(path), beam))
    with cpu_lock("bleu %s beam %d" % (os.path.basename(path), beam)):
        rb.run_child([TRANSLATE, "--model", path, "--beam-size", str(beam), "--batch-size", "16"], stdin=rb.DEV_EN,
                     stdout_path=out)
    text = rb.run_child([rb.PYTHON, os.path.join(rb.MULTI30K, "bleu.py"), out, rb.DEV_DE])["out"]
    return float(re.search(r"BLEU = ([0-9.]+)", text).group(1))


def speed(path, beam, batch, limit):
    """Timed pass; at batch 1 also a profiled pass after it (a separate translator, not timed)."""
    profile = 1 if batch == 1 else 0
    cmd = [BENCH, "--model", path, "--input", rb.DEV_EN, "--threads", "1", "--batch-size", str(batch),
           "--beam-size", str(beam), "--repeat", "1", "--limit", str(limit), "--profile-passes", str(profile)]
    with cpu_lock("speed %s beam %d batch %d" % (os.path.basename(path), beam, batch)):
        r = rb.run_child(cmd)
    j = json.loads(r["out"])
    out = dict(ms_per_sentence=j["median_ms_per_sentence"], tokens_per_s=j["tokens_per_s"],
               allocations=j["allocations_while_translating"], other_load=r["other_load"])
    if profile:
        out.update(steps_per_sentence=j["decoder_steps_per_pass"] / j["sentences"],
                   xnnpack_ms_per_step=j["profile"]["decoder_per_step"]["xnnpack_ms"],
                   reorder_share=j["cache_reorder_share"])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--beams", default="1,2,4,5")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--limit", type=int, default=100, help="dev sentences per speed run (batch 32: 3x)")
    p.add_argument("--json", default=os.path.join(CACHE, "beam.json"))
    p.add_argument("--md", default=None)
    args = p.parse_args()
    t0 = time.time()
    beams = [int(b) for b in args.beams.split(",")]
    models = rb.prepare_models(CACHE, ["multi30k"], quick=False)
    m = models["multi30k"]
    files = dict(float32=m["files"]["float32"], int8=m["files"]["int8"])
    files["int4"], _ = int4_file("multi30k", m["checkpoint"], 256, rb.converter_stamp())
    work = os.path.join(CACHE, "beam-work")
    os.makedirs(work, exist_ok=True)
    meta = dict(machine=rb.machine_info(), git=rb.git_info(), loadavg_start=list(os.getloadavg()),
                date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                rounds=args.rounds, limit=args.limit)
    results = {d: {b: dict(bleu=bleu_of(f, b, work), b1=[], b32=[]) for b in beams} for d, f in files.items()}
    for _ in range(args.rounds):
        for dtype, path in files.items():
            for beam in beams:
                results[dtype][beam]["b1"].append(speed(path, beam, 1, args.limit))
                results[dtype][beam]["b32"].append(speed(path, beam, 32, 3 * args.limit))
    for dtype in results:
        for beam, r in results[dtype].items():
            r["b1_ms"] = statistics.median(x["ms_per_sentence"] for x in r["b1"])
            r["b32_tokens_per_s"] = statistics.median(x["tokens_per_s"] for x in r["b32"])
            r["allocations"] = max(x["allocations"] for x in r["b1"] + r["b32"])
            for key in ("steps_per_sentence", "xnnpack_ms_per_step", "reorder_share"):
                r[key] = statistics.median(x[key] for x in r["b1"])
    meta["loadavg_end"] = list(os.getloadavg())
    meta["duration_s"] = round(time.time() - t0, 1)
    meta["commands"] = list(rb.COMMANDS)
    meta["lock_rounds"] = ROUNDS
    text = relative_paths(markdown(results, beams, meta))
    sys.stdout.write(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    with open(args.json, "w") as f:
        f.write(relative_paths(json.dumps(dict(meta=meta, results=results), indent=1)) + "\n")
    rb.log("wrote %s in %.1f min" % (rb.rel(args.json), meta["duration_s"] / 60))


def markdown(results, beams, meta):
    mc = meta["machine"]
    other = [r["other_load"] for r in meta["lock_rounds"]]
    lines = ["## Beam search (tests/bench/beam_bench.py)", "",
             "Measured %s at %s on %s (%d cores); load average %.2f at the start, %.2f at the end; other processes "
             "used at most %.2f cores during a measured process. Multi30k dev: BLEU of all 500 sentences; speed on "
             "the first %d (batch 1) and %d (batch 32) at 1 thread, normal stopping, medians of %d rounds (every "
             "file and beam size once per round). Length penalty 1. Each measured process held "
             "/tmp/edgemt-cpu.lock, the lock our builds and tests take too."
             % (meta["date"], meta["git"].get("commit", "?")[:7], mc["cpu_model"], mc["cores"],
                meta["loadavg_start"][0], meta["loadavg_end"][0], max(other) if other else 0.0, meta["limit"],
                3 * meta["limit"], meta["rounds"]), "",
             "Batch 1's profiled pass (a separate translator after the timed one) gives the decoder steps per "
             "sentence, the XNNPACK time of one step (its products, all beams at once) and the share of the time "
             "spent moving self-attention cache rows to the surviving hypotheses (what an indirection table "
             "instead of the in-place reorder could save at most).", "",
             "| file | beam | BLEU | batch 1 ms/sentence | vs greedy | steps/sentence | XNNPACK ms/step "
             "| cache reorder | batch 32 tokens/s | allocations |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for dtype, rows in results.items():
        greedy = rows[beams[0]]["b1_ms"]
        for beam in beams:
            r = rows[beam]
            lines.append("| %s | %d | %.2f | %.2f | %.2fx | %.1f | %.3f | %.2f%% | %.0f | %d |" % (
                dtype, beam, r["bleu"], r["b1_ms"], r["b1_ms"] / greedy, r["steps_per_sentence"],
                r["xnnpack_ms_per_step"], 100 * r["reorder_share"], r["b32_tokens_per_s"], r["allocations"]))
    if 4 in beams and 1 in beams:
        i8 = results["int8"]
        f_greedy = results["float32"][1]["bleu"]
        factor = i8[4]["b1_ms"] / i8[1]["b1_ms"]
        lines += ["", "| goal (issue 13) | measured | met |", "|---|---|---|",
                  "| int8 beam 4 BLEU at least float32 greedy's (%.2f) | %.2f | %s |" % (
                      f_greedy, i8[4]["bleu"], "yes" if i8[4]["bleu"] >= f_greedy else "**no**"),
                  "| int8 beam 4 at most %.0fx greedy's time per sentence, batch 1 | %.2fx | %s |" % (
                      GOAL_TIME_FACTOR, factor, "yes" if factor <= GOAL_TIME_FACTOR else "**no**")]
    lines += ["", "Commands: `%s` (every command in build/bench-cache/beam.json)." % " ".join(sys.argv), ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
