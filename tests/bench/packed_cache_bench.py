#!/usr/bin/python3
"""Measures the packed-weights cache (TranslatorOptions::packed_cache_dir, --packed-cache DIR).

    tests/bench/packed_cache_bench.py                       # all models, 5 rounds (~35 s here)
    tests/bench/packed_cache_bench.py --rounds 3 --models tiny --md /tmp/packed.md

Prints a Markdown section ("## Packed-weights cache (tests/bench/packed_cache_bench.py)")
on stdout, writes the figures as JSON (--json, default build/bench-cache/packed-cache.json)
and, with --md FILE, the Markdown to FILE as well. Uses the binaries in build/bin
(it builds nothing) and the int8 models

  base      build/bench-cache/base/base.int8.edgemt   (sources: build/bench-cache/fixed-100x32.ids)
  tiny      build/bench-cache/tiny/tiny.int8.edgemt   (same sources)
  multi30k  models/multi30k-ende.int8.edgemt          (sources: ../shared/data/multi30k/dev.en;
                                                        skipped with a note when it is missing)

The cache files go to --cache-dir (default build/bench-cache/packed-cache-bench/<model>/),
whose cache files are removed at the start so that the first load packs and writes the file.

1. Load time: edgemt-bench's load_ms (Model::Load + Translator::Create, "ready to translate")
   without a cache and with the warm cache, in alternating processes (no cache, cache, no
   cache, ...) for --rounds rounds, at 1 and 2 threads, with the model and cache file read
   beforehand (warm page cache). Every cache run must report packed_cache "loaded" and every
   other "none", or the script stops.
2. A second process's memory: process A (edgemt-translate --input-ids --output-ids
   --threads 1 --max-length 8, with or without --packed-cache) reads one line of ids from a
   pipe and writes its translation, then stays alive; process B does the same. B's
   /proc/PID/smaps_rollup (Pss, Pss_Anon, Pss_File, Rss) and the machine's used memory
   (MemTotal - MemAvailable from /proc/meminfo, minus the free pages held in the per-CPU
   lists, /proc/zoneinfo) just before B starts and after B's answer give what the second
   process adds. The same interval with nothing started gives the drift.
3. Four translators on one Model: edgemt-bench --translators 1 against --translators 4
   (alternating), rss_after_create_kb.

Every measured process runs while this script holds flock(/tmp/edgemt-cpu.lock) (one lock
per round of a comparison), the lock the other benchmark users of this machine take. It
uses the harness in tests/bench/benchlib (child processes, the CPU share of other processes,
machine metadata, the command log).
"""

import argparse
import contextlib
import glob
import os
import select
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import edgemt_bench, machine, paths  # noqa: E402
from benchlib.alternation import alternate  # noqa: E402
from benchlib.load import cpu_lock  # noqa: E402
from benchlib.log import log  # noqa: E402
from benchlib.markdown import merged_commands, yes  # noqa: E402
from benchlib.processes import COMMANDS, show, warm_page_cache  # noqa: E402
from benchlib.section import Section, publish  # noqa: E402
from benchlib.stats import median, spread  # noqa: E402

MODELS = {
    "base": dict(file="build/bench-cache/base/base.int8.edgemt", fixed=True, source=paths.FIXED_IDS),
    "tiny": dict(file="build/bench-cache/tiny/tiny.int8.edgemt", fixed=True, source=paths.FIXED_IDS),
    "multi30k": dict(file="models/multi30k-ende.int8.edgemt", fixed=False, source=paths.DEV_EN),
}

GOAL_WARM_LOAD_MS = 15.0          # base int8, warm cache, better of 1 and 2 threads
GOAL_SECOND_PACKED_SHARE = 0.10   # second process: at most its arena + 10% of the packed size
GOAL_TRANSLATORS_FACTOR = 1.2     # 4 translators on one Model: at most 1.2x the memory of one

MEMORY_MAX_LENGTH = 8             # section 2 (and the arena reported for it)
HANDSHAKE_TIMEOUT_S = 120
SETTLE_S = 0.2                    # pause before each used-memory reading


# --------------------------------------------------------------------------
# processes
# --------------------------------------------------------------------------

