#!/usr/bin/python3
"""Measures vocabulary shortlists (docs/shortlist.md) and beam search against greedy, EdgeMT beside CTranslate2.

    tests/bench/shortlist_bench.py --md build/bench-cache/shortlist.md
    tests/bench/shortlist_bench.py --models opus --rounds 1     # a quick look
    tests/bench/shortlist_bench.py --render build/bench-cache/shortlist.json --md FILE   # re-shown, not re-run
    tests/bench/shortlist_bench.py --cli --md build/bench-cache/shortlist-cli.md    # the command lines instead

Models: the trained Multi30k (int8 example file; its shortlist learned from the train split with the
converter's defaults, 50 candidates per source id and 100 frequent ids; the first 100 dev sentences,
normal stopping), and the random `base` and `opus` presets of ../shared/bench/make_random_checkpoint.py
(int8, and int4 for opus; 30 random sources of 10-30 ids, exactly 20 output ids each). A random model has
no corpus to learn from, so its shortlist is synthetic: 50 random target ids per source id and the 100
lowest ordinary ids as the frequent ones, the size a learned one has (a sentence gets about its distinct
ids x 50 + 100 ids); speed depends on that size, not on which ids they are.

Each configuration is one process that loads the model and times translating all sources (batch 1, API
against API as tests/bench/peer_bench.py): EdgeMT (edgemt.Translator.translate_ids, use_shortlist on/off)
and CTranslate2 4.8.1 (translate_batch, use_vmap on/off with a vmap.txt of the same shortlist), greedy and
beam 4 (length penalty 1), at 1 and 2 threads; each round runs every configuration once (reversed every
other round, each process under flock(/tmp/edgemt-cpu.lock)); figures are medians over rounds, and each
side's ratio uses its better thread count. Prints a Markdown section and writes JSON (--json).

--cli: command line against command line, as a user runs them, each a whole process (loading the model
included) timed from outside: edgemt-translate --input-ids --batch-size 1 (--no-shortlist for int8) against
ct2-translator --batch_size 1 --compute_type int8 (--use_vmap for int8+vmap) on the same sources (ids,
and their pieces), the same lengths and options; int8 only (CTranslate2 has no int4).
Uses build/bin and build/python (it builds nothing).
"""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ctranslate2 as ct2, machine, models, paths  # noqa: E402
from benchlib.alternation import alternate  # noqa: E402
from benchlib.load import cpu_lock  # noqa: E402
from benchlib.log import log  # noqa: E402
from benchlib.processes import COMMANDS, run_child  # noqa: E402
from benchlib.section import Section, publish  # noqa: E402
from benchlib.stats import median  # noqa: E402

sys.path.insert(0, os.path.join(paths.REPO, "converter"))
from edgemt_convert.format import model_ir as ir  # noqa: E402
from edgemt_convert.format.reader import read  # noqa: E402
from edgemt_convert.format.writer import serialize  # noqa: E402

PER_SOURCE, FREQUENT = 50, 100        # the synthetic shortlists' sizes (the converter's defaults)
RANDOM_SOURCES, OUTPUT_IDS = 30, 20
THREADS = (1, 2)
BEAMS = (1, 4)

EDGEMT_API = """
import sys, time
sys.path.insert(0, sys.argv[1])
import edgemt
model, ids_path, threads, beam, fixed, shortlist = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), \\
    sys.argv[6] == "1", sys.argv[7] == "1"
sources = [[int(x) for x in line.split()][:-1] for line in open(ids_path)]  # translate_ids adds </s>
translator = edgemt.Translator(model, threads=threads, max_batch_size=1, max_beam_size=beam)
options = dict(min_length=%d, max_length=%d) if fixed else {}
options.update(beam_size=beam, length_penalty=1.0, use_shortlist=shortlist)
translator.translate_ids(sources[:1], **options)
start = time.perf_counter()
outputs = translator.translate_ids(sources, **options)
print(time.perf_counter() - start, sum(len(o) for o in outputs))
""" % (OUTPUT_IDS, OUTPUT_IDS)

