#!/usr/bin/python3
"""EdgeMT against Bergamot (Firefox Translations' engine) on Firefox-shaped models (issue 55), in one run.

    tests/bench/bergamot_bench.py --md build/bench-cache/bergamot.md     # 3 rounds, 200 dev sentences

Bergamot is the npm package's WebAssembly build in the kit (../shared/bench/bergamot), driven by its
bergamot_translate.mjs in Node.js and by tests/bench/bergamot_page in headless Chromium; EdgeMT is
build-wasm/web/package (Node.js: web/tests/translate_lines.mjs; Chromium: the example page,
web/tests/browser_test.mjs --bench) and build/bin/edgemt-bench natively. Builds nothing.

Models: the kit's firefox-tiny and firefox-base exports (random weights, seed 1, 32000 pieces as Firefox's
vocabularies have, the </s> rate calibrated to 5% a step so outputs have the length of real ones, alphas),
with a shortlist learnt from Multi30k's training corpus (make_shortlist.py corpus, lex.50.50), cached in
build/bench-cache/bergamot/. Bergamot runs the shipped model.ende.intgemm.alphas.bin with Firefox's
gemm-precision int8shiftAlphaAll and the shortlist; EdgeMT the .edgemt converted from that folder with no
flag (int8, the intgemm8 weights bit for bit, the shortlist on). 1 thread everywhere (the wasm builds are
single-threaded; native at 1 thread). One sentence at a time (b1), and batched: Bergamot as Firefox batches
(one call with every sentence, mini-batch-words 1024, sorted by length inside), EdgeMT batches of 16 sorted
by length, as its text layer makes them (in Node.js one translateBatch call with every sentence;
edgemt-bench --sort-by-length).

Tokens/s = output tokens (no </s>) / the translating calls' time, after 10 sentences of warm-up in every
engine. Bergamot's output tokens come from an untimed ids pass of the same wasm (--ids-out); the lines
whose text differs from the timed run's are counted (batched, the ids pass's shortlist pads differently). Peak RSS: the process's (Node.js for both WebAssembly engines; edgemt-bench).
Load: Bergamot's instantiate + TranslationModel and its first translation (which builds its graph) apart;
EdgeMT's Translator.load (module, model, packing) and edgemt-bench's Model::Load + Translator::Create.
Configurations alternate round by round (each under the CPU lock); medians of the rounds.

Bergamot native (--bergamot-native BIN, for the benchmark only): a driver of bergamot-translator's
BlockingService built from its sources beside the project (never committed; BIN takes a config file with
Firefox's worker settings, --one-by-one and --warmup N, translates stdin's lines and prints a timing JSON
line on stderr). Its int8 is intgemm's for this CPU, so its output can differ from the wasm's: its tokens
are the driver's count of target pieces, less the </s> it emitted (on the lines where its output is the
wasm's, the wasm's ids pass counts the same). Each engine's tokens/s counts its own output: random weights
decode differently in every engine (batched, Bergamot's shortlist is the union of a whole batch's), so the
output tokens of each row are printed beside its speed.
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

KIT = os.path.join(paths.SHARED, "bench", "bergamot")
BERGAMOT = os.path.join(KIT, "bergamot_translate.mjs")
WORK = os.path.join(paths.CACHE, "bergamot")
PACKAGE = os.path.join(paths.REPO, "build-wasm", "web", "package")
WEB_TESTS = os.path.join(paths.REPO, "web", "tests")
PAGE = os.path.join(paths.REPO, "examples", "web")
BERGAMOT_PAGE = os.path.join(paths.HERE, "bergamot_page.mjs")
TRAIN_DE = os.path.join(paths.SHARED, "data", "multi30k", "train.de")
PRESETS = ("firefox-tiny", "firefox-base")
EDGEMT_BATCH = 16
WARMUP = 10
# engine, where it runs, batch ("batched": Bergamot's own batching of one call with every sentence).
# "node-relaxed": Node.js with --experimental-wasm-relaxed-simd, where EdgeMT runs its relaxed SIMD int8
# kernels (Chromium runs relaxed SIMD by default); "node": without, XNNPACK's SIMD128 kernels.
CONFIGS = (("bergamot", "node", "b1"), ("edgemt", "node", "b1"), ("edgemt", "node-relaxed", "b1"),
           ("bergamot", "node", "batched"), ("edgemt", "node", "b16"), ("edgemt", "node-relaxed", "b16"),
           ("edgemt", "native", "b1"), ("edgemt", "native", "b16"))
RELAXED_SIMD_FLAG = "--experimental-wasm-relaxed-simd"
CHROMIUM_CONFIGS = (("bergamot", "chromium", "b1"), ("edgemt", "chromium", "b1"))
NATIVE_BERGAMOT_CONFIGS = (("bergamot", "native", "b1"), ("bergamot", "native", "batched"))
# Firefox's worker settings (the kit's bergamot_translate.mjs), for the native driver.
NATIVE_CONFIG = """models: [{model}]
vocabs: [{vocab}, {vocab}]
shortlist: [{shortlist}, false]
gemm-precision: int8shiftAlphaAll
beam-size: 1
normalize: 1.0
word-penalty: 0
cpu-threads: 0
skip-cost: true
quiet: true
quiet-translation: true
max-length-break: 128
mini-batch-words: 1024
workspace: 128
max-length-factor: 2.0
ssplit-mode: sentence
check-bytearray: false
"""


def model_files(preset):
    """The kit's export of `preset` and its .edgemt (made once, then cached)."""
    folder = os.path.join(WORK, preset)
    vocab, lex = os.path.join(WORK, "vocab.32000.spm"), os.path.join(WORK, "lex.ende.bin")
    if not os.path.exists(lex):  # the kit's vocabulary padded to 32000 pieces, and its shortlist
        os.makedirs(WORK, exist_ok=True)
        run_child([paths.PYTHON, os.path.join(KIT, "spm_tools.py"), "pad", os.path.join(KIT, "vocab", "vocab.ende.spm"),
                   "32000", vocab])
        run_child([paths.PYTHON, os.path.join(KIT, "make_shortlist.py"), "corpus", "--vocab", vocab, "--src",
                   paths.TRAIN_EN, "--trg", TRAIN_DE, "--out", lex])
    if not os.path.exists(os.path.join(folder, "export.json")):
        run_child([paths.PYTHON, os.path.join(KIT, "export_marian.py"), "random", "--preset", preset, "--vocab",
                   vocab, "--eos-rate", "0.05", "--shortlist", lex, "--out-dir", folder])
    edgemt = folder + ".int8.edgemt"
    if not os.path.exists(edgemt):
        run_child([paths.PYTHON, os.path.join(paths.REPO, "converter", "edgemt-convert"), folder, "--out", edgemt,
                   "--quiet"])
    return dict(folder=folder, model="model.ende.intgemm.alphas.bin", vocab="vocab.ende.spm",
                shortlist="lex.50.50.ende.s2t.bin", edgemt=edgemt)