def bench(model, threads, max_length=2, cache_dir=None, translators=1):
    """One edgemt-bench process (one source, one pass, no profiling): its JSON, plus the CPU share other
    processes took while it ran."""
    extra = ["--max-length", str(max_length)] + (["--packed-cache", cache_dir] if cache_dir else [])
    extra += ["--translators", str(translators)] if translators != 1 else []
    return edgemt_bench.run(edgemt_bench.command(model["path"], model["source"], model["fixed"], threads, limit=1,
                                                 extra=extra))


def expect_cache(j, expected, what):
    if j["packed_cache"] != expected:
        raise SystemExit("FAILED: %s: edgemt-bench reported packed_cache %r, expected %r" %
                         (what, j["packed_cache"], expected))


def the_cache_file(cache_dir):
    files = sorted(glob.glob(os.path.join(cache_dir, "*.packed")))
    if len(files) != 1:
        raise SystemExit("FAILED: expected one .packed file in %s, found %s" % (cache_dir, files))
    return files[0]


def per_cpu_free_kb():
    """Free pages held in the per-CPU page lists (/proc/zoneinfo, "count:" of every zone's pagesets)."""
    with open("/proc/zoneinfo") as f:
        pages = sum(int(line.split()[1]) for line in f if line.strip().startswith("count:"))
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def used_memory_kb():
    """(MemTotal - MemAvailable, the same minus the per-CPU free lists) in KiB. MemAvailable leaves out
    the free pages the per-CPU lists hold (here tens of MB): pages a process frees go there and the next
    one takes them from there, so MemAvailable alone can miss a new process's memory entirely.
    Mapped file pages in the page cache count as available, so a shared cache file counts once, as cache."""
    values = {}
    with open("/proc/meminfo") as f:
        for line in f:
            key, rest = line.split(":", 1)
            values[key] = int(rest.split()[0])
    raw = values["MemTotal"] - values["MemAvailable"]
    return raw, raw - per_cpu_free_kb()


def smaps_rollup(pid):
    keys = ("Rss", "Pss", "Pss_Anon", "Pss_File")
    out = {}
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            key = line.split(":", 1)[0]
            if key in keys:
                out[key.lower() + "_kb"] = int(line.split()[1])
    return out


def translate_cmd(model, cache_dir):
    cmd = [paths.TRANSLATE, "--model", model["path"], "--input-ids", "--output-ids", "--threads", "1",
           "--max-length", str(MEMORY_MAX_LENGTH)]
    return cmd + (["--packed-cache", cache_dir] if cache_dir else [])


class LineProcess:
    """edgemt-translate reading from a pipe: one line in, one line out, then kept alive."""

    def __init__(self, cmd):
        self.cmd = cmd
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err)
        self.pid = self.proc.pid

    def translate(self, line):
        self.proc.stdin.write((line.strip() + "\n").encode())
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], HANDSHAKE_TIMEOUT_S)
        answer = self.proc.stdout.readline() if ready else b""
        if not answer:
            self.kill()
            raise SystemExit("FAILED: no answer from %s\n%s" % (show(self.cmd), self.stderr()))
        return answer.decode().strip()

    def stderr(self):
        self.err.seek(0)
        return self.err.read().decode("utf-8", "replace")

    def finish(self):
        """Closes its input and checks that it ended well, without a word on stderr (a cache warning)."""
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=60)
        err = self.stderr()
        if rc != 0 or err.strip():
            raise SystemExit("FAILED (%d): %s\n%s" % (rc, show(self.cmd), err))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def maps_file(pid, path):
    with open("/proc/%d/maps" % pid) as f:
        return path in f.read()


@contextlib.contextmanager
def locked_round(label, *files):
    """One round of a comparison: under the CPU lock, with the files read first (warm page cache)."""
    with cpu_lock(label):
        warm_page_cache(*files)
        yield


# --------------------------------------------------------------------------
# 1. load time
# --------------------------------------------------------------------------

def load_summary(runs):
    none, cache = [r["load_ms"] for r in runs["none"]], [r["load_ms"] for r in runs["cache"]]
    ratio = spread([a / b for a, b in zip(none, cache)], 2)
    return dict(
        no_cache_median_ms=round(median(none), 3), cache_median_ms=round(median(cache), 3),
        no_cache_model_load_median_ms=round(median(r["model_load_ms"] for r in runs["none"]), 3),
        cache_model_load_median_ms=round(median(r["model_load_ms"] for r in runs["cache"]), 3),
        ratio_median=ratio["median"], ratio_min=ratio["min"], ratio_max=ratio["max"],
        no_cache_ms=[round(v, 3) for v in none], cache_ms=[round(v, 3) for v in cache],
        other_load=[r["other_load"] for r in runs["none"] + runs["cache"]])


