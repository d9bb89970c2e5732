#!/usr/bin/python3
"""Measures the WebAssembly build (issue 30) beside the native build, in one run.

    tests/bench/wasm_bench.py --md build/bench-cache/wasm.md      # 3 rounds, the first 100 dev sentences

Uses build/ (native, its bin/) and build-wasm/ (the npm package folder, build-wasm/web/package); builds
nothing. The model is the committed Multi30k int8 example; sources the first --limit dev sentences, normal
stopping, batch 1.

1. Size: edgemt.wasm and Emscripten's loader (edgemt-glue.mjs), raw and gzip -9.
2. Speed, batch 1, alternated round by round (each process under flock(/tmp/edgemt-cpu.lock)):
   native edgemt-bench at 1 and 2 threads; the module in Node.js (web/tests/translate_lines.mjs --batch 1);
   the module in headless Chromium (the example page in a worker, web/tests/browser_test.mjs --bench).
   Tokens/s = output tokens (no </s>) / the translating calls' time, after a warm-up (edgemt-bench's
   untimed pass; the first 10 sources in Node.js and Chromium, whose engines optimize WebAssembly code as
   it runs); medians of the rounds.
3. Load: native Model::Load + Translator::Create (edgemt-bench's load_ms); Node.js and Chromium
   Translator.load (the runtime instantiated, the model read and checked, the weights packed);
   the page's time to its first translation (navigation start to the first output shown, ?model=&text=).
"""
import argparse
import gzip
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import edgemt_bench, machine, paths  # noqa: E402
from benchlib.alternation import alternate  # noqa: E402
from benchlib.load import cpu_lock  # noqa: E402
from benchlib.log import log  # noqa: E402
from benchlib.markdown import merged_commands  # noqa: E402
from benchlib.processes import COMMANDS, run_child  # noqa: E402
from benchlib.section import Section, publish  # noqa: E402
from benchlib.stats import median  # noqa: E402

PACKAGE = os.path.join(paths.REPO, "build-wasm", "web", "package")
PAGE = os.path.join(paths.REPO, "examples", "web")
TESTS = os.path.join(paths.REPO, "web", "tests")
CONFIGS = ("native t1", "native t2", "node", "chromium")


def sizes():
    out = {}
    for name in ("edgemt.wasm", "edgemt-glue.mjs", "edgemt.mjs"):
        with open(os.path.join(PACKAGE, name), "rb") as f:
            data = f.read()
        out[name] = dict(raw=len(data), gzip=len(gzip.compress(data, 9)))
    return out


def run_native(threads, sources, limit):
    j = edgemt_bench.run(edgemt_bench.command(paths.COMMITTED_INT8, sources, threads=threads, batch=1, repeat=1,
                                              limit=limit), timed=True)
    return dict(tokens_per_s=j["tokens_per_s"], load_ms=j["load_ms"])


def run_node(sources, work):
    timing = os.path.join(work, "node.json")
    run_child(["node", os.path.join(TESTS, "translate_lines.mjs"), "--package", PACKAGE, "--model",
               paths.COMMITTED_INT8, "--batch", "1", "--timing", timing], stdin=sources,
              stdout_path=os.path.join(work, "node.de"), timed=True)
    with open(timing) as f:
        t = json.load(f)
    return dict(tokens_per_s=t["output_tokens"] / (t["translate_ms"] / 1000), load_ms=t["load_ms"])