def bergamot_command(files, batch):
    f = files["folder"]
    cmd = ["node", BERGAMOT, "--model", os.path.join(f, files["model"]), "--vocab", os.path.join(f, files["vocab"]),
           "--shortlist", os.path.join(f, files["shortlist"]), "--gemm", "int8shiftAlphaAll"]
    return cmd + (["--one-by-one"] if batch == "b1" else [])


def bergamot_tokens(files, batch, sources, work):
    """Bergamot's output text and token count in `batch` mode: an untimed pass with --ids-out."""
    ids, text = os.path.join(work, "bergamot.ids"), os.path.join(work, "bergamot.ref")
    run_child(bergamot_command(files, batch) + ["--ids-out", ids], stdin=sources, stdout_path=text)
    with open(ids) as f:
        tokens = sum(len(line.split()) for line in f)
    with open(text, encoding="utf-8") as f:
        return f.read(), tokens


def run_bergamot_node(files, batch, sources, work, reference):
    timing, out = os.path.join(work, "b.json"), os.path.join(work, "b.out")
    r = run_child(bergamot_command(files, batch) + ["--warmup", str(WARMUP), "--timing", timing], stdin=sources,
                  stdout_path=out, timed=True)
    with open(timing) as f:
        t = json.load(f)
    return dict(tokens_per_s=reference[1] / (t["translate_ms"] / 1000), load_ms=t["instantiate_ms"] + t["model_ms"],
                first_ms=t["first_ms"], peak_rss_mb=r["maxrss_kb"] / 1024, lines_unlike=lines_unlike(out, reference[0]),
                tokens=reference[1])