def first_load(model):
    """The first load into the emptied cache directory: packs and writes the cache file."""
    with locked_round("%s first load" % model["name"], model["path"]):
        first = bench(model, 1, cache_dir=model["cache_dir"])
    expect_cache(first, "packed", "%s: first load with an empty cache directory" % model["name"])
    model["packed_path"] = the_cache_file(model["cache_dir"])
    return first


def measure_load(model, rounds):
    """The first load (packs, writes the file), then no cache against the warm cache, alternating."""
    first = first_load(model)
    packed = model["packed_path"]
    out = dict(first_load_ms=first["load_ms"], packed_file=packed, packed_bytes=os.path.getsize(packed),
               rounds=rounds, threads={})
    for threads in (1, 2):
        log("%s: load time, %d thread(s), %d rounds" % (model["name"], threads, rounds))

        def run(kind):
            j = bench(model, threads, cache_dir=model["cache_dir"] if kind == "cache" else None)
            expect_cache(j, "loaded" if kind == "cache" else "none", "%s %dt %s" % (model["name"], threads, kind))
            return j
        runs = alternate(["none", "cache"], rounds, run, round_context=lambda i: locked_round(
            "%s load %dt" % (model["name"], threads), model["path"], packed))
        out["threads"][str(threads)] = load_summary(runs)
    return out


# --------------------------------------------------------------------------
# 2. second process memory
# --------------------------------------------------------------------------

def memory_round(model, ids_line, cache_dir):
    """A answers, then B: B's smaps_rollup and the used-memory increase across B's start; then the same
    interval with nothing started (drift)."""
    cmd = translate_cmd(model, cache_dir)
    procs = []
    try:
        a = LineProcess(cmd)
        procs.append(a)
        a.translate(ids_line)
        time.sleep(SETTLE_S)
        used0 = used_memory_kb()
        t0 = time.perf_counter()
        b = LineProcess(cmd)
        procs.append(b)
        b.translate(ids_line)
        startup_s = time.perf_counter() - t0
        time.sleep(SETTLE_S)
        used1 = used_memory_kb()
        rollup = smaps_rollup(b.pid)
        packed = model["packed_path"]
        for p, name in ((a, "A"), (b, "B")):
            if maps_file(p.pid, packed) != bool(cache_dir):
                raise SystemExit("FAILED: %s: process %s %s the cache file %s" %
                                 (model["name"], name, "does not map" if cache_dir else "maps", packed))
        c0 = used_memory_kb()
        time.sleep(startup_s + SETTLE_S)
        c1 = used_memory_kb()
        for p in procs:
            p.finish()
    finally:
        for p in procs:
            p.kill()
    return dict(used_increase_kb=used1[1] - used0[1], drift_kb=c1[1] - c0[1], startup_s=round(startup_s, 3),
                raw_used_increase_kb=used1[0] - used0[0], raw_drift_kb=c1[0] - c0[0], **rollup)


def memory_summary(rows):
    def med(key):
        return median(r[key] for r in rows)
    inc = spread(r["used_increase_kb"] for r in rows)
    return dict(used_increase_median_kb=inc["median"], used_increase_min_kb=inc["min"],
                used_increase_max_kb=inc["max"], drift_median_kb=med("drift_kb"),
                raw_used_increase_median_kb=med("raw_used_increase_kb"),
                drift_max_abs_kb=max(abs(r["drift_kb"]) for r in rows),
                pss_median_kb=med("pss_kb"), pss_anon_median_kb=med("pss_anon_kb"),
                pss_file_median_kb=med("pss_file_kb"), rss_median_kb=med("rss_kb"), rounds=rows)


