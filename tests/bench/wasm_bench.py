#!/usr/bin/python3
"""Measures the WebAssembly build (issue 30) beside the native build, in one run.

    tests/bench/wasm_bench.py --md build/bench-cache/wasm.md      # 3 rounds, the first 100 dev sentences

Uses build/ (native, its bin/), build-wasm/ (the npm package folder, build-wasm/web/package) and, when it
is there, build-wasm-threads/ (the threaded build's package); builds nothing. The model is the committed
Multi30k int8 example; sources the first --limit dev sentences, normal stopping, batch 1 (b16: 16).

1. Size: edgemt.wasm and Emscripten's loader (edgemt-glue.mjs), raw and gzip -9.
2. Speed, batch 1, alternated round by round (each process under flock(/tmp/edgemt-cpu.lock)):
   native edgemt-bench at 1 and 2 threads; the module in Node.js (web/tests/translate_lines.mjs --batch 1);
   the module in headless Chromium (the example page in a worker, web/tests/browser_test.mjs --bench);
   the threaded module in Chromium at 2 threads (the page cross-origin isolated, browser_test.mjs --threads 2).
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
THREADS_PACKAGE = os.path.join(paths.REPO, "build-wasm-threads", "web", "package")
PAGE = os.path.join(paths.REPO, "examples", "web")
TESTS = os.path.join(paths.REPO, "web", "tests")
# "tN": N threads; "b16": batches of 16 (else one sentence at a time); "threads": the threaded build.
CONFIGS = ("native t1", "native t2", "node", "chromium", "chromium threads t2",
           "native t1 b16", "native t2 b16", "chromium b16", "chromium threads t2 b16")


def setting(config, letter, default):
    """The number after `letter` in a configuration's name ("t2" -> 2), else default."""
    return next((int(word[1:]) for word in config.split() if word[0] == letter and word[1:].isdigit()), default)


def sizes(configs):
    out = {}
    files = [("", PACKAGE, name) for name in ("edgemt.wasm", "edgemt-glue.mjs", "edgemt.mjs")]
    if "chromium threads t2" in configs:
        files += [("threaded ", THREADS_PACKAGE, name) for name in ("edgemt.wasm", "edgemt-glue.mjs",
                                                                    "edgemt-glue.worker.js")]
    for label, folder, name in files:
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        out[label + name] = dict(raw=len(data), gzip=len(gzip.compress(data, 9)))
    return out


def run_native(threads, batch, sources, limit):
    j = edgemt_bench.run(edgemt_bench.command(paths.COMMITTED_INT8, sources, threads=threads, batch=batch, repeat=1,
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


def run_chromium(sources, work, limit, threads, batch):
    summary = os.path.join(work, "chromium.json")
    package = THREADS_PACKAGE if threads else PACKAGE
    run_child(["node", os.path.join(TESTS, "browser_test.mjs"), "--package", package, "--page-dir", PAGE,
               "--model", paths.COMMITTED_INT8, "--sources", sources, "--bench", str(limit), "--json", summary,
               "--screenshot", os.path.join(work, "page.png")] + (["--threads", str(threads)] if threads else [])
              + (["--bench-batch", str(batch)] if batch > 1 else []), timed=True)
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
    configs = CONFIGS
    if not os.path.exists(os.path.join(THREADS_PACKAGE, "edgemt.wasm")):
        configs = tuple(c for c in CONFIGS if "threads" not in c)
        log("no threaded build (%s): measuring the single-threaded module only" % THREADS_PACKAGE)
    meta = machine.start_meta(rounds=args.rounds, limit=args.limit, configs=list(configs), **versions)
    with tempfile.TemporaryDirectory(prefix="edgemt-wasm-bench-") as work:
        sources = os.path.join(work, "dev.en")
        with open(paths.DEV_EN, encoding="utf-8") as f, open(sources, "w", encoding="utf-8") as out:
            out.writelines(f.readlines()[:args.limit])

        def run(config):
            with cpu_lock("wasm " + config):
                batch = setting(config, "b", 1)
                if config.startswith("native"):
                    r = run_native(setting(config, "t", 1), batch, sources, args.limit)
                elif config == "node":
                    r = run_node(sources, work)
                else:  # the threaded build at tN; the single-threaded one (no ?threads=)
                    r = run_chromium(sources, work, args.limit, setting(config, "t", 0), batch)
            log("%s: %.0f tokens/s, load %.0f ms" % (config, r["tokens_per_s"], r["load_ms"]))
            return r

        runs = alternate(configs, args.rounds, run, reverse_odd=True)
    results = {c: {k: median([r[k] for r in runs[c]]) for k in runs[c][0]} for c in configs}
    machine.finish_meta(meta, COMMANDS)
    data = dict(meta=meta, sizes=sizes(configs), results=results, runs=runs)
    publish(section(data), data, args.json, args.md)


def section(data):
    meta, r, s = data["meta"], data["results"], data["sizes"]
    out = Section("wasm", "WebAssembly (tests/bench/wasm_bench.py)", machine.run_header(meta, "tests/bench/wasm_bench.py"))
    # Chromium's renderer and GPU processes are not our children: its rounds count them as other processes.
    others = dict(meta, lock_rounds=[r for r in meta["lock_rounds"] if "chromium" not in r["label"]])
    out.text(machine.measured_when(others, during="a native or Node.js round (in Chromium's, its own renderer "
                                   "and GPU processes count as other)") + " The committed Multi30k int8 model, the first %d dev sentences, normal "
             "stopping, batch 1 (b16: batches of 16 sentences); configurations alternate, %d rounds, medians. "
             "The module is single-threaded (SIMD128, Emscripten 3.1.6), the threaded one (-pthread, the page "
             "cross-origin isolated) at 2 threads; native at 1 and 2 threads. Node.js %s; %s: the example page, "
             "the model translated in its worker (headless). Speed after a warm-up (10 sources in Node.js and "
             "Chromium); load and the first translation are cold." % (meta["limit"], meta["rounds"],
                                                                    meta["node"], meta["chromium"]))
    configs = meta.get("configs", CONFIGS)
    rows = []
    for c in configs:
        batch = setting(c, "b", 1)
        # Against native's better thread count at the same batch.
        best_native = max(r[n]["tokens_per_s"] for n in configs
                          if n.startswith("native") and setting(n, "b", 1) == batch)
        tps = r[c]["tokens_per_s"]
        rows.append([c, str(batch), "%.0f" % tps, "%.2fx" % (tps / best_native), "%.0f ms" % r[c]["load_ms"]])
    out.table(["build", "batch", "tokens/s", "of native's best", "load"], rows)
    out.table(["file", "raw", "gzip -9"],
              [[name, "%.0f KB" % (v["raw"] / 1e3), "%.0f KB" % (v["gzip"] / 1e3)] for name, v in s.items()])
    threaded = r.get("chromium threads t2")
    out.text("The page's time to its first translation (navigation start to the first output shown, model "
             "and module served from 127.0.0.1): %.0f ms%s." % (
                 r["chromium"]["first_translation_ms"],
                 "; threaded, 2 threads: %.0f ms" % threaded["first_translation_ms"] if threaded else ""))
    return out.code(merged_commands(meta["commands"], merge_all=True), "every command")


if __name__ == "__main__":
    main()