def run_bergamot_chromium(files, sources, limit, work, reference):
    out = os.path.join(work, "page.out")
    r = run_child(["node", BERGAMOT_PAGE, "--package", os.path.join(KIT, "bergamot"), "--model-dir",
                   files["folder"], "--model", files["model"], "--vocab", files["vocab"], "--shortlist",
                   files["shortlist"], "--sources", sources, "--count", str(limit), "--warmup", str(WARMUP),
                   "--outputs", out], timed=True)
    t = json.loads(r["out"].strip().split("\n")[-1])
    return dict(tokens_per_s=reference[1] / (t["translateMs"] / 1000), load_ms=t["instantiateMs"] + t["modelMs"],
                first_ms=t["firstMs"], lines_unlike=lines_unlike(out, reference[0]), tokens=reference[1])


def run_bergamot_native(binary, files, batch, sources, work, reference):
    f = files["folder"]
    config = os.path.join(work, "bergamot-native.yml")
    with open(config, "w") as out:
        out.write(NATIVE_CONFIG.format(model=os.path.join(f, files["model"]), vocab=os.path.join(f, files["vocab"]),
                                       shortlist=os.path.join(f, files["shortlist"])))
    out = os.path.join(work, "bn.out")
    # 1 thread: Marian's float products go through OpenBLAS, which would start one per core.
    r = run_child([binary, config, "--warmup", str(WARMUP)] + (["--one-by-one"] if batch == "b1" else []),
                  stdin=sources, stdout_path=out, timed=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"),
                  env_note="OPENBLAS_NUM_THREADS=1")
    t = json.loads(r["err"].strip().split("\n")[-1])
    tokens = t["output_tokens_incl_eos"] - t["eos"]
    return dict(tokens_per_s=tokens / (t["translate_ms"] / 1000), load_ms=t["model_ms"], first_ms=t["first_ms"],
                peak_rss_mb=r["maxrss_kb"] / 1024, lines_unlike=lines_unlike(out, reference[0]), tokens=tokens)


def lines_unlike(path, expected):
    """How many lines of `path` differ from the ids pass's text (batched, the ids pass's other shortlist
    padding can change a few: its token count then stands for theirs)."""
    with open(path, encoding="utf-8") as f:
        ours = f.read().split("\n")
    theirs = expected.split("\n")
    if len(ours) != len(theirs):
        raise SystemExit("%s has %d lines, the ids pass %d" % (path, len(ours), len(theirs)))
    return sum(a != b for a, b in zip(ours, theirs))


def run_edgemt_node(files, batch, sources, limit, work, relaxed):
    """Batched: every source in one call, which sorts them by length and translates batches of `batch`."""
    timing = os.path.join(work, "e.json")
    r = run_child(["node"] + ([RELAXED_SIMD_FLAG] if relaxed else []) +
                  [os.path.join(WEB_TESTS, "translate_lines.mjs"), "--package", PACKAGE, "--model",
                   files["edgemt"], "--batch", str(batch), "--per-call", str(limit if batch > 1 else 1),
                   "--timing", timing], stdin=sources,
                  stdout_path=os.path.join(work, "e.out"), timed=True)
    with open(timing) as f:
        t = json.load(f)
    expected = "relaxed-simd" if relaxed else "simd128"
    if t["kernels"] != expected:
        raise SystemExit("EdgeMT in Node.js ran %s kernels, not %s" % (t["kernels"], expected))
    return dict(tokens_per_s=t["output_tokens"] / (t["translate_ms"] / 1000), load_ms=t["load_ms"],
                peak_rss_mb=r["maxrss_kb"] / 1024, tokens=t["output_tokens"])


def run_edgemt_native(files, batch, sources, limit):
    j = edgemt_bench.run(edgemt_bench.command(files["edgemt"], sources, threads=1, batch=batch, repeat=1,
                                              limit=limit, extra=("--sort-by-length",) if batch > 1 else ()),
                         timed=True)
    return dict(tokens_per_s=j["tokens_per_s"], load_ms=j["load_ms"], peak_rss_mb=j["child_peak_rss_kb"] / 1024,
                tokens=j["output_tokens"])


