#!/usr/bin/python3
"""EdgeMT against CTranslate2 at batch 1 and batch 32, measured side by side in one run.

    tests/bench/peer_bench.py --md /tmp/peer.md          # multi30k, tiny, base; 2 rounds
    tests/bench/peer_bench.py --models tiny --rounds 1   # a quick look

Python API against Python API, int8, the same checkpoints and the same token ids (../shared/bench/ct2,
CTranslate2 4.8.1): edgemt.Translator(threads=T, max_batch_size=B).translate_ids(all sources) against
ctranslate2.Translator(intra_threads=T).translate_batch(all sources, max_batch_size=B, beam_size=1), a
process each that loads the model and then times the translating call only; B = 1 and 32, T = 1 and 2.
CTranslate2 runs at the ISA it picks (logged by CT2_VERBOSE) and at AVX512 forced through
CT2_FORCE_CPU_ISA (when the CPU has it), so that its best is what EdgeMT is compared with. Each round
runs every configuration once, in reverse order every other round, the two runtimes' processes
interleaved (each under flock(/tmp/edgemt-cpu.lock)); the figure is the median over rounds.

- multi30k: the trained model, the 500 dev sentences, normal stopping;
- tiny: 200, base: 96 random sources of 10-40 ids, exactly 32 output ids each.

The ratio of a model and batch size is CTranslate2's best time (over threads and ISAs) over EdgeMT's
best (over threads), for the same sentences. Prints a Markdown section, writes JSON (--json) and, with
--md FILE, the Markdown to FILE. Without the peer it says so and prints no ratio. Uses build/bin and
build/python (it builds nothing).
"""

import argparse
import datetime
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import file_bench as fb  # noqa: E402
import run_benchmarks as rb  # noqa: E402

BATCHES = (1, 32)
THREADS = (1, 2)
SOURCES = {"multi30k": 500, "tiny": 200, "base": 96}
FORCED_ISA = "AVX512"


def cpu_has_avx512():
    with open("/proc/cpuinfo") as f:
        return " avx512f" in f.read()


def configurations(peer, isas):
    configs = [("edgemt", None, t, b) for b in BATCHES for t in THREADS]
    if peer:
        configs += [("ct2", isa, t, b) for b in BATCHES for isa in isas for t in THREADS]
    return configs


def measure(name, model, ct2_dir, ids_path, tokens_path, fixed, rounds, env, isas, work):
    configs = configurations(env is not None, isas)
    runs = {c: [] for c in configs}
    outputs = {}
    for round_ in range(rounds):
        for c in configs if round_ % 2 == 0 else list(reversed(configs)):
            runtime, isa, threads, batch = c
            out = os.path.join(work, "%s.%s%s.t%d.b%d.out" % (name, runtime, "." + isa if isa else "", threads, batch))
            if runtime == "edgemt":
                r = fb.run_api("edgemt-api", model, ids_path, out, threads, fixed, None, batch)
            else:
                forced = dict(env, CT2_FORCE_CPU_ISA=isa) if isa != "default" else env
                r = fb.run_api("ct2-api", ct2_dir, tokens_path, out, threads, fixed, forced, batch)
            runs[c].append(dict(wall_s=r["wall_s"], other_load=r["other_load"]))
            outputs[c] = out
        fb.log("%s round %d done" % (name, round_ + 1))
    reference = outputs[("edgemt", None, 1, 1)]
    result = dict(model=name, sentences=sum(1 for _ in open(ids_path)), fixed_length=fixed, configs={})
    for c, rs in runs.items():
        runtime, isa, threads, batch = c
        ids_out = outputs[c]
        if runtime == "ct2":
            ids_out = outputs[c] + ".ids"
            fb.to_ids(outputs[c], fb.vocabulary(ct2_dir), ids_out)
        wall = statistics.median(r["wall_s"] for r in rs)
        tokens = fb.count_tokens(ids_out)
        same, total = fb.same_lines(ids_out, reference)
        key = "%s%s_t%d_b%d" % (runtime, "_" + isa if isa else "", threads, batch)
        result["configs"][key] = dict(runtime=runtime, isa=isa, threads=threads, batch=batch, wall_s=round(wall, 4),
                                      walls=[round(r["wall_s"], 4) for r in rs], output_tokens=tokens,
                                      tokens_per_s=round(tokens / wall, 1),
                                      other_load=max(r["other_load"] for r in rs),
                                      same_as_edgemt_b1_t1=[same, total])
    return result


def best(result, runtime, batch):
    """The fastest configuration of a runtime at a batch size (over threads and ISAs)."""
    rows = [v for v in result["configs"].values() if v["runtime"] == runtime and v["batch"] == batch]
    return min(rows, key=lambda v: v["wall_s"]) if rows else None