def measure_memory(model, rounds, ids_line):
    log("%s: second process memory, %d rounds" % (model["name"], rounds))
    with cpu_lock("%s arena" % model["name"]):
        arena = bench(model, 1, max_length=MEMORY_MAX_LENGTH)["arena_bytes"]
    dirs = dict(cache=model["cache_dir"], none=None)
    cmds = [translate_cmd(model, dirs[k]) for k in ("cache", "none")]
    for cmd in cmds:
        COMMANDS.append(show(cmd) + "    # process A, then B: one line of ids in, one out, kept alive")
    rows = alternate(["cache", "none"], rounds, lambda kind: memory_round(model, ids_line, dirs[kind]),
                     round_context=lambda i: locked_round("%s memory" % model["name"], model["path"],
                                                          model["packed_path"]))
    packed_bytes = os.path.getsize(model["packed_path"])
    bound_kb = (arena + GOAL_SECOND_PACKED_SHARE * packed_bytes) / 1024
    out = dict(arena_bytes=arena, packed_bytes=packed_bytes, bound_kb=round(bound_kb, 1),
               cache=memory_summary(rows["cache"]), none=memory_summary(rows["none"]), rounds=rounds,
               commands=[show(c) for c in cmds])
    out["met"] = out["cache"]["used_increase_median_kb"] <= bound_kb
    return out


# --------------------------------------------------------------------------
# 3. four translators on one Model
# --------------------------------------------------------------------------

def measure_translators(model, rounds):
    log("%s: 1 vs 4 translators, %d rounds" % (model["name"], rounds))
    runs = alternate([1, 4], rounds, lambda n: bench(model, 1, translators=n),
                     round_context=lambda i: locked_round("%s translators" % model["name"], model["path"]))
    for j in runs[4]:
        if j["translators"] != 4:
            raise SystemExit("FAILED: edgemt-bench --translators 4 reported %s" % j["translators"])
    r1, r4 = [j["rss_after_create_kb"] for j in runs[1]], [j["rss_after_create_kb"] for j in runs[4]]
    ratio = spread([b / a for a, b in zip(r1, r4)], 3)
    out = dict(rounds=rounds, arena_bytes=runs[1][0]["arena_bytes"], rss1_kb=r1, rss4_kb=r4,
               rss1_median_kb=median(r1), rss4_median_kb=median(r4), ratio_median=ratio["median"],
               ratio_min=ratio["min"], ratio_max=ratio["max"], other_load=[j["other_load"] for j in runs[1] + runs[4]])
    out["per_extra_translator_kb"] = round((out["rss4_median_kb"] - out["rss1_median_kb"]) / 3, 1)
    out["met"] = out["ratio_median"] <= GOAL_TRANSLATORS_FACTOR
    return out


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------

def mb(kb=None, b=None, digits=1):
    value = b / 1e6 if b is not None else kb * 1024 / 1e6
    return "%.*f" % (digits, value)


def goal_rows(results):
    rows = []
    base = results["models"].get("base")
    if base:
        by_threads = base["load"]["threads"]
        best = min(("1", "2"), key=lambda t: by_threads[t]["cache_median_ms"])
        ms = by_threads[best]["cache_median_ms"]
        rows.append(dict(goal="With a warm packed cache, base int8 is ready to translate (edgemt-bench load_ms, "
                              "median, better of 1/2 threads)", target="≤ %.0f ms" % GOAL_WARM_LOAD_MS,
                         measured="%.1f ms (%s thread%s; no cache %.1f ms)" % (
                             ms, best, "s" if best == "2" else "", by_threads[best]["no_cache_median_ms"]),
                         met=ms <= GOAL_WARM_LOAD_MS))
    for name, r in results["models"].items():
        m = r["memory"]
        rows.append(dict(goal="%s: a second process translating with the same model and cache adds at most its "
                              "arena + 10%% of the packed size (used memory, median)" % name,
                         target="≤ %s MB (%s + %s)" % (mb(kb=m["bound_kb"]), mb(b=m["arena_bytes"]),
                                                       mb(b=GOAL_SECOND_PACKED_SHARE * m["packed_bytes"])),
                         measured="%s MB (B's PSS %s MB)" % (mb(kb=m["cache"]["used_increase_median_kb"]),
                                                             mb(kb=m["cache"]["pss_median_kb"])), met=m["met"]))
    for name, r in results["models"].items():
        t = r["translators"]
        rows.append(dict(goal="%s: 4 translators on one Model take at most 1.2x the memory of one "
                              "(rss_after_create_kb, median of per-round ratios)" % name,
                         target="≤ %.1fx" % GOAL_TRANSLATORS_FACTOR, met=t["met"],
                         measured="%.3fx (%s → %s MB)" % (t["ratio_median"], mb(kb=t["rss1_median_kb"]),
                                                         mb(kb=t["rss4_median_kb"]))))
    return rows


