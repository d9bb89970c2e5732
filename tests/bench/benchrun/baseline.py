"""--baseline REV: this tree against an earlier commit, measured in the same run.

A git worktree of REV in BUILD/bench-baseline/src (created or moved to REV), built in Release into
BUILD/bench-baseline/build (edgemt-bench and edgemt-translate; that tree's own dependencies, e.g. Debian's
libxnnpack-dev for 76ad1be), its models converted by its own converter into CACHE/baseline/ (the trained
model's int8 calibrated on ../shared/data/multi30k/train.en when that converter has --calibration; the random
checkpoints are the same as this tree's). Then, int8 only, for every model: batch 1 and batch 32 at 1 and 2
threads (edgemt-bench) and peak RSS (edgemt-translate), in alternating processes, baseline then this tree,
for --baseline-rounds rounds per configuration, so that the VM's drift affects both alike.
"""
import hashlib
import os
import subprocess

from benchlib.alternation import alternate
from benchlib.log import log
from benchlib.machine import build_info
from benchlib.models import RANDOM_CHECKPOINT, convert
from benchlib.paths import DEV_EN, REPO, TRAIN_EN, rel
from benchlib.processes import COMMANDS, show, warm_page_cache
from benchlib.stats import median

from .build import build
from .measure import bench, translate_rss

TARGETS = ["edgemt-bench", "edgemt-translate"]
BUILDS = ("baseline", "new")
# (key, batch, threads) of the edgemt-bench runs per model and build.
CONFIGS = (("b1_t1", 1, 1), ("b1_t2", 1, 2), ("b32_t1", 32, 1), ("b32_t2", 32, 2))
# What the comparison reports: key, label, runs ("b1"/"b32" edgemt-bench, "rss" edgemt-translate), field,
# which is better, digits.
MEASURES = (
    ("b1_ms", "batch 1: ms per sentence", "b1", "median_ms_per_sentence", "lower", 3),
    ("b1_tokens", "batch 1: tokens/s", "b1", "tokens_per_s", "higher", 0),
    ("b32_ms", "batch 32: ms per sentence", "b32", "median_ms_per_sentence", "lower", 3),
    ("b32_tokens", "batch 32: tokens/s", "b32", "tokens_per_s", "higher", 0),
    ("encoder_ms", "encoder ms per sentence (batch 1)", "b1", "encoder_ms_per_sentence", "lower", 3),
    ("decoder_step_ms", "decoder ms per step (batch 1)", "b1", "decoder_ms_per_step", "lower", 4),
    ("load_ms", "load ms (Model::Load + Translator::Create)", "b1", "load_ms", "lower", 1),
    ("peak_rss_mb", "peak RSS MB (edgemt-translate)", "rss", "peak_rss_mb", "lower", 1),
)
BENCH_KEEP = ("sentences", "output_tokens", "median_ms_per_sentence", "min_ms_per_sentence", "tokens_per_s",
              "best_tokens_per_s", "encoder_ms_per_sentence", "decoder_ms_per_step", "load_ms", "model_load_ms",
              "arena_bytes", "allocations_while_translating", "self_peak_rss_kb", "child_peak_rss_kb",
              "other_load", "wall_s", "command")