CT2_API = """
import sys, time
import ctranslate2
model, tokens_path, threads, beam, fixed, vmap = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \\
    sys.argv[5] == "1", sys.argv[6] == "1"
sources = [line.split() for line in open(tokens_path, encoding="utf-8")]
translator = ctranslate2.Translator(model, device="cpu", compute_type="int8", intra_threads=threads, inter_threads=1)
options = dict(min_decoding_length=%d, max_decoding_length=%d) if fixed else {}
options.update(beam_size=beam, length_penalty=1.0, use_vmap=vmap, max_batch_size=1)
translator.translate_batch(sources[:1], **options)
start = time.perf_counter()
results = translator.translate_batch(sources, **options)
print(time.perf_counter() - start, sum(len(r.hypotheses[0]) for r in results))
""" % (OUTPUT_IDS, OUTPUT_IDS)


def synthetic_shortlist(source_size, target_size, seed=29):
    """Candidates per source id (PER_SOURCE random ordinary ids) and the FREQUENT lowest ordinary ids."""
    rng = random.Random(seed)
    candidates = [sorted(set(rng.randrange(4, target_size) for _ in range(PER_SOURCE))) for _ in range(source_size)]
    frequent = list(range(4, 4 + FREQUENT))
    return frequent, candidates


def with_shortlist(path, out, frequent, candidates, description):
    """The EdgeMT file at `path` given a shortlist (written once)."""
    if not os.path.exists(out):
        import numpy as np
        model = read(path)
        offsets = np.zeros(len(candidates) + 1, dtype=np.uint32)
        offsets[1:] = np.cumsum([len(c) for c in candidates])
        model.set_shortlist(ir.Shortlist(frequent=np.asarray(frequent, dtype=np.int32), offsets=offsets,
                                         candidates=np.asarray([i for c in candidates for i in c], dtype=np.int32),
                                         description=description))
        with open(out, "wb") as f:
            f.write(serialize(model))
    return out


def vmap_directory(ct2_dir, frequent, candidates, vocab):
    """A copy of CTranslate2's model directory (links) with the shortlist as its vmap.txt."""
    out = ct2_dir + ".vmap"
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(ct2_dir):
        if not os.path.lexists(os.path.join(out, name)):
            os.symlink(os.path.join(ct2_dir, name), os.path.join(out, name))
    with open(os.path.join(out, "vmap.txt"), "w", encoding="utf-8") as f:
        f.write("\t" + " ".join(vocab[i] for i in frequent) + "\n")
        for s, targets in enumerate(candidates):
            if targets and s >= 4:
                f.write(vocab[s] + "\t" + " ".join(vocab[i] for i in targets) + "\n")
    return out


def read_vmap_lists(path, vocab):
    """(frequent, candidates) of the converter's exported vmap, in ids."""
    index = {p: i for i, p in enumerate(vocab)}
    frequent, candidates = [], [[] for _ in vocab]
    with open(path, encoding="utf-8") as f:
        for line in f:
            source, _, targets = line.rstrip("\n").partition("\t")
            ids = sorted(index[t] for t in targets.split() if t in index)
            if source == "":
                frequent = ids
            elif source in index:
                candidates[index[source]] = ids
    return frequent, candidates


