#!/usr/bin/python3
"""Measures beam search on the trained Multi30k model, float32, int8 and int4, in one run.

    tests/bench/beam_bench.py                     # beams 1,2,4,5; 2 rounds
    tests/bench/beam_bench.py --md /tmp/beam.md

Prints a Markdown section ("## Beam search (tests/bench/beam_bench.py)"), writes JSON
(--json, default build/bench-cache/beam.json) and, with --md FILE, the Markdown to FILE. Uses
build/bin (it builds nothing) and the model files of run_benchmarks.py's cache (int8: the
committed models/multi30k-ende.int8.edgemt; int4 converted with this tree's converter, block 256).

1. Accuracy: BLEU of the 500 dev sentences (the model's bleu.py), edgemt-translate
   --beam-size B --batch-size 16, for each file and beam size.
2. Speed: edgemt-bench on the first --limit dev sentences (normal stopping), 1 thread:
   ms per sentence at batch 1 and tokens/s at batch 32, and from a profiled pass at batch 1
   the steps per sentence, XNNPACK ms per step and the cache-reorder share; for --rounds rounds, each round
   running every file and beam size once in turn (each process under
   flock(/tmp/edgemt-cpu.lock)); medians.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import edgemt_bench, machine, models, outputs, paths  # noqa: E402
from benchlib.alternation import alternate  # noqa: E402
from benchlib.load import cpu_lock  # noqa: E402
from benchlib.log import log  # noqa: E402
from benchlib.markdown import merged_commands, yes  # noqa: E402
from benchlib.processes import COMMANDS, run_child  # noqa: E402
from benchlib.section import Section, publish  # noqa: E402
from benchlib.stats import median_of  # noqa: E402

GOAL_TIME_FACTOR = 2.0     # int8 beam 4 at batch 1: at most 2x greedy's time per sentence
INT4_BLOCK = 256           # the converter's default block size


def bleu_of(path, beam, work):
    out = os.path.join(work, "%s.beam%d.de" % (os.path.basename(path), beam))
    with cpu_lock("bleu %s beam %d" % (os.path.basename(path), beam)):
        run_child([paths.TRANSLATE, "--model", path, "--beam-size", str(beam), "--batch-size", "16"],
                  stdin=paths.DEV_EN, stdout_path=out)
    return outputs.bleu(out)["bleu"]


def speed(path, beam, batch, limit):
    """Timed pass; at batch 1 also a profiled pass after it (a separate translator, not timed)."""
    profile = 1 if batch == 1 else 0
    cmd = edgemt_bench.command(path, paths.DEV_EN, batch=batch, profile_passes=profile, limit=limit,
                               extra=["--beam-size", str(beam)])
    with cpu_lock("speed %s beam %d batch %d" % (os.path.basename(path), beam, batch)):
        j = edgemt_bench.run(cmd)
    out = dict(ms_per_sentence=j["median_ms_per_sentence"], tokens_per_s=j["tokens_per_s"],
               allocations=j["allocations_while_translating"], other_load=j["other_load"])
    if profile:
        out.update(steps_per_sentence=j["decoder_steps_per_pass"] / j["sentences"],
                   xnnpack_ms_per_step=j["profile"]["decoder_per_step"]["xnnpack_ms"],
                   reorder_share=j["cache_reorder_share"])
    return out


def measure(files, beams, rounds, limit, work):
    """{dtype: {beam: figures}}: BLEU once, speed in rounds (every file and beam size once per round)."""
    results = {d: {b: dict(bleu=bleu_of(f, b, work)) for b in beams} for d, f in files.items()}
    configs = [(d, b) for d in files for b in beams]
    runs = alternate(configs, rounds, lambda c: (speed(files[c[0]], c[1], 1, limit),
                                                 speed(files[c[0]], c[1], 32, 3 * limit)))
    for (dtype, beam), pairs in runs.items():
        r = results[dtype][beam]
        r["b1"], r["b32"] = [p[0] for p in pairs], [p[1] for p in pairs]
        r["b1_ms"] = median_of(r["b1"], "ms_per_sentence")
        r["b32_tokens_per_s"] = median_of(r["b32"], "tokens_per_s")
        r["allocations"] = max(x["allocations"] for x in r["b1"] + r["b32"])
        for key in ("steps_per_sentence", "xnnpack_ms_per_step", "reorder_share"):
            r[key] = median_of(r["b1"], key)
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--beams", default="1,2,4,5")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--limit", type=int, default=100, help="dev sentences per speed run (batch 32: 3x)")
    p.add_argument("--json", default=os.path.join(paths.CACHE, "beam.json"))
    p.add_argument("--md", default=None)
    args = p.parse_args()
    beams = [int(b) for b in args.beams.split(",")]
    m = models.prepare_models(paths.CACHE, ["multi30k"])["multi30k"]
    files = dict(float32=m["files"]["float32"], int8=m["files"]["int8"])
    files["int4"], _ = models.int4_file("multi30k", m["checkpoint"], INT4_BLOCK, models.converter_stamp())
    work = os.path.join(paths.CACHE, "beam-work")
    os.makedirs(work, exist_ok=True)
    meta = machine.start_meta(rounds=args.rounds, limit=args.limit)
    results = measure(files, beams, args.rounds, args.limit, work)
    machine.finish_meta(meta, COMMANDS)
    publish(section(results, beams, meta), dict(meta=meta, results=results), args.json, args.md)
    log("wrote %s in %.1f min" % (paths.rel(args.json), meta["duration_s"] / 60))


def rows(results, beams):
    out = []
    for dtype, by_beam in results.items():
        greedy = by_beam[beams[0]]["b1_ms"]
        for beam in beams:
            r = by_beam[beam]
            out.append([dtype, beam, "%.2f" % r["bleu"], "%.2f" % r["b1_ms"], "%.2fx" % (r["b1_ms"] / greedy),
                        "%.1f" % r["steps_per_sentence"], "%.3f" % r["xnnpack_ms_per_step"],
                        "%.2f%%" % (100 * r["reorder_share"]), "%.0f" % r["b32_tokens_per_s"], r["allocations"]])
    return out


def goal_rows(results):
    i8, f_greedy = results["int8"], results["float32"][1]["bleu"]
    factor = i8[4]["b1_ms"] / i8[1]["b1_ms"]
    return [["int8 beam 4 BLEU at least float32 greedy's (%.2f)" % f_greedy, "%.2f" % i8[4]["bleu"],
             yes(i8[4]["bleu"] >= f_greedy)],
            ["int8 beam 4 at most %.0fx greedy's time per sentence, batch 1" % GOAL_TIME_FACTOR, "%.2fx" % factor,
             yes(factor <= GOAL_TIME_FACTOR)]]


def section(results, beams, meta):
    s = Section("beam", "Beam search (tests/bench/beam_bench.py)", machine.run_header(meta, "tests/bench/beam_bench.py"))
    s.text(machine.measured_when(meta, "a measured process") + " Multi30k dev: BLEU of all 500 sentences; speed on "
           "the first %d (batch 1) and %d (batch 32) at 1 thread, normal stopping, medians of %d rounds (every file "
           "and beam size once per round). Length penalty 1; int4 at block size %d. Each measured process held "
           "/tmp/edgemt-cpu.lock, the lock our builds and tests take too."
           % (meta["limit"], 3 * meta["limit"], meta["rounds"], INT4_BLOCK))
    s.text("Batch 1's profiled pass (a separate translator after the timed one) gives the decoder steps per "
           "sentence, the XNNPACK time of one step (its products, all beams at once) and the share of the time "
           "spent moving self-attention cache rows to the surviving hypotheses (what an indirection table "
           "instead of the in-place reorder could save at most).")
    s.table(["file", "beam", "BLEU", "batch 1 ms/sentence", "vs greedy", "steps/sentence", "XNNPACK ms/step",
             "cache reorder", "batch 32 tokens/s", "allocations"], rows(results, beams))
    if 4 in beams and 1 in beams:
        s.table(["goal (issue 13)", "measured", "met"], goal_rows(results))
    return s.code(merged_commands(meta["commands"], merge_all=True), "every command")


if __name__ == "__main__":
    main()