def git(*args, cwd=REPO):
    r = subprocess.run(["git", "-C", cwd] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("git %s failed:\n%s" % (" ".join(args), r.stderr[-2000:]))
    return r.stdout.strip()


def resolve_commit(rev):
    r = subprocess.run(["git", "-C", REPO, "rev-parse", "--verify", "--quiet", rev + "^{commit}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("--baseline %s: not a commit of this repository" % rev)
    return r.stdout.strip()


def worktree(rev, build_dir):
    """A detached git worktree of REV in BUILD/bench-baseline/src (created, or moved to REV)."""
    commit = resolve_commit(rev)
    src = os.path.join(build_dir, "bench-baseline", "src")
    if os.path.exists(os.path.join(src, ".git")):
        if git("rev-parse", "HEAD", cwd=src) != commit:
            cmd = ["git", "-C", src, "checkout", "--quiet", "--detach", commit]
            log(show(cmd))
            COMMANDS.append(show(cmd))
            git(*cmd[3:], cwd=src)
        else:
            COMMANDS.append("(exists) " + show(["git", "worktree", "add", "--detach", src, commit]))
    else:
        if os.path.exists(src) and os.listdir(src):
            raise SystemExit("%s exists and is not a git worktree: remove it" % rel(src))
        git("worktree", "prune")
        cmd = ["git", "worktree", "add", "--detach", src, commit]
        log(show(cmd))
        COMMANDS.append(show(cmd))
        git(*cmd[1:])
    return dict(rev=rev, commit=commit, short=git("rev-parse", "--short", commit),
                subject=git("log", "-1", "--format=%s", commit), src=src)


def baseline_models(base, cache_dir, models):
    """The benchmark models in the baseline's own format, converted by its own converter: int8 only; the
    trained model calibrated on train.en when the converter has --calibration (as its run_benchmarks.py
    did), the random checkpoints the same as this tree's."""
    cli = os.path.join(base["src"], "converter", "edgemt-convert")
    if not os.path.exists(cli):
        raise SystemExit("the baseline %s has no converter/edgemt-convert" % base["short"])
    with open(os.path.join(base["src"], "converter", "edgemt_convert", "cli.py")) as f:
        calibrates = '"--calibration"' in f.read()
    with open(RANDOM_CHECKPOINT, "rb") as f:
        stamp = "baseline %s %s" % (base["commit"], hashlib.sha256(f.read()).hexdigest()[:16])
    files, conversions = {}, {}
    for name, m in models.items():
        d = os.path.join(cache_dir, "baseline", name)
        os.makedirs(d, exist_ok=True)
        trained = m["kind"] == "trained"
        out = os.path.join(d, "multi30k-ende.int8.edgemt" if trained else "%s.int8.edgemt" % name)
        extra = ["--calibration", TRAIN_EN] if trained and calibrates else []
        log("baseline %s: %s int8" % (base["short"], name))
        conversions[name] = convert(m["checkpoint"], out, "int8", stamp, extra, cli=cli)
        files[name] = out
    note = ("the trained model's int8 calibrated on `../shared/data/multi30k/train.en`, the random checkpoints on "
            "its default calibration data" if calibrates else "no calibration option")
    return files, conversions, note


def prepare(rev, build_dir, cache_dir, models, no_build):
    """The worktree, build and conversions of --baseline; returns the state the measurement needs."""
    base = worktree(rev, build_dir)
    base["build_dir"] = os.path.join(build_dir, "bench-baseline", "build")
    hint = ("\nthe baseline %s builds with its own dependencies (its tools/install-deps.sh); for EdgeMT before "
            "XNNPACK 2024-11: apt-get install libxnnpack-dev libpthreadpool-dev libcpuinfo-dev" % base["short"])
    # Both builds link the same kernel archives, so that the comparison is of
    # EdgeMT's code: a baseline from before a change to tools/kernel-deps.sh
    # would otherwise build and link its own.
    kernels = build_info(build_dir).get("EDGEMT_KERNEL_DEPS_PREFIX")
    cmake_args = ["-DEDGEMT_KERNEL_DEPS_PREFIX=" + kernels] if kernels else []
    base["bins"], base["build"] = build(base["build_dir"], no_build, source=base["src"], targets=TARGETS, hint=hint,
                                        cmake_args=cmake_args)
    base["files"], base["conversions"], base["calibration_note"] = baseline_models(base, cache_dir, models)
    return base


def compare_builds(bins, files, models, fixed_ids, work, p):
    """bins/files: {"baseline": ..., "new": ...}. Every configuration runs `rounds` times as a baseline process
    followed by a new one (A B A B ...), so both see the same drift of the machine."""
    runs = {}
    for name, m in models.items():
        fixed = m["kind"] == "random"
        source = fixed_ids if fixed else DEV_EN
        runs[name] = {}
        for key, batch, threads in CONFIGS:
            limit = p[name]["b1" if batch == 1 else "b32"]
            log("baseline vs new: %s int8, batch %d, %d thread(s), %d rounds" % (name, batch, threads, p["rounds"]))

            def one(b):  # batch 1: one profiled pass too, where edgemt-bench counts the decoder steps
                warm_page_cache(files[b][name])
                j = bench(bins[b], files[b][name], source, threads, batch, p["repeat"], limit, fixed, int(batch == 1))
                return {k: j[k] for k in BENCH_KEEP if k in j}
            runs[name][key] = alternate(BUILDS, p["rounds"], one)
        for threads in (1, 2):
            log("baseline vs new: %s int8, peak RSS of edgemt-translate, %d thread(s)" % (name, threads))

            def rss(b):
                warm_page_cache(files[b][name])
                r = translate_rss(bins[b], files[b][name], source, threads, fixed, p["rss_limit"], work)
                del r["output"]
                return dict(r, peak_rss_mb=round(r["peak_rss_kb"] * 1024 / 1e6, 2))
            runs[name]["rss_t%d" % threads] = alternate(BUILDS, p["rounds"], rss)
    return runs


def _build_value(R, kind, field, better, b):
    """A build's median at its better thread count: dict(value, threads, by_threads, values) or None."""
    by_threads = {}
    for t in (1, 2):
        values = [x[field] for x in R.get("%s_t%d" % (kind, t), {}).get(b, [])
                  if x.get(field) is not None and x[field] > 0]
        if values:
            by_threads["t%d" % t] = dict(median=median(values), values=values)
    if not by_threads:
        return None
    pick = (min if better == "lower" else max)(by_threads, key=lambda t: by_threads[t]["median"])
    return dict(value=by_threads[pick]["median"], threads=int(pick[1:]),
                by_threads={t: v["median"] for t, v in by_threads.items()}, values=by_threads[pick]["values"])


def summarize_builds(runs):
    """Per model and measure: each build's median over the rounds at 1 and 2 threads, the better of the two,
    the ratio new / baseline and the per-round ratios (round i of each build at its better thread count)."""
    summary = {}
    for name, R in runs.items():
        rows = {}
        for key, label, kind, field, better, digits in MEASURES:
            builds = {b: _build_value(R, kind, field, better, b) for b in BUILDS}
            if None in builds.values():
                continue
            ratio = builds["new"]["value"] / builds["baseline"]["value"]
            pairs = [n / b for n, b in zip(builds["new"]["values"], builds["baseline"]["values"])]
            rows[key] = dict(label=label, better=better, digits=digits, baseline=builds["baseline"],
                             new=builds["new"], ratio=round(ratio, 4),
                             speedup=round(1 / ratio if better == "lower" else ratio, 4),
                             round_ratios=[round(x, 4) for x in pairs])
        tokens = {b: [x["output_tokens"] for x in R["b1_t1"][b]][:1] for b in BUILDS}
        summary[name] = dict(measures=rows, b1_output_tokens={b: (v[0] if v else None) for b, v in tokens.items()})
    return summary