def prepare(name, model, env, work):
    """Files, sources and CTranslate2 directories of one model."""
    ct2_dir = ct2.export_model(model["checkpoint"], os.path.join(work, name + ".ct2-int8"), env) if env else None
    vocab = ct2.vocabulary(ct2_dir) if ct2_dir else None
    files = {"int8": model["files"]["int8"]}
    if name == "multi30k":
        listed = os.path.join(work, "multi30k.shortlist.int8.edgemt")
        vmap = os.path.join(work, "multi30k.vmap.txt")
        if not os.path.exists(listed):
            run_child([paths.PYTHON, models.converter_cli(), files["int8"], "--out", listed, "--quiet",
                       "--shortlist-corpus", paths.TRAIN_EN, paths.TRAIN_EN[:-3] + ".de", "--export-vmap", vmap])
        files["int8+sl"] = listed
        ids = ct2.inputs_trained()[:100]
        lists = read_vmap_lists(vmap, vocab) if vocab else None
    else:
        config = models.model_config(model)
        frequent, candidates = synthetic_shortlist(config["src_vocab_size"], config["tgt_vocab_size"])
        what = "synthetic: %d random ids per source id, %d frequent" % (PER_SOURCE, FREQUENT)
        files["int8+sl"] = with_shortlist(files["int8"], os.path.join(work, name + ".shortlist.int8.edgemt"),
                                          frequent, candidates, what)
        if name == "opus":
            int4, _ = models.int4_file(name, model["checkpoint"], 256, models.converter_stamp())
            files["int4"] = int4
            files["int4+sl"] = with_shortlist(int4, os.path.join(work, name + ".shortlist.int4.edgemt"), frequent,
                                              candidates, what)
        r = random.Random(17)
        ids = [[r.randrange(4, config["src_vocab_size"]) for _ in range(r.randrange(10, 31))] + [3]
               for _ in range(RANDOM_SOURCES)]
        lists = (frequent, candidates)
    ids_path, tokens_path = ct2.write_inputs(ids, vocab, work, name)
    vmap_dir = vmap_directory(ct2_dir, lists[0], lists[1], vocab) if ct2_dir else None
    return dict(name=name, files=files, ids=ids_path, sources=len(ids), tokens=tokens_path, ct2=ct2_dir,
                ct2_vmap=vmap_dir, fixed=name != "multi30k", env=env)


def configurations(m, cli=False):
    configs = [("edgemt", f, b, t) for f in m["files"] for b in BEAMS for t in THREADS
               if not (f.startswith("int4") and (b > 1 or cli))]
    if m["ct2"]:
        configs += [("ct2", v, b, t) for v in ("int8", "int8+vmap") for b in BEAMS for t in THREADS]
    return configs