def load_section(s, models):
    what = "load time per model and thread count"
    s.heading("Load time: ready to translate", what)
    s.text("edgemt-bench's load_ms (Model::Load + Translator::Create) without a cache (the weights are packed) and "
           "with a warm cache file (mapped and checksummed), median over the rounds; the ratio is no cache / cache "
           "per round. model_load_ms is Model::Load alone. The first load into an empty cache directory (packs, "
           "writes and fsyncs the file) is shown once, at 1 thread. Checked: every warm-cache run reported "
           "packed_cache \"loaded\", every other \"none\", the first \"packed\".", what)
    rows = []
    for name, r in models.items():
        for t in ("1", "2"):
            x = r["load"]["threads"][t]
            rows.append([name, t, "%.1f" % x["no_cache_median_ms"], "%.1f" % x["cache_median_ms"],
                         "%.1fx (%.1f–%.1f)" % (x["ratio_median"], x["ratio_min"], x["ratio_max"]),
                         "%.2f / %.2f" % (x["no_cache_model_load_median_ms"], x["cache_model_load_median_ms"]),
                         "%.1f" % r["load"]["first_load_ms"] if t == "1" else ""])
    s.table(["Model", "Threads", "No cache (ms)", "Warm cache (ms)", "Ratio median (range)",
             "model_load_ms no cache / cache", "First load, writing the cache (ms)"], rows, what,
            align=["---", "---:", "---:", "---:", "---", "---", "---:"])


MEMORY_METHOD = (
    "Process A (edgemt-translate, 1 thread, --max-length %d) translates one line and stays alive; then B starts the "
    "same way: B's PSS/RSS (/proc/B/smaps_rollup) and the increase of the machine's used memory (MemTotal − "
    "MemAvailable − the free pages in the per-CPU lists of /proc/zoneinfo) from just before B starts to after B's "
    "answer, median over the rounds (range in brackets); drift is the same reading over an equal interval with "
    "nothing started; \"MemAvailable only\" is the increase without the per-CPU correction. Bound = B's arena "
    "(edgemt-bench arena_bytes, --threads 1 --max-length %d, batch 1) + 10%% of the packed size. Input for every "
    "model: the first line of build/bench-cache/fixed-100x32.ids (33 ids). Checked: with the cache both A and B "
    "map the cache file (/proc/PID/maps), without it neither does, and neither writes anything to stderr.")
MEMORY_READING = (
    "The arena is allocated in full at Translator::Create, but only the pages a translation touches become "
    "resident, so B's resident share of it (one short sentence, --max-length %d) is below the arena size the bound "
    "allows. With the cache, B's Pss_File holds its half of the packed file's pages, which A and B share through "
    "the page cache; they count as cache, not as used memory. Without it, each process packs its own anonymous "
    "copy (Pss_Anon). MemAvailable alone is not enough here: pages a process frees go to the per-CPU free lists, "
    "which MemAvailable does not count, and the next process takes them from there, so MemAvailable alone can "
    "miss its memory entirely (the \"MemAvailable only\" column).")


def memory_rows(models):
    rows = []
    for name, r in models.items():
        m = r["memory"]
        for kind, label in (("cache", "warm cache"), ("none", "none (packs its own)")):
            x = m[kind]
            rows.append([name, mb(b=m["packed_bytes"]), mb(b=m["arena_bytes"]), mb(kb=m["bound_kb"]), label,
                         "%s (%s–%s)" % (mb(kb=x["used_increase_median_kb"]), mb(kb=x["used_increase_min_kb"]),
                                         mb(kb=x["used_increase_max_kb"])),
                         mb(kb=x["drift_median_kb"]), mb(kb=x["raw_used_increase_median_kb"]),
                         mb(kb=x["pss_median_kb"]), mb(kb=x["pss_anon_median_kb"]), mb(kb=x["pss_file_median_kb"]),
                         mb(kb=x["rss_median_kb"]),
                         yes(x["used_increase_median_kb"] <= m["bound_kb"]) if kind == "cache" else "–"])
    return rows


