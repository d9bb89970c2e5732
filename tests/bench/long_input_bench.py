#!/usr/bin/python3
"""Long sources: the encoder's time by source length, this build against another, in one run.

    tests/bench/long_input_bench.py --baseline-bin /tmp/base/edgemt-bench --baseline-name b34450d
    tests/bench/long_input_bench.py --lengths 24,200 --rounds 2 --md build/bench-cache/long-input.md

Prints a Markdown section ("## Long sources (tests/bench/long_input_bench.py)") on stdout, writes the
figures as JSON (--json, default build/bench-cache/long-input.json) and, with --md FILE, the Markdown to
FILE. The model is run_benchmarks.py's random OPUS-MT shape ("opus": d_model 512, 8 heads, 6 + 6 layers,
58,101 ids), int8 and int4 (block 256), converted by this tree's converter when missing or stale. For each
source length, --sources random sources of that many ids (the last </s>), each translated to exactly
--output ids at batch 1 (edgemt-bench --min-length/--max-length) at 1 and 2 threads. With --baseline-bin,
that edgemt-bench (another build) and this tree's alternate round by round, each process under
flock(/tmp/edgemt-cpu.lock); medians of the rounds' encoder ms per sentence (edgemt-bench's
encoder_ms_per_sentence) and ms per sentence.
"""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import edgemt_bench, machine, models, paths  # noqa: E402
from benchlib.alternation import alternate  # noqa: E402
from benchlib.load import cpu_lock  # noqa: E402
from benchlib.log import log  # noqa: E402
from benchlib.markdown import merged_commands  # noqa: E402
from benchlib.processes import COMMANDS  # noqa: E402
from benchlib.section import Section, publish  # noqa: E402
from benchlib.stats import median_of  # noqa: E402

THREADS = (1, 2)


def sources(length, count, vocab):
    """`count` random sources of `length` ids (ids 4.. of the vocabulary, then </s> = 3), seeded by length."""
    path = os.path.join(paths.CACHE, "long-input", "random-%dx%d.ids" % (count, length))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    r = random.Random(length)
    with open(path, "w") as f:
        for _ in range(count):
            f.write(" ".join(str(r.randrange(4, vocab)) for _ in range(length - 1)) + " 3\n")
    return path


def measure(files, builds, args, vocab):
    """{dtype: {length: {threads: {build: dict(encoder_ms, ms)}}}}: medians over the rounds."""
    results = {}
    for dtype, model in files.items():
        results[dtype] = {}
        for length in args.lengths:
            ids = sources(length, args.sources, vocab)
            results[dtype][length] = {}
            for threads in THREADS:
                def run(build):
                    with cpu_lock("long input %s %d t%d %s" % (dtype, length, threads, build)):
                        cmd = edgemt_bench.command(model, ids, fixed=True, threads=threads, length=args.output,
                                                   binary=builds[build])
                        j = edgemt_bench.run(cmd)
                    return dict(encoder_ms=j["encoder_ms_per_sentence"], ms=j["median_ms_per_sentence"],
                                other_load=j["other_load"])
                runs = alternate(builds, args.rounds, run)
                results[dtype][length][threads] = {
                    b: dict(encoder_ms=median_of(rs, "encoder_ms"), ms=median_of(rs, "ms"))
                    for b, rs in runs.items()}
                log("%s %d ids t%d: %s" % (dtype, length, threads, results[dtype][length][threads]))
    return results


def rows(results, builds):
    out = []
    for dtype, by_length in results.items():
        for length, by_threads in by_length.items():
            for threads, r in by_threads.items():
                row = [dtype, length, threads]
                for b in builds:
                    row += ["%.2f" % r[b]["encoder_ms"], "%.2f" % r[b]["ms"]]
                if len(builds) == 2:
                    base, this = list(builds)
                    row += ["%.2fx" % (r[base]["encoder_ms"] / r[this]["encoder_ms"]),
                            "%.2fx" % (r[base]["ms"] / r[this]["ms"])]
                out.append(row)
    return out


def section(results, builds, meta, args):
    s = Section("long-input", "Long sources (tests/bench/long_input_bench.py)",
                machine.run_header(meta, "tests/bench/long_input_bench.py"))
    who = " and ".join("`%s`" % b for b in builds)
    s.text(machine.measured_when(meta) + " The OPUS-MT shape (random weights), batch 1, %d random sources of each "
           "length, exactly %d output ids each; edgemt-bench of %s, %d rounds (the builds alternating); medians. "
           "Encoder: ms a sentence; whole: ms a sentence, its %d decoder steps included. Nothing else of ours ran "
           "meanwhile." % (args.sources, args.output, who, args.rounds, args.output))
    columns = ["file", "source ids", "threads"]
    for b in builds:
        columns += ["%s encoder ms" % b, "%s whole ms" % b]
    if len(builds) == 2:
        columns += ["encoder %s / %s" % tuple(builds), "whole %s / %s" % tuple(builds)]
    s.table(columns, rows(results, builds))
    return s.code(merged_commands(meta["commands"], merge_all=True), "every command")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lengths", default="24,48,100,200,400", help="source lengths in ids, </s> included")
    p.add_argument("--sources", type=int, default=8, help="sources of each length")
    p.add_argument("--output", type=int, default=20, help="output ids of each source")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--baseline-bin", help="another build's edgemt-bench, alternated with this tree's")
    p.add_argument("--baseline-name", default="baseline", help="what the tables call it (e.g. its commit)")
    p.add_argument("--json", default=os.path.join(paths.CACHE, "long-input.json"))
    p.add_argument("--md")
    args = p.parse_args()
    args.lengths = [int(n) for n in args.lengths.split(",") if n]
    paths.require(paths.BENCH)
    chosen = models.prepare_models(paths.CACHE, ["opus"])["opus"]
    int4, _ = models.int4_file("opus", chosen["checkpoint"], 256, models.converter_stamp())
    files = {"int8": chosen["files"]["int8"], "int4": int4}
    vocab = models.model_config(chosen)["src_vocab_size"]
    builds = {args.baseline_name: args.baseline_bin} if args.baseline_bin else {}
    git = machine.git_info()
    builds[git["short"] + ("+changes" if git["dirty"] else "")] = paths.BENCH
    meta = machine.start_meta(rounds=args.rounds, lengths=args.lengths, sources=args.sources, output=args.output,
                              builds={b: paths.rel(p) for b, p in builds.items()})
    results = measure(files, builds, args, vocab)
    machine.finish_meta(meta, COMMANDS)
    publish(section(results, builds, meta, args), dict(meta=meta, results=results), args.json, args.md)
    log("wrote %s in %.1f min" % (paths.rel(args.json), meta["duration_s"] / 60))


if __name__ == "__main__":
    main()