def run_edgemt_chromium(files, sources, limit, work):
    summary = os.path.join(work, "page.json")
    run_child(["node", os.path.join(WEB_TESTS, "browser_test.mjs"), "--package", PACKAGE, "--page-dir", PAGE,
               "--model", files["edgemt"], "--sources", sources, "--bench", str(limit), "--json", summary,
               "--screenshot", os.path.join(work, "page.png")], timed=True)
    with open(summary) as f:
        s = json.load(f)
    if s["kernels"] != "relaxed-simd":  # Chromium runs relaxed SIMD by default
        raise SystemExit("EdgeMT in Chromium ran %s kernels, not relaxed-simd" % s["kernels"])
    return dict(tokens_per_s=s["bench"]["tokens"] / (s["bench"]["ms"] / 1000), load_ms=s["loadMs"],
                tokens=s["bench"]["tokens"])


def sizes(files):
    """Bytes as shipped: Bergamot's three gzip'd files, EdgeMT's one file (raw and gzip -9)."""
    f = files["folder"]
    shipped = sum(os.path.getsize(os.path.join(f, name + ".gz"))
                  for name in (files["model"], files["vocab"], files["shortlist"]))
    with open(files["edgemt"], "rb") as g:
        data = g.read()
    return dict(bergamot_gz=shipped, edgemt=len(data), edgemt_gz=len(gzip.compress(data, 9)))


def label(config):
    return " ".join(config)


def measure(preset, configs, rounds, limit, work, bergamot_native=None):
    files = model_files(preset)
    sources = os.path.join(work, "dev.en")
    with open(paths.DEV_EN, encoding="utf-8") as f, open(sources, "w", encoding="utf-8") as out:
        out.writelines(f.readlines()[:limit])
    references = {batch: bergamot_tokens(files, batch, sources, work)
                  for batch in {b for engine, _, b in configs if engine == "bergamot"}}

    def run(config):
        engine, where, batch = config
        with cpu_lock("bergamot %s %s" % (preset, label(config))):
            size = 1 if batch == "b1" else EDGEMT_BATCH
            if engine == "bergamot" and where == "node":
                r = run_bergamot_node(files, batch, sources, work, references[batch])
            elif engine == "bergamot" and where == "native":
                r = run_bergamot_native(bergamot_native, files, batch, sources, work, references[batch])
            elif engine == "bergamot":
                r = run_bergamot_chromium(files, sources, limit, work, references[batch])
            elif where.startswith("node"):
                r = run_edgemt_node(files, size, sources, limit, work, relaxed=where == "node-relaxed")
            elif where == "native":
                r = run_edgemt_native(files, size, sources, limit)
            else:
                r = run_edgemt_chromium(files, sources, limit, work)
        log("%s %s: %.0f tokens/s, load %.0f ms" % (preset, label(config), r["tokens_per_s"], r["load_ms"]))
        return r

    runs = alternate(configs, rounds, run, reverse_odd=True)
    results = {label(c): {k: median([r[k] for r in runs[c]]) for k in runs[c][0]} for c in configs}
    return dict(results=results, runs={label(c): v for c, v in runs.items()}, sizes=sizes(files),
                bergamot_tokens={b: t for b, (_, t) in references.items()})


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--limit", type=int, default=200, help="dev sentences per run (default 200)")
    p.add_argument("--presets", default=",".join(PRESETS))
    p.add_argument("--no-chromium", action="store_true", help="leave out the headless Chromium pages (tiny)")
    p.add_argument("--bergamot-native", metavar="BIN", help="Bergamot's native driver, built beside the project "
                   "(see above); without it, no native Bergamot rows")
    p.add_argument("--json", default=os.path.join(paths.CACHE, "bergamot.json"))
    p.add_argument("--md", default=None)
    args = p.parse_args()
    paths.require(paths.BENCH, os.path.join(PACKAGE, "edgemt.wasm"), BERGAMOT, paths.DEV_EN)
    versions = {name: run_child([name, "--version"], record=False)["out"].strip() for name in ("node", "chromium")}
    meta = machine.start_meta(rounds=args.rounds, limit=args.limit, edgemt_batch=EDGEMT_BATCH,
                              bergamot_native=bool(args.bergamot_native), **versions)
    presets = {}
    with tempfile.TemporaryDirectory(prefix="edgemt-bergamot-bench-") as work:
        for preset in args.presets.split(","):
            configs = CONFIGS + (CHROMIUM_CONFIGS if preset == "firefox-tiny" and not args.no_chromium else ())
            configs += NATIVE_BERGAMOT_CONFIGS if args.bergamot_native else ()
            presets[preset] = measure(preset, configs, args.rounds, args.limit, work, args.bergamot_native)
    machine.finish_meta(meta, COMMANDS)
    data = dict(meta=meta, presets=presets)
    publish(section(data), data, args.json, args.md)


