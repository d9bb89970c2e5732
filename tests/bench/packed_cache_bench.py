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
reuses run_benchmarks.py's helpers: run_child (child processes, the CPU share of other
processes from /proc/stat), machine_info, git_info, the command log.
"""

import argparse
import contextlib
import datetime
import fcntl
import glob
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_benchmarks as rb  # noqa: E402  (helpers only: its main() does not run on import)

REPO = rb.REPO
BENCH = os.path.join(REPO, "build", "bin", "edgemt-bench")
TRANSLATE = os.path.join(REPO, "build", "bin", "edgemt-translate")
FIXED_IDS = os.path.join(REPO, "build", "bench-cache", "fixed-100x32.ids")
LOCK_PATH = "/tmp/edgemt-cpu.lock"

MODELS = {
    "base": dict(file="build/bench-cache/base/base.int8.edgemt", input=("--input-ids", FIXED_IDS)),
    "tiny": dict(file="build/bench-cache/tiny/tiny.int8.edgemt", input=("--input-ids", FIXED_IDS)),
    "multi30k": dict(file="models/multi30k-ende.int8.edgemt", input=("--input", rb.DEV_EN)),
}

GOAL_WARM_LOAD_MS = 15.0          # base int8, warm cache, better of 1 and 2 threads
GOAL_SECOND_PACKED_SHARE = 0.10   # second process: at most its arena + 10% of the packed size
GOAL_TRANSLATORS_FACTOR = 1.2     # 4 translators on one Model: at most 1.2x the memory of one

MEMORY_MAX_LENGTH = 8             # section 2 (and the arena reported for it)
HANDSHAKE_TIMEOUT_S = 120
SETTLE_S = 0.2                    # pause before each used-memory reading


def log(message):
    rb.log(message)


# --------------------------------------------------------------------------
# processes
# --------------------------------------------------------------------------

ROUNDS = []  # per locked round: its label, wall time and the CPU share of other processes during it


def own_cpu_s():
    """CPU seconds of this script and of its children waited for (every measured process is)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@contextlib.contextmanager
def cpu_lock(label):
    """Holds flock(/tmp/edgemt-cpu.lock), as `flock /tmp/edgemt-cpu.lock CMD` does, so that no other
    measurement runs beside ours, and records the CPU that other processes used meanwhile (/proc/stat's
    busy time minus ours, per wall second: over a whole round, as a process of a few ms is shorter than the
    10 ms tick /proc/stat counts in)."""
    fd = os.open(LOCK_PATH, os.O_RDONLY | os.O_CREAT, 0o666)
    try:
        start = time.time()
        fcntl.flock(fd, fcntl.LOCK_EX)
        if time.time() - start > 1:
            log("waited %.1f s for %s" % (time.time() - start, LOCK_PATH))
        busy0, own0, t0 = rb.busy_cpu_seconds(), own_cpu_s(), time.perf_counter()
        yield
        wall = time.perf_counter() - t0
        other = max(0.0, rb.busy_cpu_seconds() - busy0 - (own_cpu_s() - own0)) / wall
        ROUNDS.append(dict(label=label, wall_s=round(wall, 3), other_load=round(other, 3)))
    finally:
        os.close(fd)  # releases the lock


def warm_files(*paths):
    for path in paths:
        if path:
            rb.warm_page_cache(path)


