#!/usr/bin/python3
"""Translating a file, EdgeMT's CLI against CTranslate2's, measured side by side in one run.

    tests/bench/file_bench.py                      # multi30k, tiny, base; 3 rounds
    tests/bench/file_bench.py --models multi30k --rounds 2 --md /tmp/file.md

Whole processes, int8, the same checkpoints and the same token ids: `edgemt-translate --input-ids
--output-ids --batch-size 32` against `ct2-translator --batch_size 32 --beam_size 1 --compute_type int8`
(../shared/bench/ct2, CTranslate2 4.8.1), each at 1 and 2 threads (CTranslate2: intra_threads; its
--read_batch_size left at its default, the batch size, and also at 16 x 32 = EdgeMT's read-ahead),
alternating the processes of the two runtimes round by round (each under flock(/tmp/edgemt-cpu.lock)).
API against API: edgemt.Translator(threads=T, max_batch_size=32).translate_ids(all sources) against
ctranslate2.Translator(intra_threads=T).translate_batch(all sources, max_batch_size=32), a process each,
timing the translating call only. Also EdgeMT's CLI at --batch-size 1, 8, 16 and 64 on the same input: batch 32 against batch 1, and the
figures the CLI's default batch size is chosen from (speed and peak memory).

- multi30k: the trained model, the 500 dev sentences x4 (2,000 lines), normal stopping;
- tiny, base: make_random_checkpoint.py presets, 200 random sources of 10-40 ids, exactly 32 output ids
  (EdgeMT --min-length/--max-length 32, CTranslate2 --min/max_decoding_length 32).

Token ids map 1:1 to CTranslate2's vocabulary lines (../shared/bench/ct2/README.txt): the CTranslate2
input is the pieces of the same ids, </s> included. Prints a Markdown section ("## Translating files"),
writes JSON (--json) and, with --md FILE, the Markdown to FILE. Without the peer it says so and prints
no ratio. Uses build/bin (it builds nothing).
"""


import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ctranslate2 as ct2, machine, models, outputs, paths  # noqa: E402
from benchlib.alternation import alternate  # noqa: E402
from benchlib.load import cpu_lock  # noqa: E402
from benchlib.log import log  # noqa: E402
from benchlib.processes import run_child  # noqa: E402
from benchlib.section import Section, publish  # noqa: E402
from benchlib.stats import fastest, median  # noqa: E402

BATCH = 32
EDGEMT_BATCHES = (1, 8, 16, 32, 64)  # the CLI's default batch size is chosen from these
READ_AHEAD = 16 * BATCH
GOAL_VS_PEER = 1.5      # EdgeMT at least 1.5x CTranslate2's speed, batch 32
GOAL_VS_BATCH1 = 2.0    # the trained model: batch 32 at least 2x batch 1 (tokens/s)
RUNTIME_NAMES = {"edgemt": "EdgeMT CLI", "ct2": "CTranslate2 CLI", "edgemt-api": "EdgeMT Python API",
                 "ct2-api": "CTranslate2 Python API"}


def run_edgemt(model, ids_path, out, threads, batch, fixed):
    cmd = [paths.TRANSLATE, "--model", model, "--input-ids", "--output-ids", "--threads", str(threads),
           "--batch-size", str(batch)]
    if fixed:
        cmd += ["--min-length", "32", "--max-length", "32"]
    with cpu_lock("edgemt %s t%d b%d" % (os.path.basename(model), threads, batch)):
        return run_child(cmd, stdin=ids_path, stdout_path=out, timed=True)


def run_ct2(model_dir, tokens_path, out, threads, read_batch, fixed, env):
    cmd = [os.path.join(ct2.CT2, "bin", "ct2-translator"), "--model", model_dir, "--src", tokens_path, "--out", out,
           "--batch_size", str(BATCH), "--beam_size", "1", "--compute_type", "int8", "--intra_threads",
           str(threads), "--inter_threads", "1", "--read_batch_size", str(read_batch)]
    if fixed:
        cmd += ["--min_decoding_length", "32", "--max_decoding_length", "32"]
    with cpu_lock("ct2 %s t%d r%d" % (os.path.basename(model_dir), threads, read_batch)):
        return run_child(cmd, env=env, env_note="LD_LIBRARY_PATH=<ct2 lib>", timed=True)