def markdown(results, meta):
    w = ["## EdgeMT and CTranslate2 at batch 1 and 32", "",
         "Measured by `tests/bench/peer_bench.py` at %s (%s), %s, in one run: Python API against Python API, "
         "int8, the same token ids, a process per measurement timing the translating call only; medians of %d "
         "round(s) alternating the runtimes' processes. Other load during the run: %s. CTranslate2 %s picks %s "
         "here; it also ran with CT2_FORCE_CPU_ISA=%s. Tokens/s count each runtime's own output ids."
         % (meta["commit"], meta["date"], meta["cpu"], meta["rounds"], meta["load"], meta["ct2_version"],
            meta["ct2_isa"], FORCED_ISA if FORCED_ISA in meta["isas"] else "(not forced: no AVX-512)"), ""]
    if not meta["peer"]:
        w += ["CTranslate2 was not found (%s): EdgeMT alone, no ratio." % meta["ct2_path"], ""]
    w += ["| model | batch | runtime | ISA | 1 thread (tok/s) | 2 threads (tok/s) | 1 thread: ids as EdgeMT's batch 1 |",
          "|---|---|---|---|---|---|---|"]
    for r in results:
        for batch in BATCHES:
            for runtime, isas in (("edgemt", [None]), ("ct2", meta["isas"] if meta["peer"] else [])):
                for isa in isas:
                    k = lambda t: "%s%s_t%d_b%d" % (runtime, "_" + isa if isa else "", t, batch)  # noqa: E731
                    a, b = r["configs"][k(1)], r["configs"][k(2)]
                    isa_name = "XNNPACK's choice" if runtime == "edgemt" else (meta["ct2_isa"] if isa == "default"
                                                                               else isa + " (forced)")
                    w.append("| %s | %d | %s | %s | %s (%.2f s) | %s (%.2f s) | %d/%d |" % (
                        r["model"], batch, "EdgeMT" if runtime == "edgemt" else "CTranslate2", isa_name,
                        rb.fmt(a["tokens_per_s"], 0), a["wall_s"], rb.fmt(b["tokens_per_s"], 0), b["wall_s"],
                        *a["same_as_edgemt_b1_t1"]))
    if meta["peer"]:
        w += ["", "EdgeMT / CTranslate2 (CTranslate2's best time over threads and ISAs over EdgeMT's best over "
              "threads, the same sentences):", "",
              "| model | batch 1 | batch 32 |", "|---|---|---|"]
        for r in results:
            cells = []
            for batch in BATCHES:
                e, c = best(r, "edgemt", batch), best(r, "ct2", batch)
                cells.append("**%.2fx** (EdgeMT %d thread(s), CTranslate2 %d thread(s) %s)" % (
                    c["wall_s"] / e["wall_s"], e["threads"], c["threads"],
                    meta["ct2_isa"] if c["isa"] == "default" else c["isa"]))
            w.append("| %s | %s |" % (r["model"], " | ".join(cells)))
    w += ["", "Sources: multi30k the %d dev sentences (normal stopping); tiny %d and base %d random sources of "
          "10-40 ids, exactly 32 output ids each (--min/max length 32 for both runtimes)."
          % (SOURCES["multi30k"], SOURCES["tiny"], SOURCES["base"]), ""]
    return "\n".join(w)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="multi30k,tiny,base")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--json", default=os.path.join(fb.CACHE, "peer_bench", "peer_bench.json"))
    p.add_argument("--md")
    args = p.parse_args()
    work = os.path.join(fb.CACHE, "peer_bench")
    os.makedirs(work, exist_ok=True)
    names = [n for n in args.models.split(",") if n]
    models = rb.prepare_models(fb.CACHE, names, quick=False)
    env = fb.ct2_environment(work)
    if env is None:
        fb.log("CTranslate2 is missing (%s): measuring EdgeMT alone, printing no ratio" % fb.CT2)
    isas = ["default"] + ([FORCED_ISA] if cpu_has_avx512() else [])
    results, isa_seen = [], "not measured"
    for name in names:
        m = models[name]
        ct2_dir = fb.ct2_model(m["checkpoint"], os.path.join(work, name + ".ct2-int8"), env) if env else None
        if name == "multi30k":
            ids = fb.inputs_trained(work)[:SOURCES[name]]
        else:
            with open(os.path.join(m["checkpoint"], "config.json")) as f:
                ids = fb.inputs_random(json.load(f)["src_vocab_size"])[:SOURCES[name]]
        vocab = fb.vocabulary(ct2_dir) if ct2_dir else None
        ids_path, tokens_path = fb.write_inputs(ids, vocab or [str(i) for i in range(max(map(max, ids)) + 1)],
                                                work, name)
        if ct2_dir and isa_seen == "not measured":
            isa_seen = fb.ct2_isa(ct2_dir, tokens_path, env, work)
        results.append(measure(name, m["files"]["int8"], ct2_dir, ids_path, tokens_path, name != "multi30k", args.rounds,
                               env, isas, work))
    info = rb.machine_info()
    load = max(v["other_load"] for r in results for v in r["configs"].values())
    meta = dict(commit=rb.git_info()["short"], date=datetime.datetime.now(datetime.timezone.utc).strftime(
                    "%Y-%m-%d %H:%M UTC"), cpu="%s, %d cores" % (info.get("cpu_model", "?"), info.get("cores", 0)),
                rounds=args.rounds, peer=env is not None, ct2_path=fb.CT2, ct2_version="4.8.1", ct2_isa=isa_seen,
                isas=isas, load="at most %.2f CPUs busy with other processes during any measurement" % load)
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(dict(meta=meta, results=results), f, indent=1)
    text = markdown(results, meta)
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