def bench(model, threads, max_length=2, cache_dir=None, translators=1):
    """One edgemt-bench process (one source, one pass, no profiling): its JSON, plus the CPU share other
    processes took while it ran."""
    cmd = [BENCH, "--model", model["path"], model["input"][0], model["input"][1], "--threads", str(threads),
           "--limit", "1", "--repeat", "1", "--profile-passes", "0", "--max-length", str(max_length)]
    if cache_dir:
        cmd += ["--packed-cache", cache_dir]
    if translators != 1:
        cmd += ["--translators", str(translators)]
    r = rb.run_child(cmd)
    j = json.loads(r["out"])
    j["other_load"] = r["other_load"]
    j["wall_s"] = round(r["wall_s"], 3)
    return j


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
    cmd = [TRANSLATE, "--model", model["path"], "--input-ids", "--output-ids", "--threads", "1",
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
            raise SystemExit("FAILED: no answer from %s\n%s" % (rb.show(self.cmd), self.stderr()))
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
            raise SystemExit("FAILED (%d): %s\n%s" % (rc, rb.show(self.cmd), err))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def maps_file(pid, path):
    with open("/proc/%d/maps" % pid) as f:
        return path in f.read()


# --------------------------------------------------------------------------
# 1. load time
# --------------------------------------------------------------------------

def load_summary(runs):
    none = [r["load_ms"] for r in runs["none"]]
    cache = [r["load_ms"] for r in runs["cache"]]
    ratios = [a / b for a, b in zip(none, cache)]
    return dict(
        no_cache_median_ms=round(statistics.median(none), 3), cache_median_ms=round(statistics.median(cache), 3),
        no_cache_model_load_median_ms=round(statistics.median(r["model_load_ms"] for r in runs["none"]), 3),
        cache_model_load_median_ms=round(statistics.median(r["model_load_ms"] for r in runs["cache"]), 3),
        ratio_median=round(statistics.median(ratios), 2), ratio_min=round(min(ratios), 2),
        ratio_max=round(max(ratios), 2), no_cache_ms=[round(v, 3) for v in none], cache_ms=[round(v, 3) for v in cache],
        other_load=[r["other_load"] for r in runs["none"] + runs["cache"]])


def measure_load(model, rounds):
    """The first load (packs, writes the file), then no cache against the warm cache, alternating."""
    cache_dir = model["cache_dir"]
    with cpu_lock("%s first load" % model["name"]):
        warm_files(model["path"])
        first = bench(model, 1, cache_dir=cache_dir)
    expect_cache(first, "packed", "%s: first load with an empty cache directory" % model["name"])
    packed = the_cache_file(cache_dir)
    model["packed_path"] = packed
    out = dict(first_load_ms=first["load_ms"], packed_file=packed, packed_bytes=os.path.getsize(packed),
               rounds=rounds, threads={})
    for threads in (1, 2):
        log("%s: load time, %d thread(s), %d rounds" % (model["name"], threads, rounds))
        runs = dict(none=[], cache=[])
        for i in range(rounds):
            with cpu_lock("%s load %dt" % (model["name"], threads)):
                warm_files(model["path"], packed)
                a = bench(model, threads)
                b = bench(model, threads, cache_dir=cache_dir)
            expect_cache(a, "none", "%s %dt round %d without cache" % (model["name"], threads, i + 1))
            expect_cache(b, "loaded", "%s %dt round %d with the warm cache" % (model["name"], threads, i + 1))
            runs["none"].append(a)
            runs["cache"].append(b)
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
    med = lambda key: statistics.median(r[key] for r in rows)  # noqa: E731
    inc = [r["used_increase_kb"] for r in rows]
    return dict(used_increase_median_kb=med("used_increase_kb"), used_increase_min_kb=min(inc),
                used_increase_max_kb=max(inc), drift_median_kb=med("drift_kb"),
                raw_used_increase_median_kb=med("raw_used_increase_kb"),
                drift_max_abs_kb=max(abs(r["drift_kb"]) for r in rows),
                pss_median_kb=med("pss_kb"), pss_anon_median_kb=med("pss_anon_kb"),
                pss_file_median_kb=med("pss_file_kb"), rss_median_kb=med("rss_kb"), rounds=rows)


def measure_memory(model, rounds, ids_line):
    log("%s: second process memory, %d rounds" % (model["name"], rounds))
    with cpu_lock("%s arena" % model["name"]):
        arena = bench(model, 1, max_length=MEMORY_MAX_LENGTH)["arena_bytes"]
    cmds = [translate_cmd(model, model["cache_dir"]), translate_cmd(model, None)]
    for cmd in cmds:
        rb.COMMANDS.append(rb.show(cmd) + "    # process A, then B: one line of ids in, one out, kept alive")
    rows = dict(cache=[], none=[])
    for _ in range(rounds):
        with cpu_lock("%s memory" % model["name"]):
            warm_files(model["path"], model["packed_path"])
            rows["cache"].append(memory_round(model, ids_line, model["cache_dir"]))
            rows["none"].append(memory_round(model, ids_line, None))
    packed_bytes = os.path.getsize(model["packed_path"])
    bound_kb = (arena + GOAL_SECOND_PACKED_SHARE * packed_bytes) / 1024
    out = dict(arena_bytes=arena, packed_bytes=packed_bytes, bound_kb=round(bound_kb, 1),
               cache=memory_summary(rows["cache"]), none=memory_summary(rows["none"]), rounds=rounds,
               commands=[rb.show(c) for c in cmds])
    out["met"] = out["cache"]["used_increase_median_kb"] <= bound_kb
    return out


# --------------------------------------------------------------------------
# 3. four translators on one Model
# --------------------------------------------------------------------------

def measure_translators(model, rounds):
    log("%s: 1 vs 4 translators, %d rounds" % (model["name"], rounds))
    one, four = [], []
    for _ in range(rounds):
        with cpu_lock("%s translators" % model["name"]):
            warm_files(model["path"])
            one.append(bench(model, 1, translators=1))
            four.append(bench(model, 1, translators=4))
    for j in four:
        if j["translators"] != 4:
            raise SystemExit("FAILED: edgemt-bench --translators 4 reported %s" % j["translators"])
    r1 = [j["rss_after_create_kb"] for j in one]
    r4 = [j["rss_after_create_kb"] for j in four]
    ratios = [b / a for a, b in zip(r1, r4)]
    out = dict(rounds=rounds, arena_bytes=one[0]["arena_bytes"], rss1_kb=r1, rss4_kb=r4,
               rss1_median_kb=statistics.median(r1), rss4_median_kb=statistics.median(r4),
               ratio_median=round(statistics.median(ratios), 3), ratio_min=round(min(ratios), 3),
               ratio_max=round(max(ratios), 3), other_load=[j["other_load"] for j in one + four])
    out["per_extra_translator_kb"] = round((out["rss4_median_kb"] - out["rss1_median_kb"]) / 3, 1)
    out["met"] = out["ratio_median"] <= GOAL_TRANSLATORS_FACTOR
    return out


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------

def mb(kb=None, b=None, digits=1):
    value = b / 1e6 if b is not None else kb * 1024 / 1e6
    return "%.*f" % (digits, value)


def yes(flag):
    return "yes" if flag else "**no**"


def goals(results):
    rows = []
    base = results["models"].get("base")
    if base:
        best = min(("1", "2"), key=lambda t: base["load"]["threads"][t]["cache_median_ms"])
        ms = base["load"]["threads"][best]["cache_median_ms"]
        rows.append(dict(goal="With a warm packed cache, base int8 is ready to translate (edgemt-bench load_ms, "
                              "median, better of 1/2 threads)",
                         target="≤ %.0f ms" % GOAL_WARM_LOAD_MS,
                         measured="%.1f ms (%s thread%s; no cache %.1f ms)" %
                                  (ms, best, "s" if best == "2" else "",
                                   base["load"]["threads"][best]["no_cache_median_ms"]),
                         met=ms <= GOAL_WARM_LOAD_MS))
    for name, r in results["models"].items():
        m = r["memory"]
        rows.append(dict(goal="%s: a second process translating with the same model and cache adds at most its "
                              "arena + 10%% of the packed size (used memory, median)" % name,
                         target="≤ %s MB (%s + %s)" % (mb(kb=m["bound_kb"]), mb(b=m["arena_bytes"]),
                                                       mb(b=GOAL_SECOND_PACKED_SHARE * m["packed_bytes"])),
                         measured="%s MB (B's PSS %s MB)" % (mb(kb=m["cache"]["used_increase_median_kb"]),
                                                             mb(kb=m["cache"]["pss_median_kb"])),
                         met=m["met"]))
    for name, r in results["models"].items():
        t = r["translators"]
        rows.append(dict(goal="%s: 4 translators on one Model take at most 1.2x the memory of one "
                              "(rss_after_create_kb, median of per-round ratios)" % name,
                         target="≤ %.1fx" % GOAL_TRANSLATORS_FACTOR,
                         measured="%.3fx (%s → %s MB)" % (t["ratio_median"], mb(kb=t["rss1_median_kb"]),
                                                         mb(kb=t["rss4_median_kb"])),
                         met=t["met"]))
    return rows


def markdown(results, meta):
    lines = []
    w = lines.append
    models = results["models"]
    w("## Packed-weights cache (tests/bench/packed_cache_bench.py)")
    w("")
    w("Measured %s at commit %s%s on %s (%d cores, %s MB RAM), in %.1f min; int8 models; every comparison in "
      "alternating processes while holding `flock /tmp/edgemt-cpu.lock`; page cache warm (model and cache file "
      "read before each round). Rounds: %s. MB = 10^6 bytes." %
      (meta["date"], meta["git"]["short"], " (uncommitted changes)" if meta["git"]["dirty"] else "",
       meta["machine"]["cpu_model"], meta["machine"]["cores"], meta["machine"]["mem_total_mb"],
       meta["duration_s"] / 60, ", ".join("%s %d" % (n, r["rounds"]) for n, r in models.items())))
    for note in meta["notes"]:
        w("")
        w("Note: " + note)
    w("")
    w("### Goals")
    w("")
    w("| Goal | Target | Measured | Met |")
    w("|---|---|---|---|")
    for g in results["goals"]:
        w("| %s | %s | %s | %s |" % (g["goal"], g["target"], g["measured"], yes(g["met"])))
    w("")

    w("### Load time: ready to translate")
    w("")
    w("edgemt-bench's load_ms (Model::Load + Translator::Create) without a cache (the weights are packed) and with "
      "a warm cache file (mapped and checksummed), median over the rounds; the ratio is no cache / cache per round. "
      "model_load_ms is Model::Load alone. The first load into an empty cache directory (packs, writes and fsyncs "
      "the file) is shown once, at 1 thread. Checked: every warm-cache run reported packed_cache \"loaded\", "
      "every other \"none\", the first \"packed\".")
    w("")
    w("| Model | Threads | No cache (ms) | Warm cache (ms) | Ratio median (range) | model_load_ms no cache / cache | "
      "First load, writing the cache (ms) |")
    w("|---|---:|---:|---:|---|---|---:|")
    for name, r in models.items():
        for t in ("1", "2"):
            s = r["load"]["threads"][t]
            w("| %s | %s | %.1f | %.1f | %.1fx (%.1f–%.1f) | %.2f / %.2f | %s |" %
              (name, t, s["no_cache_median_ms"], s["cache_median_ms"], s["ratio_median"], s["ratio_min"],
               s["ratio_max"], s["no_cache_model_load_median_ms"], s["cache_model_load_median_ms"],
               "%.1f" % r["load"]["first_load_ms"] if t == "1" else ""))
    w("")

    w("### A second process: memory")
    w("")
    w("Process A (edgemt-translate, 1 thread, --max-length %d) translates one line and stays alive; then B starts "
      "the same way: B's PSS/RSS (/proc/B/smaps_rollup) and the increase of the machine's used memory "
      "(MemTotal − MemAvailable − the free pages in the per-CPU lists of /proc/zoneinfo) from just before B starts "
      "to after B's answer, median over the rounds (range in brackets); drift is the same reading over an equal "
      "interval with nothing started; \"MemAvailable only\" is the increase without the per-CPU correction. "
      "Bound = B's arena (edgemt-bench arena_bytes, --threads 1 --max-length %d, batch 1) + 10%% of the packed "
      "size. Input for every model: the first line of build/bench-cache/fixed-100x32.ids (33 ids). Checked: "
      "with the cache both A and B map the cache file (/proc/PID/maps), without it neither does, and neither "
      "writes anything to stderr." % (MEMORY_MAX_LENGTH, MEMORY_MAX_LENGTH))
    w("")
    w("| Model | Packed file (MB) | B's arena (MB) | Bound (MB) | Cache | Used memory + (MB) | Drift (MB) | "
      "MemAvailable only (MB) | B's PSS (MB) | Pss_Anon | Pss_File | Rss | Met |")
    w("|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---|")
    for name, r in models.items():
        m = r["memory"]
        for kind, label in (("cache", "warm cache"), ("none", "none (packs its own)")):
            s = m[kind]
            w("| %s | %s | %s | %s | %s | %s (%s–%s) | %s | %s | %s | %s | %s | %s | %s |" %
              (name, mb(b=m["packed_bytes"]), mb(b=m["arena_bytes"]), mb(kb=m["bound_kb"]), label,
               mb(kb=s["used_increase_median_kb"]), mb(kb=s["used_increase_min_kb"]), mb(kb=s["used_increase_max_kb"]),
               mb(kb=s["drift_median_kb"]), mb(kb=s["raw_used_increase_median_kb"]), mb(kb=s["pss_median_kb"]), mb(kb=s["pss_anon_median_kb"]),
               mb(kb=s["pss_file_median_kb"]), mb(kb=s["rss_median_kb"]),
               yes(s["used_increase_median_kb"] <= m["bound_kb"]) if kind == "cache" else "–"))
    w("")
    w("The arena is allocated in full at Translator::Create, but only the pages a translation touches become "
      "resident, so B's resident share of it (one short sentence, --max-length %d) is below the arena size the "
      "bound allows. With the cache, B's Pss_File holds its half of the packed file's pages, which A and B share "
      "through the page cache; they count as cache, not as used memory. Without it, each process packs its own "
      "anonymous copy (Pss_Anon). MemAvailable alone is not enough here: pages a process frees go to the per-CPU "
      "free lists, which MemAvailable does not count, and the next process takes them from there, so MemAvailable "
      "alone can miss its memory entirely (the \"MemAvailable only\" column)." % MEMORY_MAX_LENGTH)
    w("")

    w("### Four translators on one Model")
    w("")
    w("edgemt-bench --translators 1 against --translators 4 (1 thread, --max-length 2, no cache file), alternating: "
      "resident memory once all translators exist, before any translation (rss_after_create_kb; arenas allocated, "
      "not touched), median over the rounds; the ratio is per round.")
    w("")
    w("| Model | Arena per translator (MB) | RSS, 1 translator (MB) | RSS, 4 translators (MB) | Per extra translator "
      "(MB) | Ratio 4/1 median (range) |")
    w("|---|---:|---:|---:|---:|---|")
    for name, r in models.items():
        t = r["translators"]
        w("| %s | %s | %s | %s | %s | %.3fx (%.3f–%.3f) |" %
          (name, mb(b=t["arena_bytes"]), mb(kb=t["rss1_median_kb"]), mb(kb=t["rss4_median_kb"]),
           mb(kb=t["per_extra_translator_kb"], digits=2), t["ratio_median"], t["ratio_min"], t["ratio_max"]))
    w("")
    w("The previous behaviour (each translator packing its own copy of the weights) cannot be reproduced with this "
      "build, so no before figure is given: only the numbers measured here.")
    w("")

    w("### Machine state")
    w("")
    loads = [r["other_load"] for r in meta["lock_rounds"]]
    mi = meta["machine"]
    w("| | |")
    w("|---|---|")
    w("| Date | %s |" % meta["date"])
    w("| Commit | %s (%s)%s |" % (meta["git"]["short"], meta["git"]["subject"],
                                  ", with uncommitted changes" if meta["git"]["dirty"] else ""))
    w("| CPU | %s, %d cores%s; SIMD: %s |" % (mi["cpu_model"], mi["cores"], ", virtual machine" if mi["hypervisor"] else "",
                                           " ".join(mi["simd_flags"])))
    w("| Memory, kernel | %s MB, Linux %s%s |" % (mi["mem_total_mb"], mi["kernel"],
                                               ", Debian " + mi["debian"] if mi.get("debian") else ""))
    w("| Load average at start | %s (1, 5, 15 min) |" % ", ".join("%.2f" % x for x in meta["loadavg_start"]))
    w("| Load average at end | %s |" % ", ".join("%.2f" % x for x in meta["loadavg_end"]))
    w("| Other processes' CPU during the measurement | median %.3f, max %.3f cores over %d locked rounds of "
      "%.2f–%.2f s (/proc/stat busy time minus this script's and its children's, per wall second) |" %
      (statistics.median(loads), max(loads), len(loads), min(r["wall_s"] for r in meta["lock_rounds"]),
       max(r["wall_s"] for r in meta["lock_rounds"])))
    w("| Duration | %.1f min |" % (meta["duration_s"] / 60))
    w("")
    w("Commands (a repeated command once, with its count):")
    w("")
    sink = []
    rb.write_commands(sink.append, meta["commands"], merge_all=True)
    lines += sink
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5, help="rounds per comparison (default 5)")
    p.add_argument("--base-rounds", type=int, default=None, help="rounds for base (default: --rounds)")
    p.add_argument("--models", default="base,tiny,multi30k", help="comma-separated subset of base,tiny,multi30k")
    p.add_argument("--json", default=os.path.join(REPO, "build", "bench-cache", "packed-cache.json"))
    p.add_argument("--md", default=None, help="also write the Markdown to this file")
    p.add_argument("--cache-dir", default=os.path.join(REPO, "build", "bench-cache", "packed-cache-bench"),
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
        m = dict(MODELS[name], name=name, path=os.path.join(REPO, MODELS[name]["file"]))
        missing = [f for f in (m["path"], m["input"][1]) if not os.path.exists(f)]
        if missing:
            notes.append("%s skipped: %s missing." % (name, ", ".join(rb.rel(f) for f in missing)))
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


def relative_paths(text):
    return text.replace(rb.SHARED + "/", "../shared/").replace(REPO + "/", "")


def main():
    args = parse_args()
    t0 = time.time()
    for path in (BENCH, TRANSLATE, FIXED_IDS):
        if not os.path.exists(path):
            raise SystemExit("missing %s (build/bin is built by cmake; the ids by run_benchmarks.py)" % path)
    notes = []
    models = select_models(args, notes)
    if not models:
        raise SystemExit("no model to measure: " + " ".join(notes))
    if args.base_rounds and "base" in models and args.base_rounds != args.rounds:
        notes.append("base ran %d rounds instead of %d, to keep the run short." % (args.base_rounds, args.rounds))
    for m in models.values():
        empty_cache_dir(m["cache_dir"])
    with open(FIXED_IDS) as f:
        ids_line = f.readline().strip()

    meta = dict(machine=rb.machine_info(), git=rb.git_info(), loadavg_start=list(os.getloadavg()),
                date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                rounds={n: m["rounds"] for n, m in models.items()}, notes=notes, memory_input_ids=ids_line)
    log("measuring %s; load average %.2f %.2f %.2f" % (", ".join(models), *meta["loadavg_start"]))
    results = dict(models={})
    for name, m in models.items():
        r = dict(rounds=m["rounds"])
        r["load"] = measure_load(m, m["rounds"])
        r["memory"] = measure_memory(m, m["rounds"], ids_line)
        r["translators"] = measure_translators(m, m["rounds"])
        results["models"][name] = r
    meta["loadavg_end"] = list(os.getloadavg())
    meta["duration_s"] = round(time.time() - t0, 1)
    meta["commands"] = list(rb.COMMANDS)
    meta["lock_rounds"] = ROUNDS
    results["goals"] = goals(results)

    text = relative_paths(markdown(results, meta))
    sys.stdout.write(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        f.write(relative_paths(json.dumps(dict(meta=meta, goals=results["goals"], models=results["models"]),
                                          indent=1)) + "\n")
    log("wrote %s%s in %.1f min" % (rb.rel(args.json), " and " + args.md if args.md else "",
                                    meta["duration_s"] / 60))
    failed = [g["goal"] for g in results["goals"] if not g["met"]]
    if failed:
        log("goals not met: %d of %d" % (len(failed), len(results["goals"])))


if __name__ == "__main__":
    main()
