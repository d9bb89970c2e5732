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
import datetime
import json
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_benchmarks as rb  # noqa: E402
from packed_cache_bench import ROUNDS, cpu_lock  # noqa: E402

REPO = rb.REPO
TRANSLATE = os.path.join(REPO, "build", "bin", "edgemt-translate")
CACHE = os.path.join(REPO, "build", "bench-cache")
CT2 = os.path.join(rb.SHARED, "bench", "ct2")
BATCH = 32
EDGEMT_BATCHES = (1, 8, 16, 32, 64)  # the CLI's default batch size is chosen from these
READ_AHEAD = 16 * BATCH
GOAL_VS_PEER = 1.5      # EdgeMT at least 1.5x CTranslate2's speed, batch 32
GOAL_VS_BATCH1 = 2.0    # the trained model: batch 32 at least 2x batch 1 (tokens/s)


def log(message):
    print("[file_bench] " + message, file=sys.stderr, flush=True)


def ct2_environment(work):
    """The environment ct2-translator and the ctranslate2 module need, or None when the peer is missing.
    The bundle's library links (libctranslate2.so.4 -> .so.4.8.1) may arrive as small text files naming
    their target (a copy that does not keep symbolic links): then links made in `work` come first."""
    library = os.path.join(CT2, "lib", "libctranslate2.so.4.8.1")
    if not (os.path.exists(os.path.join(CT2, "bin", "ct2-translator")) and os.path.exists(library)):
        return None
    links = os.path.join(work, "ct2-lib")
    os.makedirs(links, exist_ok=True)
    for name in ("libctranslate2.so.4", "libctranslate2.so"):
        path = os.path.join(links, name)
        if not os.path.lexists(path):
            os.symlink(library, path)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = links + os.pathsep + os.path.join(CT2, "lib")
    env["PYTHONPATH"] = os.path.join(CT2, "py")
    return env


def ct2_model(checkpoint, out, env):
    if not os.path.exists(os.path.join(out, "model.bin")):
        rb.run_child([rb.PYTHON, os.path.join(CT2, "export_ct2.py"), checkpoint, out, "--quantization", "int8",
                      "--force"], env=env)
    return out


def vocabulary(ct2_dir):
    with open(os.path.join(ct2_dir, "shared_vocabulary.json")) as f:
        return json.load(f)


