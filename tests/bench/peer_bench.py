#!/usr/bin/python3
"""EdgeMT against CTranslate2 at batch 1 and batch 32, measured side by side in one run.

    tests/bench/peer_bench.py --md /tmp/peer.md          # multi30k, tiny, base; 2 rounds
    tests/bench/peer_bench.py --models tiny --rounds 1   # a quick look
    tests/bench/peer_bench.py --imported --beams 1,4 --models multi30k,tiny --md /tmp/imported.md

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
best (over threads), for the same sentences. --imported: EdgeMT's file is converted from CTranslate2's
directory itself (edgemt-convert keeps its int8 weights), not from the checkpoint. --beams 1,4: each
configuration also with beam 4 (length penalty 1). Prints a Markdown section, writes JSON (--json) and, with
--md FILE, the Markdown to FILE. Without the peer it says so and prints no ratio. Uses build/bin and
build/python (it builds nothing).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ctranslate2 as ct2, machine, models, outputs, paths  # noqa: E402
from benchlib.alternation import alternate  # noqa: E402
from benchlib.log import log  # noqa: E402
from benchlib.markdown import fmt  # noqa: E402
from benchlib.section import Section, publish  # noqa: E402
from benchlib.stats import fastest, median  # noqa: E402

BATCHES = (1, 32)
THREADS = (1, 2)
SOURCES = {"multi30k": 500, "tiny": 200, "base": 96}


def configurations(peer, isas, beams=(1,)):
    configs = [("edgemt", None, t, b, k) for k in beams for b in BATCHES for t in THREADS]
    if peer:
        configs += [("ct2", isa, t, b, k) for k in beams for b in BATCHES for isa in isas for t in THREADS]
    return configs


def config_key(runtime, isa, threads, batch, beam=1):
    return "%s%s_t%d_b%d%s" % (runtime, "_" + isa if isa else "", threads, batch, "_beam%d" % beam if beam > 1 else "")


def run_config(c, m, work):
    runtime, isa, threads, batch, beam = c
    out = os.path.join(work, "%s.%s%s.t%d.b%d.k%d.out" % (m["name"], runtime, "." + isa if isa else "", threads,
                                                          batch, beam))
    if runtime == "edgemt":
        r = ct2.run_api("edgemt-api", m["model"], m["ids"], out, threads, m["fixed"], None, batch, beam,
                        m.get("imported", False))
    else:
        env = dict(m["env"], CT2_FORCE_CPU_ISA=isa) if isa != "default" else m["env"]
        r = ct2.run_api("ct2-api", m["ct2_dir"], m["tokens"], out, threads, m["fixed"], env, batch, beam)
    return dict(wall_s=r["wall_s"], other_load=r["other_load"], out=out)


def measure(m, rounds, isas, work, beams=(1,)):
    runs = alternate(configurations(m["env"] is not None, isas, beams), rounds, lambda c: run_config(c, m, work),
                     reverse_odd=True, after_round=lambda i: log("%s round %d done" % (m["name"], i + 1)))
    result = dict(model=m["name"], sentences=sum(1 for _ in open(m["ids"])), fixed_length=m["fixed"], configs={})
    for c, rs in runs.items():
        runtime, isa, threads, batch, beam = c
        reference = runs[("edgemt", None, 1, 1, beam)][-1]["out"]
        ids_out = rs[-1]["out"]
        if runtime == "ct2":
            ids_out = ct2.to_ids(ids_out, ct2.vocabulary(m["ct2_dir"]), ids_out + ".ids")
        wall, tokens = median(r["wall_s"] for r in rs), outputs.count_tokens(ids_out)
        result["configs"][config_key(*c)] = dict(
            runtime=runtime, isa=isa, threads=threads, batch=batch, beam=beam, wall_s=round(wall, 4),
            walls=[round(r["wall_s"], 4) for r in rs], output_tokens=tokens, tokens_per_s=round(tokens / wall, 1),
            other_load=max(r["other_load"] for r in rs),
            same_as_edgemt_b1_t1=list(outputs.same_lines(ids_out, reference)))
    return result


def best(result, runtime, batch, beam=1):
    """The fastest configuration of a runtime at a batch size and beam (over threads and ISAs)."""
    return fastest(v for v in result["configs"].values()
                   if v["runtime"] == runtime and v["batch"] == batch and v.get("beam", 1) == beam)


def isa_name(meta, runtime, isa):
    if runtime == "edgemt":
        return "XNNPACK's choice"
    return meta["ct2_isa"] if isa == "default" else isa + " (forced)"


def config_rows(results, meta):
    rows = []
    for r in results:
        for beam, batch in ((k, b) for k in meta.get("beams", [1]) for b in BATCHES):
            for runtime, isas in (("edgemt", [None]), ("ct2", meta["isas"] if meta["peer"] else [])):
                for isa in isas:
                    a, b = (r["configs"][config_key(runtime, isa, t, batch, beam)] for t in THREADS)
                    rows.append([r["model"] + ("" if beam == 1 else ", beam %d" % beam), batch,
                                 "EdgeMT" if runtime == "edgemt" else "CTranslate2",
                                 isa_name(meta, runtime, isa), "%s (%.2f s)" % (fmt(a["tokens_per_s"], 0), a["wall_s"]),
                                 "%s (%.2f s)" % (fmt(b["tokens_per_s"], 0), b["wall_s"]),
                                 "%d/%d" % tuple(a["same_as_edgemt_b1_t1"])])
    return rows


def ratio_cell(r, batch, meta, beam=1):
    e, c = best(r, "edgemt", batch, beam), best(r, "ct2", batch, beam)
    return "**%.2fx** (EdgeMT %d thread(s), CTranslate2 %d thread(s) %s)" % (
        c["wall_s"] / e["wall_s"], e["threads"], c["threads"], meta["ct2_isa"] if c["isa"] == "default" else c["isa"])


def section(results, meta):
    imported = meta.get("imported", False)
    s = Section("peer-imported" if imported else "peer", "EdgeMT on imported CTranslate2 directories against "
                "CTranslate2 on the same directories" if imported else "EdgeMT and CTranslate2 at batch 1 and 32", dict(
        script="tests/bench/peer_bench.py", command=meta.get("command"), date=meta["date"], date_is="end",
        commit=meta["commit"], cpu=meta["cpu"]))
    s.text("Measured by `tests/bench/peer_bench.py` at %s (%s), %s, in one run: Python API against Python API, int8, "
           "the same token ids, a process per measurement timing the translating call only; medians of %d round(s) "
           "alternating the runtimes' processes. Other load during the run: %s. CTranslate2 %s picks %s here; it "
           "also ran with CT2_FORCE_CPU_ISA=%s. Tokens/s count each runtime's own output ids." % (
               meta["commit"], meta["date"], meta["cpu"], meta["rounds"], meta["load"], meta["ct2_version"],
               meta["ct2_isa"], ct2.FORCED_ISA if ct2.FORCED_ISA in meta["isas"] else "(not forced: no AVX-512)"))
    if imported:
        s.text("EdgeMT's files are `edgemt-convert` of CTranslate2's int8 directories (exported by "
               "`../shared/bench/ct2/export_ct2.py` from the checkpoints): the same int8 weights in both runtimes.")
    if not meta["peer"]:
        s.text("CTranslate2 was not found (%s): EdgeMT alone, no ratio." % meta["ct2_path"])
    s.table(["model", "batch", "runtime", "ISA", "1 thread (tok/s)", "2 threads (tok/s)",
             "1 thread: ids as EdgeMT's batch 1"], config_rows(results, meta), "every configuration")
    if meta["peer"]:
        s.text("EdgeMT / CTranslate2 (CTranslate2's best time over threads and ISAs over EdgeMT's best over threads, "
               "the same sentences):")
        s.table(["model", "batch 1", "batch 32"],
                [[r["model"] + ("" if k == 1 else ", beam %d" % k)] + [ratio_cell(r, b, meta, k) for b in BATCHES]
                 for r in results for k in meta.get("beams", [1])])
    return s.text("Sources: multi30k the %d dev sentences (normal stopping); tiny %d and base %d random sources of "
                  "10-40 ids, exactly 32 output ids each (--min/max length 32 for both runtimes)."
                  % (SOURCES["multi30k"], SOURCES["tiny"], SOURCES["base"]))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="multi30k,tiny,base")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--json", default=os.path.join(paths.CACHE, "peer_bench", "peer_bench.json"))
    p.add_argument("--md")
    p.add_argument("--imported", action="store_true", help="EdgeMT runs edgemt-convert of CTranslate2's directory")
    p.add_argument("--beams", default="1", help="beam sizes, e.g. 1,4")
    args = p.parse_args()
    beams = [int(k) for k in args.beams.split(",")]
    work = os.path.join(paths.CACHE, "peer_bench")
    os.makedirs(work, exist_ok=True)
    names = [n for n in args.models.split(",") if n]
    chosen = models.prepare_models(paths.CACHE, names)
    env = ct2.environment(work)
    if env is None:
        log("CTranslate2 is missing (%s): measuring EdgeMT alone, printing no ratio" % ct2.CT2)
    isas = ["default"] + ([ct2.FORCED_ISA] if ct2.cpu_has_avx512() else [])
    results, isa_seen = [], "not measured"
    for name in names:
        m = ct2.prepare(name, chosen[name], env, work, SOURCES[name])
        if args.imported:
            if not m["ct2_dir"]:
                raise SystemExit("--imported needs CTranslate2 (%s)" % ct2.CT2)
            m["model"], m["imported"] = ct2.import_directory(m["ct2_dir"], work), True
        if m["ct2_dir"] and isa_seen == "not measured":
            isa_seen = ct2.detect_isa(m["ct2_dir"], m["tokens"], env, work)
        results.append(measure(m, args.rounds, isas, work, beams))
    info, git = machine.machine_info(), machine.git_info()
    load = max(v["other_load"] for r in results for v in r["configs"].values())
    meta = dict(commit=git["short"], date=machine.utc_now(), date_is="end", command=" ".join(sys.argv),
                cpu="%s, %d cores" % (info.get("cpu_model", "?"), info.get("cores", 0)), rounds=args.rounds,
                peer=env is not None, ct2_path=ct2.CT2, ct2_version=ct2.VERSION, ct2_isa=isa_seen, isas=isas,
                load="at most %.2f CPUs busy with other processes during any measurement" % load,
                imported=args.imported, beams=beams)
    publish(section(results, meta), dict(meta=meta, results=results), args.json, args.md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