def run_chromium(sources, work, limit):
    summary = os.path.join(work, "chromium.json")
    run_child(["node", os.path.join(TESTS, "browser_test.mjs"), "--package", PACKAGE, "--page-dir", PAGE,
               "--model", paths.COMMITTED_INT8, "--sources", sources, "--bench", str(limit), "--json", summary,
               "--screenshot", os.path.join(work, "page.png")], timed=True)
    with open(summary) as f:
        s = json.load(f)
    return dict(tokens_per_s=s["bench"]["tokens"] / (s["bench"]["ms"] / 1000), load_ms=s["loadMs"],
                first_translation_ms=s["firstTranslationMs"])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--limit", type=int, default=100, help="dev sentences per speed run (default 100)")
    p.add_argument("--json", default=os.path.join(paths.CACHE, "wasm.json"))
    p.add_argument("--md", default=None)
    args = p.parse_args()
    paths.require(paths.BENCH, paths.COMMITTED_INT8, os.path.join(PACKAGE, "edgemt.wasm"), paths.DEV_EN)
    versions = {name: run_child([name, "--version"], record=False)["out"].strip() for name in ("node", "chromium")}
    meta = machine.start_meta(rounds=args.rounds, limit=args.limit, **versions)
    with tempfile.TemporaryDirectory(prefix="edgemt-wasm-bench-") as work:
        sources = os.path.join(work, "dev.en")
        with open(paths.DEV_EN, encoding="utf-8") as f, open(sources, "w", encoding="utf-8") as out:
            out.writelines(f.readlines()[:args.limit])

        def run(config):
            with cpu_lock("wasm " + config):
                if config.startswith("native"):
                    r = run_native(int(config[-1]), sources, args.limit)
                elif config == "node":
                    r = run_node(sources, work)
                else:
                    r = run_chromium(sources, work, args.limit)
            log("%s: %.0f tokens/s, load %.0f ms" % (config, r["tokens_per_s"], r["load_ms"]))
            return r

        runs = alternate(CONFIGS, args.rounds, run, reverse_odd=True)
    results = {c: {k: median([r[k] for r in runs[c]]) for k in runs[c][0]} for c in CONFIGS}
    machine.finish_meta(meta, COMMANDS)
    data = dict(meta=meta, sizes=sizes(), results=results, runs=runs)
    publish(section(data), data, args.json, args.md)


def section(data):
    meta, r, s = data["meta"], data["results"], data["sizes"]
    out = Section("wasm", "WebAssembly (tests/bench/wasm_bench.py)", machine.run_header(meta, "tests/bench/wasm_bench.py"))
    # Chromium's renderer and GPU processes are not our children: its rounds count them as other processes.
    others = dict(meta, lock_rounds=[r for r in meta["lock_rounds"] if "chromium" not in r["label"]])
    out.text(machine.measured_when(others, during="a native or Node.js round (in Chromium's, its own renderer "
                                   "and GPU processes count as other)") + " The committed Multi30k int8 model, the first %d dev sentences, normal "
             "stopping, batch 1; configurations alternate, %d rounds, medians. The module is single-threaded "
             "(SIMD128, Emscripten 3.1.6); native at 1 and 2 threads. Node.js %s; %s: the example page, "
             "the model translated in its worker (headless). Speed after a warm-up (10 sources in Node.js and "
             "Chromium); load and the first translation are cold." % (meta["limit"], meta["rounds"],
                                                                    meta["node"], meta["chromium"]))
    best_native = max(r["native t1"]["tokens_per_s"], r["native t2"]["tokens_per_s"])
    rows = []
    for c in CONFIGS:
        tps = r[c]["tokens_per_s"]
        rows.append([c, "%.0f" % tps, "%.2fx" % (tps / best_native), "%.0f ms" % r[c]["load_ms"]])
    out.table(["build", "tokens/s", "of native's best", "load"], rows)
    out.table(["file", "raw", "gzip -9"],
              [[name, "%.0f KB" % (v["raw"] / 1e3), "%.0f KB" % (v["gzip"] / 1e3)] for name, v in s.items()])
    out.text("The page's time to its first translation (navigation start to the first output shown, model "
             "and module served from 127.0.0.1): %.0f ms." % r["chromium"]["first_translation_ms"])
    return out.code(merged_commands(meta["commands"], merge_all=True), "every command")


if __name__ == "__main__":
    main()