def section(data):
    meta = data["meta"]
    out = Section("bergamot", "Against Bergamot on Firefox's models (tests/bench/bergamot_bench.py)",
                  machine.run_header(meta, "tests/bench/bergamot_bench.py"))
    others = dict(meta, lock_rounds=[r for r in meta["lock_rounds"] if "chromium" not in r["label"]])
    out.text(machine.measured_when(others, during="a Node.js or native round (in Chromium's, its own renderer "
                                   "and GPU processes count as other)") +
             " The kit's firefox-tiny and firefox-base (random weights, 32000 pieces, outputs of natural length), "
             "int8 with the lex.50.50 shortlist: Bergamot's intgemm8 file with int8shiftAlphaAll, EdgeMT's "
             "conversion of the same folder. The first %d dev sentences, 1 thread, %d rounds alternating, medians; "
             "batched: Bergamot's own batching (one call, mini-batch-words 1024), EdgeMT batches of %d. Node.js %s, "
             "%s." % (meta["limit"], meta["rounds"], meta["edgemt_batch"], meta["node"], meta["chromium"]))
    if meta.get("bergamot_native"):
        out.text("Bergamot native: bergamot-translator 4917c11 with marian-dev e88c1aa5 and intgemm be30535 (the "
                 "sources of the npm build), built beside the project with -march=native (intgemm's AVX-512 VNNI "
                 "kernels; Debian's OpenBLAS at 1 thread for the float products; tests/bench/README.md), its "
                 "BlockingService driven as the kit's Node.js driver drives the wasm. Each engine's tokens/s counts "
                 "its own output (random weights decode differently in each; batched, Bergamot's shortlist is the "
                 "union of a whole batch's, and its outputs run longer): the output tokens stand beside.")
    for preset, p in data["presets"].items():
        r = p["results"]
        native = any("bergamot native" in name for name in r)
        rows = []
        for name, v in r.items():
            engine, where, batch = name.split()
            peer = r.get("bergamot %s %s" % ("chromium" if where == "chromium" else "node",
                                             "b1" if batch == "b1" else "batched"))
            native_peer = r.get("bergamot native %s" % ("b1" if batch == "b1" else "batched"))
            ratios = ["%.2fx" % (v["tokens_per_s"] / peer["tokens_per_s"]) if peer else ""]
            if native:
                ratios.append("%.2fx" % (v["tokens_per_s"] / native_peer["tokens_per_s"]))
            rows.append([engine, where, batch, "%.0f" % v["tokens_per_s"], "%d" % v["tokens"], *ratios,
                         "%.0f ms" % v["load_ms"], "%.0f ms" % v["first_ms"] if "first_ms" in v else "",
                         "%.0f MB" % v["peak_rss_mb"] if "peak_rss_mb" in v else ""])
        unlike = {name: v["lines_unlike"] for name, v in r.items() if "lines_unlike" in v}
        out.heading(preset)
        out.table(["engine", "in", "batch", "tokens/s", "output tokens", "of Bergamot's (wasm)"] +
                  (["of Bergamot's native"] if native else []) + ["load", "first translation", "peak RSS"], rows)
        s = p["sizes"]
        out.text("Files: Bergamot's model, vocabulary and shortlist as Firefox ships them (gzip'd) %.1f MB; "
                 "EdgeMT's one file %.1f MB (gzip -9: %.1f MB)." % (s["bergamot_gz"] / 1e6, s["edgemt"] / 1e6,
                                                                   s["edgemt_gz"] / 1e6) +
                 " Bergamot's lines whose text differs from its ids pass (median): %s." % ", ".join(
                     "%s %d" % (name, n) for name, n in unlike.items()))
    return out.code(merged_commands(meta["commands"], merge_all=True), "every command")


if __name__ == "__main__":
    main()
