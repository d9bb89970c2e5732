"""The measurement of a configuration (model, dtype, threads, batch): edgemt-bench for speed and profile,
edgemt-translate for peak RSS, load times, and 1 vs 2 threads in alternating processes."""
import os

from benchlib import edgemt_bench
from benchlib.alternation import alternate
from benchlib.log import log
from benchlib.paths import DEV_EN, rel
from benchlib.processes import COMMANDS, run_child
from benchlib.stats import median


def bench(bins, model_file, source, threads, batch, repeat, limit, fixed, profile_passes, output=None, timed=True):
    """One edgemt-bench process; fixed: `source` holds ids and exactly 32 tokens come out."""
    cmd = edgemt_bench.command(model_file, source, fixed, threads, batch, repeat, profile_passes,
                               length=32 if fixed else None, limit=limit,
                               extra=["--output", output] if output else [], binary=bins["edgemt-bench"])
    return edgemt_bench.run(cmd, timed=timed)


def translate_rss(bins, model_file, source, threads, fixed, limit, work):
    """Peak RSS of edgemt-translate loading the model and translating the inputs, one sentence at a time
    (--batch-size 1: the batch the goals' arena is planned for; the CLI's default batch of 16 plans more,
    see the section "Translating files" for memory per batch size)."""
    src = source
    if limit:
        src = os.path.join(work, "rss-input-%d.txt" % limit)
        with open(source) as f:
            lines = f.readlines()[:limit]
        with open(src, "w") as f:
            f.writelines(lines)
    cmd = [bins["edgemt-translate"], "--model", model_file, "--threads", str(threads), "--batch-size", "1"]
    if fixed:
        cmd += ["--input-ids", "--output-ids", "--min-length", "32", "--max-length", "32"]
    out = os.path.join(work, "translate-out.txt")
    r = run_child(cmd, stdin=src, stdout_path=out)
    return dict(peak_rss_kb=r["maxrss_kb"], wall_s=round(r["wall_s"], 2), threads=threads,
                sentences=limit or sum(1 for _ in open(source)), command=COMMANDS[-1], output=out)


def thread_pairs(bins, model_file, source, fixed, limit, rounds):
    """1 vs 2 threads in alternating child processes (t1, t2, t1, t2, ...): on this VM the speed of the machine
    drifts by up to ~10% over minutes, which separate runs would book to the thread count."""
    runs = alternate([1, 2], rounds, lambda t: bench(bins, model_file, source, t, 1, 1, limit, fixed, 0)[
        "min_ms_per_sentence"])
    pairs = list(zip(runs[1], runs[2]))
    return dict(rounds=rounds, limit=limit, ms_t1_t2=[[round(a, 4), round(b, 4)] for a, b in pairs],
                median_ratio=round(median(b / a for a, b in pairs), 4))


def load_times(bins, model_file, source, fixed, runs, threads):
    values, model_values = [], []
    for _ in range(runs):
        j = bench(bins, model_file, source, threads, 1, 1, 1, fixed, 0, timed=False)
        values.append(j["load_ms"])
        model_values.append(j.get("model_load_ms", 0.0))
    return dict(runs=runs, median_ms=round(median(values), 2), min_ms=round(min(values), 2),
                model_load_median_ms=round(median(model_values), 3), all_ms=[round(v, 2) for v in values])


def process_baseline(bins, work):
    """What any edgemt-translate process takes: a micro random model (program, libraries, stdio)."""
    micro = os.path.join(work, "micro.int8.edgemt")
    run_child([bins["edgemt-bench-model"], micro, "--preset", "micro", "--int8"])
    micro_ids = os.path.join(work, "micro.ids")
    with open(micro_ids, "w") as f:
        f.write("".join(" ".join(str(10 + (i + s) % 32) for i in range(32)) + " 3\n" for s in range(5)))
    r = run_child([bins["edgemt-translate"], "--model", micro, "--threads", "1", "--input-ids", "--output-ids",
                   "--min-length", "32", "--max-length", "32"], stdin=micro_ids,
                  stdout_path=os.path.join(work, "micro.out"))
    return dict(baseline_rss_kb=r["maxrss_kb"], baseline_file_bytes=os.path.getsize(micro))


def measure_file(bins, name, dtype, path, source, fixed, p, work):
    """One model file: load times, batch 1 (and 32 for the random models) at 1 and 2 threads, peak RSS, and
    1 vs 2 threads alternating."""
    cfg, limit = p[name], p[name]["limit"][dtype]
    r = dict(file=rel(path), file_bytes=os.path.getsize(path), runs={})
    log("%s %s: load time, 1 and 2 threads" % (name, dtype))
    r["load"] = load_times(bins, path, source, fixed, p["load_runs"], 1)
    r["load_t2"] = load_times(bins, path, source, fixed, p["load_runs"], 2)
    for threads in (1, 2):
        log("%s %s: batch 1, %d thread(s)" % (name, dtype, threads))
        output = os.path.join(work, "edgemt-%s-%s-%dt.%s" % (name, dtype, threads, "ids" if fixed else "de"))
        run = bench(bins, path, source, threads, 1, p["repeat"], limit, fixed, p["profile_passes"], output)
        run["output_file"] = output
        r["runs"]["b1_t%d" % threads] = run
        if fixed:
            log("%s %s: batch 32, %d thread(s)" % (name, dtype, threads))
            r["runs"]["b32_t%d" % threads] = bench(bins, path, source, threads, 32, p["repeat"],
                                                   cfg["batch32"][dtype], fixed, 1)
        log("%s %s: peak RSS of edgemt-translate, %d thread(s)" % (name, dtype, threads))
        r["rss_t%d" % threads] = translate_rss(bins, path, source, threads, fixed, limit, work)
    log("%s %s: 1 vs 2 threads, alternating" % (name, dtype))
    r["thread_pairs"] = thread_pairs(bins, path, source, fixed, cfg["pairs"][dtype], p["pair_rounds"])
    return r


def measure_edgemt(bins, models, fixed_ids, p, work):
    """{model: {dtype: figures}} for every model and dtype."""
    out = {}
    for name, m in models.items():
        fixed = m["kind"] == "random"
        source = fixed_ids if fixed else DEV_EN
        out[name] = {dtype: measure_file(bins, name, dtype, m["files"][dtype], source, fixed, p, work)
                     for dtype in ("int8", "float32")}
    return out