def memory_section(s, models):
    what = "a second process's memory per model, with and without the cache"
    s.heading("A second process: memory", what)
    s.text(MEMORY_METHOD % (MEMORY_MAX_LENGTH, MEMORY_MAX_LENGTH), what)
    s.table(["Model", "Packed file (MB)", "B's arena (MB)", "Bound (MB)", "Cache", "Used memory + (MB)", "Drift (MB)",
             "MemAvailable only (MB)", "B's PSS (MB)", "Pss_Anon", "Pss_File", "Rss", "Met"], memory_rows(models), what,
            align=["---", "---:", "---:", "---:", "---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---"])
    s.text(MEMORY_READING % MEMORY_MAX_LENGTH, what)


def translators_section(s, models):
    what = "1 against 4 translators per model"
    s.heading("Four translators on one Model", what)
    s.text("edgemt-bench --translators 1 against --translators 4 (1 thread, --max-length 2, no cache file), "
           "alternating: resident memory once all translators exist, before any translation (rss_after_create_kb; "
           "arenas allocated, not touched), median over the rounds; the ratio is per round.", what)
    s.table(["Model", "Arena per translator (MB)", "RSS, 1 translator (MB)", "RSS, 4 translators (MB)",
             "Per extra translator (MB)", "Ratio 4/1 median (range)"],
            [[name, mb(b=t["arena_bytes"]), mb(kb=t["rss1_median_kb"]), mb(kb=t["rss4_median_kb"]),
              mb(kb=t["per_extra_translator_kb"], digits=2),
              "%.3fx (%.3f–%.3f)" % (t["ratio_median"], t["ratio_min"], t["ratio_max"])]
             for name, t in ((n, r["translators"]) for n, r in models.items())], what,
            align=["---", "---:", "---:", "---:", "---:", "---"])
    s.text("The previous behaviour (each translator packing its own copy of the weights) cannot be reproduced with "
           "this build, so no before figure is given: only the numbers measured here.", what)


def machine_section(s, meta):
    what = "the machine's state"
    loads, mi = [r["other_load"] for r in meta["lock_rounds"]], meta["machine"]
    walls = [r["wall_s"] for r in meta["lock_rounds"]]
    s.heading("Machine state", what)
    s.table(["", ""], [
        ["Date", meta["date"]],
        ["Commit", "%s (%s)%s" % (meta["git"]["short"], meta["git"]["subject"],
                                  ", with uncommitted changes" if meta["git"]["dirty"] else "")],
        ["CPU", "%s, %d cores%s; SIMD: %s" % (mi["cpu_model"], mi["cores"], ", virtual machine" if mi["hypervisor"]
                                              else "", " ".join(mi["simd_flags"]))],
        ["Memory, kernel", "%s MB, Linux %s%s" % (mi["mem_total_mb"], mi["kernel"],
                                                  ", Debian " + mi["debian"] if mi.get("debian") else "")],
        ["Load average at start", "%s (1, 5, 15 min)" % ", ".join("%.2f" % x for x in meta["loadavg_start"])],
        ["Load average at end", ", ".join("%.2f" % x for x in meta["loadavg_end"])],
        ["Other processes' CPU during the measurement", "median %.3f, max %.3f cores over %d locked rounds of "
         "%.2f–%.2f s (/proc/stat busy time minus this script's and its children's, per wall second)" % (
             median(loads), max(loads), len(loads), min(walls), max(walls))],
        ["Duration", "%.1f min" % (meta["duration_s"] / 60)]], what)