def run_cli(m, c, work):
    """One command line, a whole process: (wall seconds, output tokens)."""
    runtime, variant, beam, threads = c
    out = os.path.join(work, "%s.cli.%s.%s.beam%d.t%d.out" % (m["name"], runtime, variant, beam, threads))
    if runtime == "edgemt":
        cmd = [os.path.join(paths.BUILD, "bin", "edgemt-translate"), "--model", m["files"][variant], "--input-ids",
               "--output-ids", "--batch-size", "1", "--beam-size", str(beam), "--length-penalty", "1",
               "--threads", str(threads)]
        cmd += [] if variant.endswith("+sl") else ["--no-shortlist"]
        cmd += ["--min-length", str(OUTPUT_IDS), "--max-length", str(OUTPUT_IDS)] if m["fixed"] else []
        stdin, env = m["ids"], None
    else:
        vmap = variant.endswith("+vmap")
        cmd = [os.path.join(ct2.CT2, "bin", "ct2-translator"), "--model", m["ct2_vmap"] if vmap else m["ct2"],
               "--src", m["tokens"], "--batch_size", "1", "--beam_size", str(beam), "--length_penalty", "1",
               "--intra_threads", str(threads), "--inter_threads", "1", "--compute_type", "int8"]
        cmd += ["--use_vmap"] if vmap else []
        if m["fixed"]:
            cmd += ["--min_decoding_length", str(OUTPUT_IDS), "--max_decoding_length", str(OUTPUT_IDS)]
        stdin, env = None, m["env"]
    with cpu_lock("%s %s cli %s beam %d t%d" % (m["name"], runtime, variant, beam, threads)):
        r = run_child(cmd, stdin=stdin, stdout_path=out, env=env, timed=True)
    with open(out, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if len(lines) != m["sources"]:
        raise SystemExit("%s: %d output lines for %s" % (" ".join(cmd), len(lines), m["ids"]))
    return dict(seconds=r["wall_s"], tokens=sum(len(line.split()) for line in lines))


def run_config(m, c):
    runtime, variant, beam, threads = c
    fixed = "1" if m["fixed"] else "0"
    if runtime == "edgemt":
        path = m["files"][variant]
        cmd = [paths.PYTHON, "-c", EDGEMT_API, os.path.join(paths.BUILD, "python"), path, m["ids"], str(threads),
               str(beam), fixed, "1" if variant.endswith("+sl") else "0"]
        env = None
    else:
        model = m["ct2_vmap"] if variant.endswith("+vmap") else m["ct2"]
        cmd = [paths.PYTHON, "-c", CT2_API, model, m["tokens"], str(threads), str(beam), fixed,
               "1" if variant.endswith("+vmap") else "0"]
        env = m["env"]
    with cpu_lock("%s %s %s beam %d t%d" % (m["name"], runtime, variant, beam, threads)):
        r = run_child(cmd, env=env, timed=True)
    seconds, tokens = r["out"].split()[-2:]
    return dict(seconds=float(seconds), tokens=int(tokens))


def result_key(configuration):
    """The JSON's name of a configuration (runtime, variant, beam, threads): "edgemt int8+sl beam4 t2"."""
    return "%s %s beam%d t%d" % configuration


def parse_result_key(key):
    runtime, variant, beam, threads = key.split()
    return runtime, variant, int(beam[len("beam"):]), int(threads[len("t"):])


def at_threads(results, runtime, variant, beam, threads):
    """Median seconds at `threads` threads, or None."""
    runs = results.get((runtime, variant, beam, threads))
    return median([x["seconds"] for x in runs]) if runs else None


def best(results, runtime, variant, beam):
    """(median seconds at the better thread count, that thread count)."""
    options = [(at_threads(results, runtime, variant, beam, t), t) for t in THREADS
               if (runtime, variant, beam, t) in results]
    return min(options) if options else (None, None)


def section(all_results, meta):
    cli = meta.get("cli", False)
    run = machine.run_header(meta, "tests/bench/shortlist_bench.py")
    if cli:
        s = Section("shortlist-cli", "Vocabulary shortlists and beam search, command line against command line "
                    "(tests/bench/shortlist_bench.py --cli)", run)
        s.text("Whole processes, loading included: edgemt-translate --input-ids --batch-size 1 against "
               "ct2-translator --batch_size 1 --compute_type int8, the same sources and options (the script's "
               "docstring); the figures are wall times of the processes.")
    else:
        s = Section("shortlist", "Vocabulary shortlists and beam search (tests/bench/shortlist_bench.py)", run)
    s.text(machine.measured_when(meta) + " Batch 1; each figure the median over %d rounds at the runtime's better "
           "thread count of 1 and 2 (in brackets). EdgeMT and CTranslate2 %s translate the same ids; CTranslate2 "
           "with `use_vmap` gets the same shortlist as a vmap.txt. Multi30k: the first 100 dev sentences, normal "
           "stopping, its shortlist learned from the train split (converter defaults: 50 per source id, 100 "
           "frequent); base and opus: %d random sources, %d output ids each, synthetic shortlists of the same "
           "sizes (the script's docstring)." % (meta["rounds"], ct2.VERSION, RANDOM_SOURCES, OUTPUT_IDS))
    rows, ratio_rows, one_thread_rows = [], [], []
    for name, results in all_results.items():
        def ms(runtime, variant, beam):
            seconds, threads = best(results, runtime, variant, beam)
            return (None, None) if seconds is None else (1000.0 * seconds, threads)

        def cell(value):
            return "-" if value[0] is None else "%.1f (%d)" % value
        for variant in [v for v in ("int8", "int8+sl", "int4", "int4+sl") if ("edgemt", v, 1, 1) in results]:
            rows.append([name, "EdgeMT " + variant, cell(ms("edgemt", variant, 1)), cell(ms("edgemt", variant, 4))])
        for variant in ("int8", "int8+vmap"):
            if ("ct2", variant, 1, 1) in results:
                rows.append([name, "CTranslate2 " + variant, cell(ms("ct2", variant, 1)), cell(ms("ct2", variant, 4))])
        g, g_sl = ms("edgemt", "int8", 1)[0], ms("edgemt", "int8+sl", 1)[0]
        b4, b4_sl = ms("edgemt", "int8", 4)[0], ms("edgemt", "int8+sl", 4)[0]
        c4, c4_vmap = ms("ct2", "int8", 4)[0], ms("ct2", "int8+vmap", 4)[0]
        int4, int4_sl = ms("edgemt", "int4", 1)[0], ms("edgemt", "int4+sl", 1)[0]

        def ratio(a, b):
            return "-" if a is None or b is None else "%.2fx" % (a / b)
        ratio_rows.append([name, ratio(g, g_sl), ratio(g, int4), ratio(g, int4_sl), ratio(b4, b4_sl), ratio(b4, g),
                           ratio(b4_sl, g_sl), ratio(c4, b4), ratio(c4_vmap, b4_sl)])

        def one(variant, beam):
            return at_threads(results, "edgemt", variant, beam, 1)
        one_thread_rows.append([name, ratio(one("int8", 1), one("int8+sl", 1)), ratio(one("int8", 1), one("int4", 1)),
                                ratio(one("int8", 1), one("int4+sl", 1)), ratio(one("int8", 4), one("int8+sl", 4)),
                                ratio(one("int8", 4), one("int8", 1)), ratio(one("int8+sl", 4), one("int8+sl", 1))])
    s.table(["model", "runtime, file", "greedy ms", "beam 4 ms"], rows,
            "every runtime's and file's ms at its better thread count")
    s.table(["model", "shortlist speed-up, greedy (goal opus 1.8x)", "int4 vs int8, greedy (goal opus 1.8x)",
             "int4 + shortlist vs int8 (goal opus 3.5x)",
             "shortlist speed-up, beam 4 (goal opus 1.8x)", "beam 4 / greedy", "beam 4 / greedy, shortlist (goal 1.6x)",
             "CTranslate2 / EdgeMT, beam 4", "CTranslate2 vmap / EdgeMT shortlist, beam 4 (goal 3x)"], ratio_rows)
    at_one = "EdgeMT's ratios at 1 thread"
    s.text("The same EdgeMT ratios with both sides at 1 thread, the setting of issue 29's own figures (where the "
           "int8 steps of the OPUS-MT shape read their weights at one core's bandwidth):", at_one)
    s.table(["model", "shortlist speed-up, greedy", "int4 vs int8, greedy", "int4 + shortlist vs int8",
             "shortlist speed-up, beam 4", "beam 4 / greedy", "beam 4 / greedy, shortlist"], one_thread_rows, at_one)
    return s


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="multi30k,base,opus")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--cli", action="store_true", help="the command lines, whole processes, instead of the APIs")
    p.add_argument("--json", default=None, help="default: build/bench-cache/shortlist.json (shortlist-cli.json)")
    p.add_argument("--md", default=None)
    p.add_argument("--render", metavar="JSON", help="no measuring: the section again from an earlier run's JSON "
                   "(after a change to how it is shown)")
    args = p.parse_args()
    if args.json is None:
        args.json = os.path.join(paths.CACHE, "shortlist-cli.json" if args.cli else "shortlist.json")
    if args.render:
        with open(args.render) as f:
            data = json.load(f)
        all_results = {name: {parse_result_key(k): v for k, v in runs.items()}
                       for name, runs in data["results"].items()}
        publish(section(all_results, data["meta"]), dict(meta=data["meta"], results=data["results"]), args.json,
                args.md)
        return
    names = args.models.split(",")
    work = os.path.join(paths.CACHE, "shortlist")
    os.makedirs(work, exist_ok=True)
    env = ct2.environment(work)
    if env is None:
        log("CTranslate2 is not in ../shared/bench/ct2: EdgeMT only")
    meta = machine.start_meta(rounds=args.rounds, models=names, peer=env is not None, cli=args.cli)
    prepared = models.prepare_models(paths.CACHE, names)
    all_results = {}
    for name in names:
        m = prepare(name, prepared[name], env, work)
        measure = (lambda c, m=m: run_cli(m, c, work)) if args.cli else (lambda c, m=m: run_config(m, c))
        runs = alternate(configurations(m, args.cli), args.rounds, measure, reverse_odd=True)
        all_results[name] = runs
        log("%s: done" % name)
    machine.finish_meta(meta, COMMANDS)
    results = {n: {result_key(c): v for c, v in r.items()} for n, r in all_results.items()}
    publish(section(all_results, meta), dict(meta=meta, results=results), args.json, args.md)


if __name__ == "__main__":
    main()