def configurations(peer):
    """(kind, threads, batch or CTranslate2's read-ahead): EdgeMT's CLI at every batch size, both APIs at 32."""
    configs = [("edgemt", t, b) for t in (1, 2) for b in EDGEMT_BATCHES]
    configs += [("edgemt-api", t, BATCH) for t in (1, 2)]
    if peer:
        configs += [("ct2", t, r) for t in (1, 2) for r in (0, READ_AHEAD)]
        configs += [("ct2-api", t, BATCH) for t in (1, 2)]
    return configs


def run_config(c, m, work):
    kind, threads, x = c
    out = os.path.join(work, "%s.%s.t%d.%d.out" % (m["name"], kind, threads, x))
    if kind == "edgemt":
        r = run_edgemt(m["model"], m["ids"], out, threads, x, m["fixed"])
    elif kind == "ct2":
        r = run_ct2(m["ct2_dir"], m["tokens"], out, threads, x, m["fixed"], m["env"])
    elif kind == "edgemt-api":
        r = ct2.run_api(kind, m["model"], m["ids"], out, threads, m["fixed"], None, BATCH)
    else:
        r = ct2.run_api(kind, m["ct2_dir"], m["tokens"], out, threads, m["fixed"], m["env"], BATCH)
    return dict(wall_s=r["wall_s"], maxrss_kb=r["maxrss_kb"], other_load=r["other_load"], out=out)


def summary(c, rs, m, reference, tokens):
    kind, threads, x = c
    wall = median(r["wall_s"] for r in rs)
    out = rs[-1]["out"]
    if kind.startswith("ct2"):
        out = ct2.to_ids(out, ct2.vocabulary(m["ct2_dir"]), out + ".ids")
        tokens = outputs.count_tokens(out)
    return dict(kind=kind, threads=threads, batch=BATCH if kind == "ct2" else x,
                read_batch=x if kind == "ct2" else None, wall_s=round(wall, 3),
                walls=[round(r["wall_s"], 3) for r in rs], output_tokens=tokens,
                tokens_per_s=round(tokens / wall, 1), peak_rss_mb=round(max(r["maxrss_kb"] for r in rs) / 1024, 1),
                other_load=max(r["other_load"] for r in rs), same_as_edgemt_b32=list(outputs.same_lines(out, reference)))


def measure(m, rounds, work):
    """Every configuration in each round, in reverse order every other round; medians over the rounds."""
    runs = alternate(configurations(m["env"] is not None), rounds, lambda c: run_config(c, m, work), reverse_odd=True,
                     after_round=lambda i: log("%s round %d done" % (m["name"], i + 1)))
    reference = runs[("edgemt", 1, BATCH)][-1]["out"]
    tokens = outputs.count_tokens(reference)
    result = dict(model=m["name"], sentences=sum(1 for _ in open(m["ids"])), configs={})
    for c, rs in runs.items():
        kind, threads, x = c
        key = "%s_t%d_%s%d" % (kind, threads, "r" if kind == "ct2" else "b", x)
        result["configs"][key] = summary(c, rs, m, reference, tokens)
    return result


def best(result, kind, batch=None):
    return fastest(v for v in result["configs"].values() if v["kind"] == kind and (batch is None or v["batch"] == batch))


def config_rows(results):
    rows = []
    for r in results:
        for v in r["configs"].values():
            read = {"edgemt": "%d lines" % (16 * v["batch"]), "ct2": "%d lines" % v["read_batch"] if v["read_batch"]
                    else "32 lines (default)"}.get(v["kind"], "the whole file (one call)")
            rows.append([r["model"], RUNTIME_NAMES[v["kind"]], v["threads"], v["batch"], read, "%.2f" % v["wall_s"],
                         "%.0f" % v["tokens_per_s"], "%.1f" % v["peak_rss_mb"], "%d/%d" % tuple(v["same_as_edgemt_b32"])])
    return rows


def met(ratio, goal):
    return "met" if ratio >= goal else "missed"