def inputs_trained(work):
    """The dev sentences x4 as ids (the model's SentencePiece, </s> appended)."""
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=os.path.join(rb.MULTI30K, "spm.model"))
    with open(rb.DEV_EN, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    ids = [sp.encode(line) + [3] for line in lines] * 4
    return ids


def inputs_random(vocab_size, seed=17):
    r = random.Random(seed)
    return [[r.randrange(4, vocab_size) for _ in range(r.randrange(10, 41))] + [3] for _ in range(200)]


def write_inputs(ids, vocab, work, name):
    ids_path = os.path.join(work, name + ".ids")
    tokens_path = os.path.join(work, name + ".tok")
    with open(ids_path, "w") as f:
        f.write("".join(" ".join(map(str, s)) + "\n" for s in ids))
    with open(tokens_path, "w", encoding="utf-8") as f:
        f.write("".join(" ".join(vocab[i] for i in s) + "\n" for s in ids))
    return ids_path, tokens_path


def count_tokens(path):
    with open(path, encoding="utf-8") as f:
        return sum(len(line.split()) for line in f)


def run_edgemt(model, ids_path, out, threads, batch, fixed):
    cmd = [TRANSLATE, "--model", model, "--input-ids", "--output-ids", "--threads", str(threads),
           "--batch-size", str(batch)]
    if fixed:
        cmd += ["--min-length", "32", "--max-length", "32"]
    with cpu_lock("edgemt %s t%d b%d" % (os.path.basename(model), threads, batch)):
        r = rb.run_child(cmd, stdin=ids_path, stdout_path=out, timed=True)
    return r


def run_ct2(model_dir, tokens_path, out, threads, read_batch, fixed, env):
    cmd = [os.path.join(CT2, "bin", "ct2-translator"), "--model", model_dir, "--src", tokens_path, "--out", out,
           "--batch_size", str(BATCH), "--beam_size", "1", "--compute_type", "int8", "--intra_threads",
           str(threads), "--inter_threads", "1", "--read_batch_size", str(read_batch)]
    if fixed:
        cmd += ["--min_decoding_length", "32", "--max_decoding_length", "32"]
    with cpu_lock("ct2 %s t%d r%d" % (os.path.basename(model_dir), threads, read_batch)):
        r = rb.run_child(cmd, env=env, env_note="LD_LIBRARY_PATH=<ct2 lib>", timed=True)
    return r


# API against API: one process per measurement loads the model, then times translating the whole file in
# one call (both runtimes sort the call's sources by length into batches of at most the batch size).
EDGEMT_API = """
import sys, time
sys.path.insert(0, sys.argv[1])
import edgemt
model, ids_path, out_path, threads, fixed = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6] == "1"
batch = int(sys.argv[7])
sources = [[int(x) for x in line.split()][:-1] for line in open(ids_path)]  # translate_ids adds </s>
translator = edgemt.Translator(model, threads=threads, max_batch_size=batch)
options = dict(min_length=32, max_length=32) if fixed else {}
start = time.perf_counter()
outputs = translator.translate_ids(sources, **options)
seconds = time.perf_counter() - start
open(out_path, "w").write("".join(" ".join(map(str, ids)) + "\\n" for ids in outputs))
print(seconds)
"""

CT2_API = """
import sys, time
import ctranslate2
model, tokens_path, out_path, threads, fixed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
batch = int(sys.argv[6])
sources = [line.split() for line in open(tokens_path, encoding="utf-8")]
translator = ctranslate2.Translator(model, device="cpu", compute_type="int8", intra_threads=threads, inter_threads=1)
options = dict(min_decoding_length=32, max_decoding_length=32) if fixed else {}
start = time.perf_counter()
results = translator.translate_batch(sources, max_batch_size=batch, beam_size=1, **options)
seconds = time.perf_counter() - start
open(out_path, "w", encoding="utf-8").write("".join(" ".join(r.hypotheses[0]) + "\\n" for r in results))
print(seconds)
"""


def run_api(kind, model, inputs, out, threads, fixed, env, batch=BATCH):
    """Seconds the translating call took (model loading not included). `env`: CTranslate2's environment
    (its library path, and CT2_FORCE_CPU_ISA when an ISA is forced)."""
    if kind == "edgemt-api":
        cmd = [rb.PYTHON, "-c", EDGEMT_API, os.path.join(REPO, "build", "python"), model, inputs, out, str(threads),
               "1" if fixed else "0", str(batch)]
    else:
        cmd = [rb.PYTHON, "-c", CT2_API, model, inputs, out, str(threads), "1" if fixed else "0", str(batch)]
    with cpu_lock("%s %s t%d b%d" % (kind, os.path.basename(model), threads, batch)):
        r = rb.run_child(cmd, env=env if kind == "ct2-api" else None, timed=True)
    r["wall_s"] = float(r["out"].split()[-1])
    return r


def ct2_isa(model_dir, tokens_path, env, work):
    """The ISA CTranslate2 picks here (CT2_VERBOSE=1 logs it when the model loads)."""
    env = dict(env, CT2_VERBOSE="1")
    head = os.path.join(work, "isa.tok")
    with open(tokens_path, encoding="utf-8") as f, open(head, "w", encoding="utf-8") as g:
        g.write(f.readline())
    r = rb.run_child([os.path.join(CT2, "bin", "ct2-translator"), "--model", model_dir, "--src", head, "--out",
                      os.path.join(work, "isa.out"), "--intra_threads", "1"], env=env, record=False)
    for line in r["err"].splitlines():
        if "ISA" in line or "isa" in line:
            return line.split("]")[-1].split("ISA:")[-1].strip()
    return "not reported"


def same_lines(a, b):
    with open(a, encoding="utf-8") as f, open(b, encoding="utf-8") as g:
        x, y = f.read().splitlines(), g.read().splitlines()
    return sum(p == q for p, q in zip(x, y)), len(x)


def to_ids(ct2_out, vocab, out):
    index = {piece: i for i, piece in enumerate(vocab)}
    with open(ct2_out, encoding="utf-8") as f, open(out, "w") as g:
        for line in f:
            g.write(" ".join(str(index.get(p, 1)) for p in line.split()) + "\n")


def measure(name, model, ct2_dir, ids_path, tokens_path, fixed, rounds, env, work):
    configs = [("edgemt", t, b) for t in (1, 2) for b in EDGEMT_BATCHES]
    configs += [("edgemt-api", t, BATCH) for t in (1, 2)]
    if env is not None:
        configs += [("ct2", t, rb_) for t in (1, 2) for rb_ in (0, READ_AHEAD)]
        configs += [("ct2-api", t, BATCH) for t in (1, 2)]
    runs = {c: [] for c in configs}
    outputs = {}
    for round_ in range(rounds):
        order = configs if round_ % 2 == 0 else list(reversed(configs))
        for c in order:
            kind, threads, x = c
            out = os.path.join(work, "%s.%s.t%d.%d.out" % (name, kind, threads, x))
            if kind == "edgemt":
                r = run_edgemt(model, ids_path, out, threads, x, fixed)
            elif kind == "ct2":
                r = run_ct2(ct2_dir, tokens_path, out, threads, x, fixed, env)
            elif kind == "edgemt-api":
                r = run_api(kind, model, ids_path, out, threads, fixed, None)
            else:
                r = run_api(kind, ct2_dir, tokens_path, out, threads, fixed, env)
            runs[c].append(dict(wall_s=r["wall_s"], maxrss_kb=r["maxrss_kb"], other_load=r["other_load"]))
            outputs[c] = out
        log("%s round %d done" % (name, round_ + 1))
    result = dict(model=name, sentences=sum(1 for _ in open(ids_path)), configs={})
    edgemt_out = outputs[("edgemt", 1, BATCH)]
    out_tokens = count_tokens(edgemt_out)
    for c, rs in runs.items():
        kind, threads, x = c
        wall = statistics.median(r["wall_s"] for r in rs)
        tokens = out_tokens
        if kind.startswith("ct2"):
            ids_out = outputs[c] + ".ids"
            to_ids(outputs[c], vocabulary(ct2_dir), ids_out)
            tokens = count_tokens(ids_out)
            same, total = same_lines(ids_out, edgemt_out)
        else:
            same, total = same_lines(outputs[c], edgemt_out)
        key = "%s_t%d_%s%d" % (kind, threads, "r" if kind == "ct2" else "b", x)
        result["configs"][key] = dict(kind=kind, threads=threads, batch=BATCH if kind == "ct2" else x,
                                      read_batch=x if kind == "ct2" else None, wall_s=round(wall, 3),
                                      walls=[round(r["wall_s"], 3) for r in rs], output_tokens=tokens,
                                      tokens_per_s=round(tokens / wall, 1),
                                      peak_rss_mb=round(max(r["maxrss_kb"] for r in rs) / 1024, 1),
                                      other_load=max(r["other_load"] for r in rs),
                                      same_as_edgemt_b32=[same, total])
    return result


def best(result, kind, batch=None):
    keys = [k for k, v in result["configs"].items() if v["kind"] == kind and (batch is None or v["batch"] == batch)]
    return min((result["configs"][k] for k in keys), key=lambda v: v["wall_s"]) if keys else None


RUNTIME_NAMES = {"edgemt": "EdgeMT CLI", "ct2": "CTranslate2 CLI", "edgemt-api": "EdgeMT Python API",
                 "ct2-api": "CTranslate2 Python API"}


def markdown(results, meta):
    w = []
    w.append("## Translating files (tests/bench/file_bench.py)\n")
    w.append("One run at %s (commit %s), %s, %d rounds, %.0f s. %s. Int8, ids in and out, the same "
             "inputs for both runtimes: CLIs timed as whole processes, Python APIs as the one translating call "
             "after loading (a process each); each figure is the median of its rounds, the processes of both "
             "runtimes alternating. While it ran, other processes used at most %.2f of "
             "a core in any measured process (`other load`); nothing else was started by hand.\n"
             % (meta["date"], meta["commit"], meta["cpu"], meta["rounds"], meta["seconds"], meta["peer"],
                meta["max_other_load"]))
    w.append("| model | runtime | threads | batch | read-ahead | s | tokens/s | peak RSS MB | lines = EdgeMT b32 |")
    w.append("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        for key, v in r["configs"].items():
            read = {"edgemt": "%d lines" % (16 * v["batch"]), "ct2": "%d lines" % v["read_batch"] if v["read_batch"]
                    else "32 lines (default)"}.get(v["kind"], "the whole file (one call)")
            w.append("| %s | %s | %d | %d | %s | %.2f | %.0f | %.1f | %d/%d |"
                     % (r["model"], RUNTIME_NAMES[v["kind"]], v["threads"], v["batch"],
                        read, v["wall_s"], v["tokens_per_s"], v["peak_rss_mb"], v["same_as_edgemt_b32"][0],
                        v["same_as_edgemt_b32"][1]))
    w.append("")
    w.append("| model | EdgeMT best (batch 32) | CTranslate2 best | EdgeMT / CTranslate2 (goal %.1fx) | "
             "EdgeMT batch 32 / batch 1, tokens/s (goal %.1fx, trained model) | API: EdgeMT / CTranslate2 "
             "(goal %.1fx) |" % (GOAL_VS_PEER, GOAL_VS_BATCH1, GOAL_VS_PEER))
    w.append("|---|---|---|---|---|---|")
    for r in results:
        e = best(r, "edgemt", BATCH)
        c = best(r, "ct2")
        b1 = r["configs"]["edgemt_t1_b1"]
        e1 = r["configs"]["edgemt_t1_b%d" % BATCH]
        best_b1 = best(r, "edgemt", 1)
        ratio = "%.2fx (%s)" % (c["wall_s"] / e["wall_s"], "met" if c["wall_s"] / e["wall_s"] >= GOAL_VS_PEER
                                else "missed") if c else "no peer: not measured"
        peer = "%.2f s (%d thread%s, read-ahead %s)" % (c["wall_s"], c["threads"], "s" if c["threads"] > 1 else "",
                                                       c["read_batch"] or "default") if c else "-"
        speedup = e1["tokens_per_s"] / b1["tokens_per_s"]
        best_speedup = e["tokens_per_s"] / best_b1["tokens_per_s"]
        verdict = lambda x: (" (%s)" % ("met" if x >= GOAL_VS_BATCH1 else "missed")) if r["model"] == "multi30k" else ""
        ea, ca = best(r, "edgemt-api"), best(r, "ct2-api")
        api = "%.2f s (%d) / %.2f s (%d) = %.2fx (%s)" % (
            ea["wall_s"], ea["threads"], ca["wall_s"], ca["threads"], ca["wall_s"] / ea["wall_s"],
            "met" if ca["wall_s"] / ea["wall_s"] >= GOAL_VS_PEER else "missed") if ca else "no peer: not measured"
        w.append("| %s | %.2f s (%d thread%s) | %s | %s | %.2fx at 1 thread%s; %.2fx at the better thread count "
                 "of each (batch 1: %d)%s | %s |"
                 % (r["model"], e["wall_s"], e["threads"], "s" if e["threads"] > 1 else "", peer, ratio, speedup,
                    verdict(speedup), best_speedup, best_b1["threads"], verdict(best_speedup), api))
    w.append("")
    w.append("CTranslate2's ISA here: %s.\n" % meta["isa"])
    return "\n".join(w) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="multi30k,tiny,base")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json", default=os.path.join(CACHE, "file_bench.json"))
    p.add_argument("--md", default=None)
    args = p.parse_args()
    t0 = time.time()
    names = args.models.split(",")
    work = os.path.join(CACHE, "file_bench")
    os.makedirs(work, exist_ok=True)
    env = ct2_environment(work)
    if env is None:
        log("CTranslate2 is missing (%s): measuring EdgeMT alone, printing no ratio" % CT2)
    models = rb.prepare_models(CACHE, names, quick=False)
    results, isa = [], "not measured (no peer)"
    for name in names:
        m = models[name]
        ct2_dir = ct2_model(m["checkpoint"], os.path.join(work, name + ".ct2-int8"), env) if env else None
        if name == "multi30k":
            ids = inputs_trained(work)
        else:
            with open(os.path.join(m["checkpoint"], "config.json")) as f:
                ids = inputs_random(json.load(f)["src_vocab_size"])
        vocab = vocabulary(ct2_dir) if ct2_dir else None
        if vocab is None:
            ids_path = os.path.join(work, name + ".ids")
            with open(ids_path, "w") as f:
                f.write("".join(" ".join(map(str, s)) + "\n" for s in ids))
            tokens_path = None
        else:
            ids_path, tokens_path = write_inputs(ids, vocab, work, name)
            if isa.startswith("not"):
                isa = ct2_isa(ct2_dir, tokens_path, env, work)
        results.append(measure(name, m["files"]["int8"], ct2_dir, ids_path, tokens_path, name != "multi30k",
                               args.rounds, env, work))
    info = rb.machine_info()
    meta = dict(date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                commit=rb.git_info()["short"], cpu="%s, %d cores, %s" % (info.get("cpu_model", "?"), info.get("cores", 0), " ".join(info.get("simd_flags", []))), rounds=args.rounds,
                seconds=time.time() - t0, isa=isa,
                peer="CTranslate2 4.8.1 from ../shared/bench/ct2" if env else "CTranslate2 missing: no ratio",
                max_other_load=max((v["other_load"] for r in results for v in r["configs"].values()), default=0))
    text = markdown(results, meta)
    print(text)
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(dict(meta=meta, results=results, rounds=ROUNDS), f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