def section(results, meta):
    models = results["models"]
    s = Section("packed-cache", "Packed-weights cache (tests/bench/packed_cache_bench.py)",
                machine.run_header(meta, "tests/bench/packed_cache_bench.py"))
    s.text("Measured %s at commit %s%s on %s (%d cores, %s MB RAM), in %.1f min; int8 models; every comparison in "
           "alternating processes while holding `flock /tmp/edgemt-cpu.lock`; page cache warm (model and cache file "
           "read before each round). Rounds: %s. MB = 10^6 bytes." % (
               meta["date"], meta["git"]["short"], " (uncommitted changes)" if meta["git"]["dirty"] else "",
               meta["machine"]["cpu_model"], meta["machine"]["cores"], meta["machine"]["mem_total_mb"],
               meta["duration_s"] / 60, ", ".join("%s %d" % (n, r["rounds"]) for n, r in models.items())))
    for note in meta["notes"]:
        s.text("Note: " + note)
    s.heading("Goals")
    s.table(["Goal", "Target", "Measured", "Met"],
            [[g["goal"], g["target"], g["measured"], yes(g["met"])] for g in results["goals"]])
    load_section(s, models)
    memory_section(s, models)
    translators_section(s, models)
    machine_section(s, meta)
    return s.code(merged_commands(meta["commands"], merge_all=True), "every command (a repeated one once, with its count)")


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5, help="rounds per comparison (default 5)")
    p.add_argument("--base-rounds", type=int, default=None, help="rounds for base (default: --rounds)")
    p.add_argument("--models", default="base,tiny,multi30k", help="comma-separated subset of base,tiny,multi30k")
    p.add_argument("--json", default=os.path.join(paths.CACHE, "packed-cache.json"))
    p.add_argument("--md", default=None, help="also write the Markdown to this file")
    p.add_argument("--cache-dir", default=os.path.join(paths.CACHE, "packed-cache-bench"),
                   help="parent of the per-model cache directories (emptied first)")
    args = p.parse_args()
    args.models = [m for m in args.models.split(",") if m]
    unknown = [m for m in args.models if m not in MODELS]
    if unknown or args.rounds < 1:
        p.error("unknown model(s) %s or --rounds < 1" % unknown)
    return args


def select_models(args, notes):
    chosen = {}
    for name in args.models:
        m = dict(MODELS[name], name=name, path=os.path.join(paths.REPO, MODELS[name]["file"]))
        missing = [f for f in (m["path"], m["source"]) if not os.path.exists(f)]
        if missing:
            notes.append("%s skipped: %s missing." % (name, ", ".join(paths.rel(f) for f in missing)))
            continue
        m["cache_dir"] = os.path.join(args.cache_dir, name)
        m["rounds"] = args.base_rounds if name == "base" and args.base_rounds else args.rounds
        chosen[name] = m
    return chosen


def empty_cache_dir(path):
    """Creates the directory (the runtime makes DIR itself, but not its missing parents) and removes the cache
    files in it (only those), so that the first load packs and writes."""
    os.makedirs(path, exist_ok=True)
    for f in glob.glob(os.path.join(path, "*.packed")) + glob.glob(os.path.join(path, "*.packed.tmp.*")):
        os.unlink(f)


def main():
    args = parse_args()
    paths.require(paths.BENCH, paths.TRANSLATE, paths.FIXED_IDS)
    notes = []
    models = select_models(args, notes)
    if not models:
        raise SystemExit("no model to measure: " + " ".join(notes))
    if args.base_rounds and "base" in models and args.base_rounds != args.rounds:
        notes.append("base ran %d rounds instead of %d, to keep the run short." % (args.base_rounds, args.rounds))
    for m in models.values():
        empty_cache_dir(m["cache_dir"])
    with open(paths.FIXED_IDS) as f:
        ids_line = f.readline().strip()
    meta = machine.start_meta(rounds={n: m["rounds"] for n, m in models.items()}, notes=notes,
                              memory_input_ids=ids_line)
    log("measuring %s; load average %.2f %.2f %.2f" % (", ".join(models), *meta["loadavg_start"]))
    results = dict(models={})
    for name, m in models.items():
        results["models"][name] = dict(rounds=m["rounds"], load=measure_load(m, m["rounds"]),
                                       memory=measure_memory(m, m["rounds"], ids_line),
                                       translators=measure_translators(m, m["rounds"]))
    machine.finish_meta(meta, COMMANDS)
    results["goals"] = goal_rows(results)
    publish(section(results, meta), dict(meta=meta, goals=results["goals"], models=results["models"]), args.json,
            args.md)
    log("wrote %s%s in %.1f min" % (paths.rel(args.json), " and " + args.md if args.md else "", meta["duration_s"] / 60))
    failed = [g["goal"] for g in results["goals"] if not g["met"]]
    if failed:
        log("goals not met: %d of %d" % (len(failed), len(results["goals"])))


if __name__ == "__main__":
    main()