def summary_row(r):
    e, c, b1 = best(r, "edgemt", BATCH), best(r, "ct2"), r["configs"]["edgemt_t1_b1"]
    e1, best_b1 = r["configs"]["edgemt_t1_b%d" % BATCH], best(r, "edgemt", 1)
    ratio = "%.2fx (%s)" % (c["wall_s"] / e["wall_s"], met(c["wall_s"] / e["wall_s"], GOAL_VS_PEER)) if c \
        else "no peer: not measured"
    peer = "%.2f s (%d thread%s, read-ahead %s)" % (c["wall_s"], c["threads"], "s" if c["threads"] > 1 else "",
                                                   c["read_batch"] or "default") if c else "-"
    speedup, best_speedup = e1["tokens_per_s"] / b1["tokens_per_s"], e["tokens_per_s"] / best_b1["tokens_per_s"]

    def verdict(x):
        return " (%s)" % met(x, GOAL_VS_BATCH1) if r["model"] == "multi30k" else ""
    ea, ca = best(r, "edgemt-api"), best(r, "ct2-api")
    api = "%.2f s (%d) / %.2f s (%d) = %.2fx (%s)" % (
        ea["wall_s"], ea["threads"], ca["wall_s"], ca["threads"], ca["wall_s"] / ea["wall_s"],
        met(ca["wall_s"] / ea["wall_s"], GOAL_VS_PEER)) if ca else "no peer: not measured"
    return [r["model"], "%.2f s (%d thread%s)" % (e["wall_s"], e["threads"], "s" if e["threads"] > 1 else ""), peer,
            ratio, "%.2fx at 1 thread%s; %.2fx at the better thread count of each (batch 1: %d)%s" % (
                speedup, verdict(speedup), best_speedup, best_b1["threads"], verdict(best_speedup)), api]


def section(results, meta):
    s = Section("file", "Translating files (tests/bench/file_bench.py)",
                machine.run_header(meta, "tests/bench/file_bench.py", date_is="start"))
    s.text("One run at %s (commit %s), %s, %d rounds, %.0f s. %s. Int8, ids in and out, the same inputs for both "
           "runtimes: CLIs timed as whole processes, Python APIs as the one translating call after loading (a "
           "process each); each figure is the median of its rounds, the processes of both runtimes alternating. "
           "While it ran, other processes used at most %.2f of a core in any measured process (`other load`); "
           "nothing else was started by hand." % (
               meta["date"], meta["git"]["short"], meta["cpu"], meta["rounds"], meta["seconds"], meta["peer"],
               meta["max_other_load"]))
    s.table(["model", "runtime", "threads", "batch", "read-ahead", "s", "tokens/s", "peak RSS MB",
             "lines = EdgeMT b32"], config_rows(results), "every configuration (runtime, threads, batch, read-ahead)")
    s.table(["model", "EdgeMT best (batch 32)", "CTranslate2 best",
             "EdgeMT / CTranslate2 (goal %.1fx)" % GOAL_VS_PEER,
             "EdgeMT batch 32 / batch 1, tokens/s (goal %.1fx, trained model)" % GOAL_VS_BATCH1,
             "API: EdgeMT / CTranslate2 (goal %.1fx)" % GOAL_VS_PEER], [summary_row(r) for r in results])
    return s.text("CTranslate2's ISA here: %s." % meta["isa"])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="multi30k,tiny,base")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json", default=os.path.join(paths.CACHE, "file_bench.json"))
    p.add_argument("--md", default=None)
    args = p.parse_args()
    names = args.models.split(",")
    work = os.path.join(paths.CACHE, "file_bench")
    os.makedirs(work, exist_ok=True)
    env = ct2.environment(work)
    if env is None:
        log("CTranslate2 is missing (%s): measuring EdgeMT alone, printing no ratio" % ct2.CT2)
    chosen = models.prepare_models(paths.CACHE, names)
    meta = machine.start_meta(rounds=args.rounds, isa="not measured (no peer)")
    results = []
    for name in names:
        m = ct2.prepare(name, chosen[name], env, work)
        if m["tokens"] and meta["isa"].startswith("not"):
            meta["isa"] = ct2.detect_isa(m["ct2_dir"], m["tokens"], env, work)
        results.append(measure(m, args.rounds, work))
    meta.update(seconds=time.time() - meta["started"],
                max_other_load=max((v["other_load"] for r in results for v in r["configs"].values()), default=0),
                cpu="%s, %d cores, %s" % (meta["machine"]["cpu_model"], meta["machine"]["cores"],
                                          " ".join(meta["machine"]["simd_flags"])),
                peer="CTranslate2 %s from ../shared/bench/ct2" % ct2.VERSION if env else "CTranslate2 missing: no ratio")
    machine.finish_meta(meta, [])
    publish(section(results, meta), dict(meta=meta, results=results), args.json, args.md)


if __name__ == "__main__":
    main()
