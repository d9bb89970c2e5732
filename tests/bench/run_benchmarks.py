#!/usr/bin/python3
"""Runs EdgeMT's benchmark table and writes BENCHMARKS.md and BENCHMARKS.json.

    tests/bench/run_benchmarks.py             # the full table (<= 20 min here)
    tests/bench/run_benchmarks.py --quick     # a few sentences, 1 repetition:
                                              # checks the driver, writes
                                              # build/bench-quick/BENCHMARKS.md
    tests/bench/run_benchmarks.py --baseline 76ad1be   # the table, and this
                                              # tree against commit 76ad1be
                                              # (+5-10 min; the first time
                                              # +3 min to build and convert)

Models:
  multi30k  the trained example (../shared/models/multi30k-ende): the 500 dev
            sentences, normal stopping; int8 is models/multi30k-ende.int8.edgemt
            when it is committed in the format this tree reads, else a
            conversion; float32 is converted
  tiny      random checkpoint (make_random_checkpoint.py --preset tiny)
  base      random checkpoint (--preset base); both decoded to exactly 32
            tokens from 100 sources of 32 ids (line s: 10 + (i + s) % 32 for
            i in 0..31, then </s> = 3)

Checkpoints and converted files are cached in build/bench-cache/<model>/,
keyed by the converter's sources (a changed converter reconverts).

Every measured program runs as a child process; its peak resident memory is
its ru_maxrss as /usr/bin/time reports it. Not os.wait4's: Linux carries the
high-water mark of the image exec replaces over into ru_maxrss, so a child
forked from this (~20 MB) Python process would never report less than that.
/usr/bin/time forks the program from its own small image. EdgeMT figures come from
build/bin/edgemt-bench (tests/bench/edgemt_bench.cc) at 1 and 2 threads,
memory from build/bin/edgemt-translate translating the same inputs. The
PyTorch reference (Debian's python3-torch, no KV cache, as
../shared/models/multi30k-ende/reference.py) runs in the same invocation:
reference.py for multi30k, tests/bench/torch_fixed_length.py for the random
checkpoints. PyTorch links the BLAS that libblas.so.3 resolves to; Debian's
default (libblas3, the reference BLAS) is 10x slower than OpenBLAS, so unless
--torch-blas system is given the PyTorch children run with Debian's
libopenblas0-openmp (the installed one, else unpacked from `apt-get download`
into build/bench-cache/openblas, without touching the system's
alternatives), and BENCHMARKS.md says which.

The decoder-step floor: for each model, build/bin/edgemt-xnnpack-gemm-bench
times the int8 Linear layers of one decoder step (per decoder layer the fused
self-attention QKV d->3d, the self-attention output, the cross-attention
query and output d->d, the feed-forward d->d_ff and d_ff->d; then the output
projection d->vocab; rows = 1) alone with the XNNPACK the runtime links,
each shape on its own and all of them in order (--shapes ... --sequence).

--baseline REV compares this tree with an earlier commit in the same run: a
git worktree of REV in build/bench-baseline/src (created or moved to REV),
built in Release into build/bench-baseline/build (edgemt-bench and
edgemt-translate; that tree's own dependencies, e.g. Debian's libxnnpack-dev
for 76ad1be), its models converted by its own converter into
build/bench-cache/baseline/ (the trained model's int8 calibrated on
../shared/data/multi30k/train.en when that converter has --calibration; the
random checkpoints are the same as this tree's). Then, int8 only, for every
model: batch 1 and batch 32 at 1 and 2 threads (edgemt-bench) and peak RSS
(edgemt-translate), in alternating processes, baseline then this tree, for
--baseline-rounds rounds (default 3) per configuration, so that the VM's
drift affects both alike. BENCHMARKS.md gets a section "XNNPACK 2024-11
against the previous build (REV)": per model the better of 1 and 2 threads
of each build, the ratio this tree / baseline, the decoder step against its
floor and the goals of the comparison.

Options: --quick, --out FILE (default BENCHMARKS.md in the repository root;
the JSON beside it), --report-only (rewrite BENCHMARKS.md from its JSON and
tests/bench/ANALYSIS.md, measuring nothing), --build-dir, --cache-dir, --no-build, --models
multi30k,tiny,base, --repeat N (default 3), --skip-torch, --skip-xnnpack
(also skips the decoder-step floor unless --baseline is given),
--torch-blas openblas|system, --generated-models (tiny and base files
written by build/bin/edgemt-bench-model instead of converted checkpoints:
no converter needed, random weights, speed only; the
PyTorch runs still use the checkpoints, so their outputs differ; the
baseline still converts them), --wait-quiet SECONDS (wait up to that long
for the 1-minute load average to fall to --quiet-load, default 0.5),
--baseline REV, --baseline-rounds N.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deployment_sizes  # noqa: E402  (beside this script)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared"))
MULTI30K = os.path.join(SHARED, "models", "multi30k-ende")
DEV_EN = os.path.join(SHARED, "data", "multi30k", "dev.en")
DEV_DE = os.path.join(SHARED, "data", "multi30k", "dev.de")
PYTHON = "/usr/bin/python3"

# Goals (measured, never asserted): see BENCHMARKS.md "Goals". The speed goals were set at twice what
# CTranslate2 4.8 gave when they were set; the ratios to CTranslate2 printed beside them come only from
# tests/bench/peer_bench.py's run (--peer-json), never from these numbers.
GOAL_TINY_TOKS = 5900
GOAL_BASE_TOKS = 570
GOAL_MULTI30K_MS = 1.8
FLOOR_BASE_STEP_HOT_MS = 0.45
FLOOR_BASE_STEP_COLD_MS = 1.0
FLOOR_TINY_STEP_MS = 0.07
GOAL_BASE_XNNPACK_SHARE = 0.80
GOAL_RSS_FACTOR = 1.3
GOAL_BASE_LOAD_MS = 100.0

T0 = time.time()
COMMANDS = []  # every command run, in order, for BENCHMARKS.md


def log(message):
    print("[%6.1fs] %s" % (time.time() - T0, message), file=sys.stderr, flush=True)


def rel(path):
    """Path as written in BENCHMARKS.md: relative to the repository."""
    path = os.path.abspath(path)
    r = os.path.relpath(path, REPO)
    return r


def show(cmd, stdin=None, stdout=None, env_note=None):
    text = " ".join(shlex.quote(rel(c) if os.path.isabs(c) and (c.startswith(REPO) or c.startswith(SHARED)) else c)
                    for c in cmd)
    if stdin:
        text += " < " + rel(stdin)
    if stdout:
        text += " > " + rel(stdout)
    if env_note:
        text = env_note + " " + text
    return text


CLK_TCK = os.sysconf("SC_CLK_TCK")
QUIET = dict(max_wait_s=0.0, waited_s=0.0, budget_s=0.0)  # waiting for an idle machine (set in main)


def busy_cpu_seconds():
    """CPU seconds spent by everything on the machine so far (all cores), from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / CLK_TCK


def wait_idle():
    """Before a timed child: waits (within the budget) until the other processes use < 0.15 cores."""
    start = time.time()
    while True:
        a, t = busy_cpu_seconds(), time.time()
        time.sleep(0.5)
        load = (busy_cpu_seconds() - a) / (time.time() - t)
        waited = time.time() - start
        if load < 0.15 or waited >= QUIET["max_wait_s"] or QUIET["waited_s"] + waited >= QUIET["budget_s"]:
            QUIET["waited_s"] += waited
            return load


TIME_PROGRAM = "/usr/bin/time"  # Debian package `time` (tools/install-deps.sh)


def run_child(cmd, stdin=None, stdout_path=None, env=None, env_note=None, record=True, check=True, cwd=None,
              timed=False):
    """Runs one child: returns stdout, stderr, wall seconds, peak RSS (KiB) and the CPU load (in cores) that
    other processes put on the machine while it ran. `timed`: first wait for an idle machine (wait_idle)."""
    if record:
        COMMANDS.append(show(cmd, stdin, stdout_path, env_note))
    idle_before = wait_idle() if timed and QUIET["max_wait_s"] > 0 else None
    with tempfile.TemporaryFile() as out_tmp, tempfile.TemporaryFile() as err_tmp:
        stdin_file = open(stdin, "rb") if stdin else subprocess.DEVNULL
        out_file = open(stdout_path, "wb") if stdout_path else out_tmp
        rss_file = tempfile.NamedTemporaryFile(suffix=".rss", delete=False)
        rss_file.close()
        busy0 = busy_cpu_seconds()
        start = time.perf_counter()
        proc = subprocess.Popen([TIME_PROGRAM, "-f", "%M", "-o", rss_file.name] + list(cmd), stdin=stdin_file,
                                stdout=out_file, stderr=err_tmp, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        with open(rss_file.name) as f:
            rss_text = f.read().strip().splitlines()
        os.unlink(rss_file.name)
        busy = busy_cpu_seconds() - busy0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if stdin:
            stdin_file.close()
        if stdout_path:
            out_file.close()
            out = b""
        else:
            out_tmp.seek(0)
            out = out_tmp.read()
        err_tmp.seek(0)
        err = err_tmp.read()
    other = max(0.0, busy - usage.ru_utime - usage.ru_stime) / wall if wall > 0 else 0.0
    result = dict(rc=proc.returncode, out=out.decode("utf-8", "replace"), err=err.decode("utf-8", "replace"),
                  wall_s=wall, maxrss_kb=int(rss_text[-1]) if rss_text and rss_text[-1].isdigit() else 0, other_load=round(other, 3),
                  other_load_before=None if idle_before is None else round(idle_before, 3))
    if check and proc.returncode != 0:
        raise SystemExit("command failed (%d): %s\n%s" % (proc.returncode, show(cmd, stdin, stdout_path),
                                                          result["err"][-3000:]))
    return result


# --------------------------------------------------------------------------
# machine, build
# --------------------------------------------------------------------------

def machine_info():
    info = {}
    with open("/proc/cpuinfo") as f:
        text = f.read()
    m = re.search(r"^model name\s*:\s*(.*)$", text, re.M)
    info["cpu_model"] = m.group(1).strip() if m else platform.processor()
    m = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    flags = m.group(1).split() if m else []
    simd = ["sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx_vnni",
            "avx512_bf16", "avx512vbmi", "neon", "asimd", "asimddp"]
    info["simd_flags"] = [f for f in simd if f in flags]
    for key, pat in (("cpu_family", r"^cpu family\s*:\s*(\d+)"), ("cpu_model_number", r"^model\s*:\s*(\d+)")):
        m = re.search(pat, text, re.M)
        if m:
            info[key] = int(m.group(1))
    info["cores"] = os.cpu_count()
    info["hypervisor"] = "hypervisor" in flags
    with open("/proc/meminfo") as f:
        m = re.search(r"MemTotal:\s*(\d+) kB", f.read())
    info["mem_total_mb"] = int(m.group(1)) // 1024 if m else None
    info["kernel"] = platform.release()
    try:
        with open("/etc/debian_version") as f:
            info["debian"] = f.read().strip()
    except OSError:
        pass
    info["packages"] = {}
    for pkg in ("libxnnpack0", "libpthreadpool0", "python3-torch", "libblas3", "libopenblas0-openmp"):
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
        info["packages"][pkg] = r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None
    return info


def git_info():
    def git(*a):
        r = subprocess.run(["git", "-C", REPO] + list(a), capture_output=True, text=True)
        return r.stdout.strip()
    return dict(commit=git("rev-parse", "HEAD"), short=git("rev-parse", "--short", "HEAD"),
                subject=git("log", "-1", "--format=%s"),
                dirty=bool(git("status", "--porcelain", "--untracked-files=no", "--", "runtime", "converter",
                               "tests/bench", "CMakeLists.txt", "cmake")))


def binary_sizes(build_dir):
    """Stripped sizes and shared-library dependencies of what a device gets (deployment_sizes.py)."""
    COMMANDS.append("tests/bench/deployment_sizes.py " + build_dir)
    return deployment_sizes.measure(build_dir)


def debian_version(package):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None


BENCH_TARGETS = ["edgemt-bench", "edgemt-translate", "edgemt-xnnpack-gemm-bench", "edgemt-bench-model",
                 "edgemt-translate-static", "edgemt_shared"]


def build(build_dir, no_build, source=REPO, targets=BENCH_TARGETS, hint=""):
    """Configures (Release) and builds `targets` of the tree `source` in `build_dir`; returns their paths and
    the build's settings."""
    if not no_build:
        for cmd in (["cmake", "-S", source, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release"],
                    ["cmake", "--build", build_dir, "-j2", "--target"] + targets):
            log(show(cmd))
            COMMANDS.append(show(cmd))
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit("build failed:\n" + r.stdout[-3000:] + r.stderr[-3000:] + hint)
    info = {}
    cache = os.path.join(build_dir, "CMakeCache.txt")
    if os.path.exists(cache):
        with open(cache) as f:
            text = f.read()
        for key in ("CMAKE_BUILD_TYPE", "CMAKE_CXX_COMPILER", "CMAKE_CXX_FLAGS", "CMAKE_CXX_FLAGS_RELEASE",
                    "EDGEMT_KERNEL_DEPS_PREFIX", "XNNPACK_LIBRARY"):
            m = re.search(r"^%s:\w+=(.*)$" % key, text, re.M)
            if m:
                info[key] = m.group(1)
    # The kernels: built by tools/kernel-deps.sh (their VERSIONS file), or Debian's shared libraries.
    versions = os.path.join(info.get("EDGEMT_KERNEL_DEPS_PREFIX", "/nonexistent"), "VERSIONS")
    if os.path.exists(versions):
        with open(versions) as f:
            v = dict(line.split(None, 1) for line in f.read().splitlines() if " " in line)
        info["kernels"] = "XNNPACK %s, pthreadpool %s, cpuinfo %s (static, built by tools/kernel-deps.sh)" % (
            v.get("xnnpack", "?").strip(), v.get("pthreadpool", "?").strip(), v.get("cpuinfo", "?").strip())
    elif info.get("XNNPACK_LIBRARY"):
        info["kernels"] = "XNNPACK %s, pthreadpool %s, cpuinfo %s (Debian, shared)" % tuple(
            debian_version(p) for p in ("libxnnpack0", "libpthreadpool0", "libcpuinfo0"))
    compiler = info.get("CMAKE_CXX_COMPILER", "c++")
    r = subprocess.run([compiler, "--version"], capture_output=True, text=True)
    info["compiler_version"] = r.stdout.splitlines()[0] if r.returncode == 0 and r.stdout else compiler
    bins = {t: os.path.join(build_dir, "bin", t) for t in targets}
    for t, p in bins.items():
        if not os.path.exists(p):
            raise SystemExit("missing %s: build it (cmake --build %s --target %s)" % (p, build_dir, t))
    return bins, info


# --------------------------------------------------------------------------
# models
# --------------------------------------------------------------------------

def converter_stamp():
    h = hashlib.sha256()
    for root in (os.path.join(REPO, "converter"),):
        for dirpath, dirnames, filenames in sorted(os.walk(root)):
            dirnames[:] = sorted(d for d in dirnames if d not in ("tests", "__pycache__"))
            for name in sorted(filenames):
                if name.endswith((".pyc",)):
                    continue
                path = os.path.join(dirpath, name)
                h.update(os.path.relpath(path, root).encode())
                with open(path, "rb") as f:
                    h.update(f.read())
    with open(os.path.join(SHARED, "bench", "make_random_checkpoint.py"), "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:16]


def schema_format_major(root=REPO):
    """The model format major version a tree reads: the first line of its schema/edgemt.fbs."""
    with open(os.path.join(root, "schema", "edgemt.fbs")) as f:
        m = re.search(r"format version (\d+)\.\d+", f.readline())
    return int(m.group(1)) if m else None


def model_format_major(path):
    """Model.format_major of a model file (the root table's first field), or None if unreadable."""
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 16)
        root = struct.unpack_from("<I", data, 0)[0]
        vtable = root - struct.unpack_from("<i", data, root)[0]
        if struct.unpack_from("<H", data, vtable)[0] < 6:
            return 0
        offset = struct.unpack_from("<H", data, vtable + 4)[0]
        return struct.unpack_from("<H", data, root + offset)[0] if offset else 0
    except (OSError, struct.error):
        return None


def converter_cli():
    cli = os.path.join(REPO, "converter", "edgemt-convert")
    if not os.path.exists(cli):
        raise SystemExit("converter/edgemt-convert is missing: the converter CLI has not landed (git log)")
    return cli


def convert(checkpoint, out, dtype, stamp, extra=(), cli=None):
    """Converts (with `cli`, default this tree's converter) unless `out` exists with the same stamp."""
    cli = cli or converter_cli()
    stamp = stamp + " " + " ".join(dtype_and_extra for dtype_and_extra in [dtype] + list(extra))
    stamp_file = out + ".stamp"
    if os.path.exists(out) and os.path.exists(stamp_file):
        with open(stamp_file) as f:
            if f.read().strip() == stamp:
                log("cached: %s" % rel(out))
                COMMANDS.append("(cached) " + show([cli, checkpoint, "--out", out, "--dtype", dtype,
                                                    "--quiet"] + list(extra)))
                return dict(cached=True)
    cmd = [cli, checkpoint, "--out", out, "--dtype", dtype, "--quiet"] + list(extra)
    log(show(cmd))
    r = run_child(cmd)
    with open(stamp_file, "w") as f:
        f.write(stamp + "\n")
    log("converted in %.1f s" % r["wall_s"])
    return dict(cached=False, seconds=round(r["wall_s"], 1), summary=(r["out"] + r["err"])[-2000:])


def prepare_models(cache_dir, names, quick, generated=None):
    stamp = converter_stamp()
    models = {}
    if "multi30k" in names:
        d = os.path.join(cache_dir, "multi30k")
        os.makedirs(d, exist_ok=True)
        committed = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")
        m = dict(kind="trained", checkpoint=MULTI30K, files={}, conversions={})
        committed_major = model_format_major(committed) if os.path.exists(committed) else None
        if committed_major is not None and committed_major == schema_format_major():
            m["files"]["int8"] = committed
            m["int8_source"] = "committed"
        else:
            if committed_major is not None:
                log("models/multi30k-ende.int8.edgemt is format %d.x, this tree reads %s.x: converting instead"
                    % (committed_major, schema_format_major()))
            out = os.path.join(d, "multi30k-ende.int8.edgemt")
            m["conversions"]["int8"] = convert(MULTI30K, out, "int8", stamp)
            m["files"]["int8"] = out
            m["int8_source"] = "converted"
        out = os.path.join(d, "multi30k-ende.float32.edgemt")
        m["conversions"]["float32"] = convert(MULTI30K, out, "float32", stamp)
        m["files"]["float32"] = out
        models["multi30k"] = m
    for preset in ("tiny", "base"):
        if preset not in names:
            continue
        d = os.path.join(cache_dir, preset)
        ckpt = os.path.join(d, "checkpoint")
        os.makedirs(d, exist_ok=True)
        if not (os.path.exists(os.path.join(ckpt, "model.pt")) and os.path.exists(os.path.join(ckpt, "config.json"))):
            cmd = [PYTHON, os.path.join(SHARED, "bench", "make_random_checkpoint.py"), ckpt, "--preset", preset]
            log(show(cmd))
            run_child(cmd)
        else:
            COMMANDS.append("(cached) " + show([PYTHON, os.path.join(SHARED, "bench", "make_random_checkpoint.py"),
                                                ckpt, "--preset", preset]))
        m = dict(kind="random", checkpoint=ckpt, files={}, conversions={})
        for dtype in ("int8", "float32"):
            if generated:
                out = os.path.join(d, "%s.%s.generated.edgemt" % (preset, dtype))
                cmd = [generated, out, "--preset", preset] + (["--int8"] if dtype == "int8" else [])
                log(show(cmd))
                run_child(cmd)
                m["conversions"][dtype] = dict(cached=False, seconds=0.0, generated=True)
            else:
                out = os.path.join(d, "%s.%s.edgemt" % (preset, dtype))
                m["conversions"][dtype] = convert(ckpt, out, dtype, stamp)
            m["files"][dtype] = out
        models[preset] = m
    return models


def fixed_sources(cache_dir):
    path = os.path.join(cache_dir, "fixed-100x32.ids")
    lines = []
    for s in range(100):
        lines.append(" ".join(str(10 + (i + s) % 32) for i in range(32)) + " 3\n")
    with open(path, "w") as f:
        f.write("".join(lines))
    return path


# --------------------------------------------------------------------------
# PyTorch environment
# --------------------------------------------------------------------------

def torch_env(cache_dir, choice):
    """Environment for the PyTorch children and a description of their BLAS."""
    env = dict(os.environ)
    system_blas = os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    if choice == "system" or "openblas" in system_blas:
        return env, None, "system libblas.so.3 (%s)" % system_blas
    for variant in ("openblas-openmp", "openblas-pthread"):
        d = "/usr/lib/x86_64-linux-gnu/" + variant
        if os.path.exists(os.path.join(d, "libblas.so.3")):
            env["LD_LIBRARY_PATH"] = d
            return env, "LD_LIBRARY_PATH=" + d, "OpenBLAS (installed %s, via LD_LIBRARY_PATH)" % variant
    d = os.path.join(cache_dir, "openblas")
    lib = os.path.join(d, "root", "usr", "lib", "x86_64-linux-gnu", "openblas-openmp")
    if not os.path.exists(os.path.join(lib, "libblas.so.3")):
        os.makedirs(d, exist_ok=True)
        log("fetching Debian's libopenblas0-openmp (apt-get download, unpacked into %s)" % rel(d))
        r = subprocess.run(["apt-get", "download", "libopenblas0-openmp"], cwd=d, capture_output=True, text=True)
        debs = [f for f in os.listdir(d) if f.startswith("libopenblas0-openmp") and f.endswith(".deb")]
        if r.returncode == 0 and debs:
            subprocess.run(["dpkg-deb", "-x", os.path.join(d, debs[0]), os.path.join(d, "root")], check=True)
        COMMANDS.append("(cd %s && apt-get download libopenblas0-openmp && dpkg-deb -x libopenblas0-openmp_*.deb root)"
                        % rel(d))
    if os.path.exists(os.path.join(lib, "libblas.so.3")):
        env["LD_LIBRARY_PATH"] = lib
        version = re.search(r"libopenblas0-openmp_([^_]+)_", " ".join(os.listdir(d)))
        return env, "LD_LIBRARY_PATH=" + rel(lib), "OpenBLAS %s (Debian libopenblas0-openmp, unpacked, via LD_LIBRARY_PATH)" % (
            version.group(1) if version else "")
    return env, None, "system libblas.so.3 (%s; OpenBLAS unavailable)" % system_blas


# --------------------------------------------------------------------------
# measurements
# --------------------------------------------------------------------------

def bench(bins, model_file, source, threads, batch, repeat, limit, fixed, profile_passes, output=None, timed=True):
    cmd = [bins["edgemt-bench"], "--model", model_file, "--input-ids" if fixed else "--input", source,
           "--threads", str(threads), "--batch-size", str(batch), "--repeat", str(repeat),
           "--profile-passes", str(profile_passes)]
    if fixed:
        cmd += ["--min-length", "32", "--max-length", "32"]
    if limit:
        cmd += ["--limit", str(limit)]
    if output:
        cmd += ["--output", output]
    r = run_child(cmd, timed=timed)
    j = json.loads(r["out"])
    j["other_load"] = r["other_load"]
    j["child_peak_rss_kb"] = r["maxrss_kb"]
    j["wall_s"] = round(r["wall_s"], 2)
    j["command"] = COMMANDS[-1]
    return j


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
    pairs = []
    for _ in range(rounds):
        ms = [bench(bins, model_file, source, t, 1, 1, limit, fixed, 0)["min_ms_per_sentence"] for t in (1, 2)]
        pairs.append(ms)
    ratios = sorted(b / a for a, b in pairs)
    return dict(rounds=rounds, limit=limit, ms_t1_t2=[[round(a, 4), round(b, 4)] for a, b in pairs],
                median_ratio=round(statistics.median(ratios), 4))


def load_times(bins, model_file, source, fixed, runs, threads):
    values, model_values = [], []
    for _ in range(runs):
        j = bench(bins, model_file, source, threads, 1, 1, 1, fixed, 0, timed=False)
        values.append(j["load_ms"])
        model_values.append(j.get("model_load_ms", 0.0))
    return dict(runs=runs, median_ms=round(statistics.median(values), 2), min_ms=round(min(values), 2),
                model_load_median_ms=round(statistics.median(model_values), 3), all_ms=[round(v, 2) for v in values])


def bleu(hyp):
    r = run_child([PYTHON, os.path.join(MULTI30K, "bleu.py"), hyp, DEV_DE])
    line = r["out"].strip().splitlines()[-1] if r["out"].strip() else ""
    m = re.search(r"BLEU = ([0-9.]+)", line)
    return dict(bleu=float(m.group(1)) if m else None, line=line)


def same_lines(a, b, limit=None):
    with open(a) as f:
        x = f.read().splitlines()
    with open(b) as f:
        y = f.read().splitlines()
    n = min(len(x), len(y)) if limit is None else min(limit, len(x), len(y))
    return sum(1 for i in range(n) if x[i] == y[i]), n


def token_agreement(a, b, limit):
    with open(a) as f:
        x = [l.split() for l in f.read().splitlines()][:limit]
    with open(b) as f:
        y = [l.split() for l in f.read().splitlines()][:limit]
    n = min(len(x), len(y))
    equal_tokens = total = same_sentences = 0
    for i in range(n):
        total += max(len(x[i]), len(y[i]))
        equal_tokens += sum(1 for p, q in zip(x[i], y[i]) if p == q)
        # tokens up to the first difference: what greedy decoding shares
        same_sentences += x[i] == y[i]
    prefix = []
    for i in range(n):
        k = 0
        while k < min(len(x[i]), len(y[i])) and x[i][k] == y[i][k]:
            k += 1
        prefix.append(k)
    return dict(sentences=n, identical_sentences=same_sentences,
                position_agreement=round(equal_tokens / total, 4) if total else None,
                mean_common_prefix=round(sum(prefix) / n, 2) if n else None)


def torch_reference_trained(env, env_note, dtype, threads, limit, work):
    out = os.path.join(work, "torch-multi30k-%s-%dt.de" % (dtype, threads))
    ids = os.path.join(work, "torch-multi30k-%s-%dt.ids" % (dtype, threads))
    cmd = [PYTHON, os.path.join(MULTI30K, "reference.py"), "--input", DEV_EN, "--output", out, "--ids-out", ids,
           "--threads", str(threads)]
    if dtype == "int8":
        cmd.append("--int8")
    if limit:
        cmd += ["--limit", str(limit)]
    r = run_child(cmd, env=env, env_note=env_note, timed=True)
    m = re.search(r"decoded (\d+) sentences in ([0-9.]+) s: ([0-9.]+) sent/s; (\d+) target tokens without </s> "
                  r"\(([0-9.]+) tok/s\)", r["err"])
    if not m:
        raise SystemExit("no timing line from reference.py:\n" + r["err"][-2000:])
    n, wall = int(m.group(1)), float(m.group(2))
    return dict(sentences=n, wall_s=wall, mean_ms_per_sentence=round(wall * 1000.0 / n, 3),
                tokens=int(m.group(4)), tokens_per_s=float(m.group(5)), peak_rss_kb=r["maxrss_kb"],
                process_wall_s=round(r["wall_s"], 2), command=COMMANDS[-1], output=out, ids=ids,
                timing_line=m.group(0), other_load=r["other_load"])


def torch_reference_fixed(env, env_note, ckpt, source, dtype, threads, limit, work, name):
    out = os.path.join(work, "torch-%s-%s-%dt.ids" % (name, dtype, threads))
    cmd = [PYTHON, os.path.join(HERE, "torch_fixed_length.py"), "--checkpoint", ckpt, "--input-ids", source,
           "--length", "32", "--threads", str(threads), "--limit", str(limit), "--output", out]
    if dtype == "int8":
        cmd.append("--int8")
    r = run_child(cmd, env=env, env_note=env_note, timed=True)
    j = json.loads(r["out"].strip().splitlines()[-1])
    j["other_load"] = r["other_load"]
    j["peak_rss_kb"] = r["maxrss_kb"]
    j["process_wall_s"] = round(r["wall_s"], 2)
    j["command"] = COMMANDS[-1]
    j["ids"] = out
    return j


def xnnpack_threads(bins, quick):
    cmd = [bins["edgemt-xnnpack-gemm-bench"], "--threads", "2", "--rows", "1,33", "--min-ms", "20" if quick else "120"]
    r = run_child(cmd, timed=True)
    rows = [json.loads(line) for line in r["out"].splitlines() if line.strip().startswith("{")]
    for x in rows:
        x["other_load_whole_run"] = r["other_load"]
    return rows


# --------------------------------------------------------------------------
# plan
# --------------------------------------------------------------------------

def plan(quick, repeat):
    """Sentences and repetitions per model (the full run is sized for <= 20 min on the 2-core machine).

    limit: EdgeMT batch-1 sources per dtype (0 = all); batch32: sources at batch 32; torch: PyTorch sources
    per dtype at (1, 2) threads (0 = all)."""
    if quick:
        return dict(repeat=1, profile_passes=1, load_runs=2, pair_rounds=1,
                    multi30k=dict(limit=dict(int8=40, float32=40), torch=dict(int8=(10, 10), float32=(10, 10)),
                                  pairs=dict(int8=20, float32=10)),
                    tiny=dict(limit=dict(int8=8, float32=8), batch32=dict(int8=32, float32=32),
                              torch=dict(int8=(3, 3), float32=(3, 3)), pairs=dict(int8=4, float32=2)),
                    base=dict(limit=dict(int8=4, float32=2), batch32=dict(int8=32, float32=32),
                              torch=dict(int8=(1, 1), float32=(1, 1)), pairs=dict(int8=2, float32=1)))
    return dict(repeat=repeat, profile_passes=1, load_runs=5, pair_rounds=5,
                multi30k=dict(limit=dict(int8=0, float32=0), torch=dict(int8=(0, 100), float32=(100, 100)),
                              pairs=dict(int8=250, float32=100)),
                tiny=dict(limit=dict(int8=0, float32=0), batch32=dict(int8=96, float32=96),
                          torch=dict(int8=(0, 0), float32=(0, 0)), pairs=dict(int8=50, float32=20)),
                base=dict(limit=dict(int8=0, float32=40), batch32=dict(int8=96, float32=64),
                          torch=dict(int8=(20, 20), float32=(20, 20)), pairs=dict(int8=10, float32=5)))


def measure(args, bins, models, fixed_ids, work, env, env_note):
    p = plan(args.quick, args.repeat)
    results = dict(plan=p, edgemt={}, torch={}, quality={})
    # The process itself: edgemt-translate with a micro random model (program, libraries, stdio).
    micro = os.path.join(work, "micro.int8.edgemt")
    run_child([bins["edgemt-bench-model"], micro, "--preset", "micro", "--int8"])
    micro_ids = os.path.join(work, "micro.ids")
    with open(micro_ids, "w") as f:
        f.write("".join(" ".join(str(10 + (i + s) % 32) for i in range(32)) + " 3\n" for s in range(5)))
    r = run_child([bins["edgemt-translate"], "--model", micro, "--threads", "1", "--input-ids", "--output-ids",
                   "--min-length", "32", "--max-length", "32"], stdin=micro_ids,
                  stdout_path=os.path.join(work, "micro.out"))
    results["baseline_rss_kb"] = r["maxrss_kb"]
    results["baseline_file_bytes"] = os.path.getsize(micro)
    for name, m in models.items():
        cfg = p[name]
        fixed = m["kind"] == "random"
        source = fixed_ids if fixed else DEV_EN
        results["edgemt"][name] = {}
        for dtype in ("int8", "float32"):
            f = m["files"][dtype]
            limit = cfg["limit"][dtype]
            r = dict(file=rel(f), file_bytes=os.path.getsize(f), runs={})
            log("%s %s: load time, 1 and 2 threads" % (name, dtype))
            r["load"] = load_times(bins, f, source, fixed, p["load_runs"], 1)
            r["load_t2"] = load_times(bins, f, source, fixed, p["load_runs"], 2)
            for threads in (1, 2):
                log("%s %s: batch 1, %d thread(s)" % (name, dtype, threads))
                output = os.path.join(work, "edgemt-%s-%s-%dt.%s" % (name, dtype, threads, "ids" if fixed else "de"))
                r["runs"]["b1_t%d" % threads] = bench(bins, f, source, threads, 1, p["repeat"], limit, fixed,
                                                      p["profile_passes"], output)
                r["runs"]["b1_t%d" % threads]["output_file"] = output
                if fixed:
                    log("%s %s: batch 32, %d thread(s)" % (name, dtype, threads))
                    r["runs"]["b32_t%d" % threads] = bench(bins, f, source, threads, 32, p["repeat"],
                                                           cfg["batch32"][dtype], fixed, 1)
                log("%s %s: peak RSS of edgemt-translate, %d thread(s)" % (name, dtype, threads))
                r["rss_t%d" % threads] = translate_rss(bins, f, source, threads, fixed, limit, work)
            log("%s %s: 1 vs 2 threads, alternating" % (name, dtype))
            r["thread_pairs"] = thread_pairs(bins, f, source, fixed, cfg["pairs"][dtype], p["pair_rounds"])
            results["edgemt"][name][dtype] = r
    if not args.skip_torch:
        for name, m in models.items():
            cfg = p[name]
            results["torch"][name] = {}
            for dtype in ("int8", "float32"):
                for threads in (1, 2):
                    log("PyTorch %s %s, %d thread(s)" % (name, dtype, threads))
                    limit = cfg["torch"][dtype][threads - 1]
                    if m["kind"] == "trained":
                        t = torch_reference_trained(env, env_note, dtype, threads, limit, work)
                    else:
                        t = torch_reference_fixed(env, env_note, m["checkpoint"], fixed_ids, dtype, threads,
                                                  limit or 100, work, name)
                    results["torch"][name]["%s_t%d" % (dtype, threads)] = t
    # Quality and agreement.
    if "multi30k" in models:
        q = {}
        for dtype in ("int8", "float32"):
            out = results["edgemt"]["multi30k"][dtype]["runs"]["b1_t1"]["output_file"]
            q["edgemt_" + dtype] = bleu(out) if not args.quick else dict(bleu=None, line="(quick: not scored)")
            same, n = same_lines(out, os.path.join(MULTI30K, "reference", "dev.greedy.de"))
            q["edgemt_%s_same_as_reference_fp32" % dtype] = [same, n]
            o2 = results["edgemt"]["multi30k"][dtype]["runs"]["b1_t2"]["output_file"]
            q["edgemt_%s_1_vs_2_threads_identical" % dtype] = same_lines(out, o2)[0] == n
        q["reference_fp32_committed"] = bleu(os.path.join(MULTI30K, "reference", "dev.greedy.de"))
        tm = results["torch"].get("multi30k", {})
        for dtype in ("int8", "float32"):
            t = tm.get("%s_t1" % dtype)
            if t and t["sentences"] == 500:
                q["torch_" + dtype] = bleu(t["output"])
        results["quality"]["multi30k"] = q
    for name, m in models.items():
        if m["kind"] != "random":
            continue
        q = {}
        e = results["edgemt"][name]
        q["edgemt_int8_vs_float32"] = token_agreement(e["int8"]["runs"]["b1_t1"]["output_file"],
                                                      e["float32"]["runs"]["b1_t1"]["output_file"], 100)
        for dtype in ("int8", "float32"):
            t = results["torch"].get(name, {}).get("%s_t1" % dtype)
            if t:
                q["edgemt_vs_torch_" + dtype] = token_agreement(e[dtype]["runs"]["b1_t1"]["output_file"], t["ids"],
                                                                t["sentences"])
        results["quality"][name] = q
    return results


# --------------------------------------------------------------------------
# the decoder step's floor: its Linear layers alone in XNNPACK
# --------------------------------------------------------------------------

def model_config(m):
    with open(os.path.join(m["checkpoint"], "config.json")) as f:
        return json.load(f)


def decoder_step_layers(cfg):
    """(in, out, label) of the Linear layers one decoder step runs per decoder layer (fused self-attention
    query/key/value; the cross-attention keys/values are computed once per sentence, not per step), and the
    output projection."""
    d, ff = cfg["d_model"], cfg["d_ff"]
    per_layer = [(d, 3 * d, "self-attention QKV (fused)"), (d, d, "self-attention output"),
                 (d, d, "cross-attention query"), (d, d, "cross-attention output"), (d, ff, "feed-forward up"),
                 (ff, d, "feed-forward down")]
    return per_layer, (d, cfg["tgt_vocab_size"], "output projection")


def decoder_floors(gemm_bench, models, quick):
    """Per model: edgemt-xnnpack-gemm-bench on one decoder step's int8 layers (rows = 1), each shape alone (hot:
    weights in cache, cold: from memory) and all of them in step order with distinct weights (--sequence)."""
    floors = {}
    parallel = min_parallel_macs_value()
    for name, m in models.items():
        cfg = model_config(m)
        per_layer, projection = decoder_step_layers(cfg)
        n_layers = cfg["n_decoder_layers"]
        shapes = ",".join(["%dx%d" % (i, o) for i, o, _ in per_layer] * n_layers + ["%dx%d" % projection[:2]])
        cmd = [gemm_bench, "--threads", "2", "--rows", "1", "--dtype", "int8", "--shapes", shapes, "--sequence",
               "--min-ms", "10" if quick else "60"]
        if parallel:
            cmd += ["--min-parallel-macs", str(parallel)]
        log("%s: decoder-step floor (XNNPACK alone)" % name)
        r = run_child(cmd, timed=True)
        rows = [json.loads(line) for line in r["out"].splitlines() if line.strip().startswith("{")]
        layers = [x for x in rows if x["shape"] != "sequence"]
        seq = [x for x in rows if x["shape"] == "sequence"][0]
        def total(key):
            return sum(x["count"] * key(x) for x in layers) / 1000.0
        floors[name] = dict(
            decoder_layers=n_layers, layers_per_step=seq["layers"], weight_bytes=seq["weight_bytes"],
            macs=seq["macs"], min_parallel_macs=parallel,
            hot_1_ms=round(total(lambda x: x["hot_us_1"]), 4),
            hot_best_ms=round(total(lambda x: min(x["hot_us_1"], x["hot_us_n"])), 4),
            cold_1_ms=round(total(lambda x: x["cold_us_1"]), 4),
            cold_best_ms=round(total(lambda x: min(x["cold_us_1"], x["cold_us_n"])), 4),
            sequence_1_ms=round(seq["us_1"] / 1000.0, 4), sequence_n_ms=round(seq["us_n"] / 1000.0, 4),
            layers=[dict(shape=x["shape"], count=x["count"], hot_us_1=x["hot_us_1"], hot_us_n=x["hot_us_n"],
                         cold_us_1=x["cold_us_1"], cold_us_n=x["cold_us_n"]) for x in layers],
            other_load=r["other_load"], command=COMMANDS[-1])
    return floors


# --------------------------------------------------------------------------
# --baseline REV: this tree against an earlier commit, measured in the same run
# --------------------------------------------------------------------------

BASELINE_TARGETS = ["edgemt-bench", "edgemt-translate"]
BUILDS = ("baseline", "new")
# (key, batch, threads) of the edgemt-bench runs per model and build.
BASELINE_CONFIGS = (("b1_t1", 1, 1), ("b1_t2", 1, 2), ("b32_t1", 32, 1), ("b32_t2", 32, 2))
# What the comparison reports: key, label, runs ("b1"/"b32" edgemt-bench, "rss" edgemt-translate), field,
# which is better, digits.
BASELINE_MEASURES = (
    ("b1_ms", "batch 1: ms per sentence", "b1", "median_ms_per_sentence", "lower", 3),
    ("b1_tokens", "batch 1: tokens/s", "b1", "tokens_per_s", "higher", 0),
    ("b32_ms", "batch 32: ms per sentence", "b32", "median_ms_per_sentence", "lower", 3),
    ("b32_tokens", "batch 32: tokens/s", "b32", "tokens_per_s", "higher", 0),
    ("encoder_ms", "encoder ms per sentence (batch 1)", "b1", "encoder_ms_per_sentence", "lower", 3),
    ("decoder_step_ms", "decoder ms per step (batch 1)", "b1", "decoder_ms_per_step", "lower", 4),
    ("load_ms", "load ms (Model::Load + Translator::Create)", "b1", "load_ms", "lower", 1),
    ("peak_rss_mb", "peak RSS MB (edgemt-translate)", "rss", "peak_rss_mb", "lower", 1),
)
# The comparison's goals (the issue's acceptance): this tree's speed over the baseline's.
GOAL_VS_BASELINE_B1 = (("multi30k", "b1_ms", 1.3), ("tiny", "b1_tokens", 1.3), ("base", "b1_tokens", 1.0))
GOAL_VS_BASELINE_B32 = (("tiny", "b32_tokens", 1.5), ("base", "b32_tokens", 1.5))
GOAL_VS_BASELINE_BASE_ENCODER = 2.0
TRAIN_EN = os.path.join(SHARED, "data", "multi30k", "train.en")


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


def baseline_worktree(rev, build_dir):
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
    h = hashlib.sha256()
    with open(os.path.join(SHARED, "bench", "make_random_checkpoint.py"), "rb") as f:
        h.update(f.read())
    stamp = "baseline %s %s" % (base["commit"], h.hexdigest()[:16])
    files, conversions = {}, {}
    for name, m in models.items():
        d = os.path.join(cache_dir, "baseline", name)
        os.makedirs(d, exist_ok=True)
        if m["kind"] == "trained":
            out = os.path.join(d, "multi30k-ende.int8.edgemt")
            extra = ["--calibration", TRAIN_EN] if calibrates else []
        else:
            out = os.path.join(d, "%s.int8.edgemt" % name)
            extra = []
        log("baseline %s: %s int8" % (base["short"], name))
        conversions[name] = convert(m["checkpoint"], out, "int8", stamp, extra, cli=cli)
        files[name] = out
    note = ("the trained model's int8 calibrated on `../shared/data/multi30k/train.en`, the random checkpoints on "
            "its default calibration data" if calibrates else "no calibration option")
    return files, conversions, note


def baseline_plan(quick, rounds):
    """Sources per model for the comparison (0 = all): b1 at batch 1, b32 at batch 32; rss: sources that
    edgemt-translate translates for the peak RSS; repeat: timed passes per process (the rounds repeat too).
    Sized for ~5 min on the idle 2-core VM (about twice that when it runs slow)."""
    if quick:
        return dict(repeat=1, rounds=rounds, rss_limit=4, multi30k=dict(b1=20, b32=32),
                    tiny=dict(b1=4, b32=32), base=dict(b1=2, b32=32))
    return dict(repeat=2, rounds=rounds, rss_limit=10, multi30k=dict(b1=0, b32=128),
                tiny=dict(b1=100, b32=64), base=dict(b1=20, b32=32))


BENCH_KEEP = ("sentences", "output_tokens", "median_ms_per_sentence", "min_ms_per_sentence", "tokens_per_s",
              "best_tokens_per_s", "encoder_ms_per_sentence", "decoder_ms_per_step", "load_ms", "model_load_ms",
              "arena_bytes", "allocations_while_translating", "self_peak_rss_kb", "child_peak_rss_kb",
              "other_load", "wall_s", "command")


def warm_page_cache(path):
    """Reads a model file, so that every process of the comparison maps it from a warm page cache (how many
    pages a fault maps, and so the RSS, depends on what is cached)."""
    with open(path, "rb") as f:
        while f.read(1 << 23):
            pass


def compare_builds(bins, files, models, fixed_ids, work, p):
    """bins/files: {"baseline": ..., "new": ...}. Every configuration runs `rounds` times as a baseline process
    followed by a new one (A B A B ...), so both see the same drift of the machine."""
    runs = {}
    for name, m in models.items():
        fixed = m["kind"] == "random"
        source = fixed_ids if fixed else DEV_EN
        runs[name] = {}
        for key, batch, threads in BASELINE_CONFIGS:
            limit = p[name]["b1" if batch == 1 else "b32"]
            log("baseline vs new: %s int8, batch %d, %d thread(s), %d rounds" % (name, batch, threads, p["rounds"]))
            runs[name][key] = {b: [] for b in BUILDS}
            for _ in range(p["rounds"]):
                for b in BUILDS:
                    # Batch 1: one profiled pass (after the timed ones), where edgemt-bench counts the decoder
                    # steps for decoder_ms_per_step.
                    warm_page_cache(files[b][name])
                    j = bench(bins[b], files[b][name], source, threads, batch, p["repeat"], limit, fixed,
                              1 if batch == 1 else 0)
                    runs[name][key][b].append({k: j[k] for k in BENCH_KEEP if k in j})
        for threads in (1, 2):
            key = "rss_t%d" % threads
            log("baseline vs new: %s int8, peak RSS of edgemt-translate, %d thread(s)" % (name, threads))
            runs[name][key] = {b: [] for b in BUILDS}
            for _ in range(p["rounds"]):
                for b in BUILDS:
                    warm_page_cache(files[b][name])
                    r = translate_rss(bins[b], files[b][name], source, threads, fixed, p["rss_limit"], work)
                    r["peak_rss_mb"] = round(r["peak_rss_kb"] * 1024 / 1e6, 2)
                    del r["output"]
                    runs[name][key][b].append(r)
    return runs


def summarize_builds(runs):
    """Per model and measure: each build's median over the rounds at 1 and 2 threads, the better of the two,
    the ratio new / baseline and the range of the per-round ratios (round i of each build at its better thread
    count)."""
    summary = {}
    for name, R in runs.items():
        rows = {}
        for key, label, kind, field, better, digits in BASELINE_MEASURES:
            builds = {}
            for b in BUILDS:
                by_threads = {}
                for t in (1, 2):
                    values = [x[field] for x in R.get("%s_t%d" % (kind, t), {}).get(b, [])
                              if x.get(field) is not None and x[field] > 0]
                    if values:
                        by_threads["t%d" % t] = dict(median=statistics.median(values), values=values)
                if not by_threads:
                    continue
                pick = (min if better == "lower" else max)(by_threads, key=lambda t: by_threads[t]["median"])
                builds[b] = dict(value=by_threads[pick]["median"], threads=int(pick[1:]),
                                 by_threads={t: v["median"] for t, v in by_threads.items()}, values=by_threads[pick]["values"])
            if len(builds) < 2:
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


def evaluate_baseline_goals(summary):
    goals = []

    def add(goal, target, measured, met, detail=""):
        goals.append(dict(goal=goal, target=target, measured=measured, met=met, detail=detail))

    def speed(name, key, target, what):
        row = summary.get(name, {}).get("measures", {}).get(key)
        if row is None:
            return
        add("%s %s at least %.1fx the baseline's%s" % (name, what, target, " (no slower)" if target == 1.0 else ""),
            ">= %.2fx" % target, "%.2fx" % row["speedup"], row["speedup"] >= target,
            "baseline %s at %d thr, new %s at %d thr; per-round ratios %s" % (
                fmt(row["baseline"]["value"], row["digits"]), row["baseline"]["threads"],
                fmt(row["new"]["value"], row["digits"]), row["new"]["threads"],
                ", ".join("%.2f" % (1 / x if row["better"] == "lower" else x) for x in row["round_ratios"])))

    for name, key, target in GOAL_VS_BASELINE_B1:
        speed(name, key, target, "batch 1 speed (%s)" % ("ms per dev sentence" if key == "b1_ms" else "tokens/s"))
    speed("base", "encoder_ms", GOAL_VS_BASELINE_BASE_ENCODER, "encoder speed (ms per sentence, batch 1)")
    for name, key, target in GOAL_VS_BASELINE_B32:
        speed(name, key, target, "batch 32 speed (tokens/s)")
    for key, what in (("load_ms", "load time"), ("peak_rss_mb", "peak RSS")):
        worse, cells = [], []
        for name in summary:
            row = summary[name]["measures"].get(key)
            if row is None:
                continue
            cells.append("%s %.2fx" % (name, row["ratio"]))
            if row["ratio"] > 1.0:
                worse.append(name)
        if cells:
            add("%s no worse than the baseline's (every model, better of 1/2 threads)" % what, "new / baseline <= 1",
                "; ".join(cells), not worse, ("worse: " + ", ".join(worse)) if worse else "")
    return goals


def run_baseline(args, build_dir, cache_dir, models, bins_new, fixed_ids, work):
    """Preparation (worktree, build, conversions) of --baseline; returns the state the measurement needs."""
    base = baseline_worktree(args.baseline, build_dir)
    base_build = os.path.join(build_dir, "bench-baseline", "build")
    hint = ("\nthe baseline %s builds with its own dependencies (its tools/install-deps.sh); for EdgeMT before "
            "XNNPACK 2024-11: apt-get install libxnnpack-dev libpthreadpool-dev libcpuinfo-dev" % base["short"])
    base["bins"], base["build"] = build(base_build, args.no_build, source=base["src"], targets=BASELINE_TARGETS,
                                        hint=hint)
    base["build_dir"] = base_build
    # The baseline gets the new build's models, as files in its own format.
    base["files"], base["conversions"], base["calibration_note"] = baseline_models(base, cache_dir, models)
    return base


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------

def min_parallel_macs_value():
    """kMinParallelMacs of runtime/src/ops/linear.h (products from this size use the thread pool), or None."""
    try:
        with open(os.path.join(REPO, "runtime", "src", "ops", "linear.h")) as f:
            m = re.search(r"kMinParallelMacs\s*=\s*size_t\{1\}\s*<<\s*(\d+)", f.read())
        return 1 << int(m.group(1)) if m else None
    except OSError:
        return None


def min_parallel_macs():
    try:
        with open(os.path.join(REPO, "runtime", "src", "ops", "linear.h")) as f:
            m = re.search(r"kMinParallelMacs\s*=\s*size_t\{1\}\s*<<\s*(\d+)", f.read())
        if m:
            return "2^%s = %s" % (m.group(1), "{:,}".format(1 << int(m.group(1))))
    except OSError:
        pass
    return "?"


def fmt(v, digits=1):
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    if digits == 0:
        return "{:,.0f}".format(v)
    return "{:,.{d}f}".format(v, d=digits)


def mb(b):
    return b / 1e6


def best_batch1(e, key="tokens_per_s"):
    """(tokens/s, threads) of the better of 1 and 2 threads at batch 1."""
    a, b = e["runs"]["b1_t1"][key], e["runs"]["b1_t2"][key]
    return (a, 1) if a >= b else (b, 2)


def peer_ratio(peer, model, batch):
    """EdgeMT's speed over CTranslate2's for a model at a batch size, as tests/bench/peer_bench.py measured
    them side by side (each runtime's best threads, CTranslate2's best ISA), or a sentence saying why not."""
    if not peer:
        return "no CTranslate2 figure from this run (tests/bench/peer_bench.py, --peer-json)"
    if not peer["meta"]["peer"]:
        return "CTranslate2 was missing from the peer run: no ratio"
    for r in peer["results"]:
        if r["model"] == model:
            rows = [v for v in r["configs"].values() if v["batch"] == batch]
            e = min((v for v in rows if v["runtime"] == "edgemt"), key=lambda v: v["wall_s"])
            c = min((v for v in rows if v["runtime"] == "ct2"), key=lambda v: v["wall_s"])
            return "%.2fx CTranslate2 4.8.1 at batch %d (peer_bench at %s, same sentences, its best of %s)" % (
                c["wall_s"] / e["wall_s"], batch, peer["meta"]["commit"], "threads and ISAs")
    return "no CTranslate2 figure for %s in the peer run" % model


def evaluate_goals(results, models, peer=None):
    goals = []
    E = results["edgemt"]

    def add(name, target, measured, met, detail):
        goals.append(dict(goal=name, target=target, measured=measured, met=met, detail=detail))

    for preset, goal in (("tiny", GOAL_TINY_TOKS), ("base", GOAL_BASE_TOKS)):
        if preset in E:
            v, t = best_batch1(E[preset]["int8"])
            add("%s int8 batch 1, tokens/s (better of 1/2 threads)" % preset,
                ">= %s (2x CTranslate2 when the goal was set)" % fmt(goal, 0), "%s at %d thread(s)" % (fmt(v, 0), t),
                v >= goal, "%.0f%% of the goal; %s" % (100.0 * v / goal, peer_ratio(peer, preset, 1)))
    if "multi30k" in E:
        e = E["multi30k"]["int8"]
        ms = min(e["runs"]["b1_t1"]["median_ms_per_sentence"], e["runs"]["b1_t2"]["median_ms_per_sentence"])
        add("multi30k int8 dev, ms per sentence (goal: half of CTranslate2's time when the goal was set)",
            "<= %.1f ms" % GOAL_MULTI30K_MS, "%.2f ms" % ms, ms <= GOAL_MULTI30K_MS, peer_ratio(peer, "multi30k", 1))
    # The goals are about int8 (the issue: batch 1, int8); float32 is reported beside them.
    worse, float_worse = [], []
    for name in E:
        for dtype in ("int8", "float32"):
            tp = E[name][dtype].get("thread_pairs")
            if tp is None:  # a JSON from before the alternating comparison
                r = E[name][dtype]["runs"]
                ratio = r["b1_t2"]["median_ms_per_sentence"] / r["b1_t1"]["median_ms_per_sentence"]
            else:
                ratio = tp["median_ratio"]
            if ratio > 1.02:
                (worse if dtype == "int8" else float_worse).append(
                    "%s %s: 2 threads take %.3fx the time of 1" % (name, dtype, ratio))
    add("int8: a 2nd thread never makes batch-1 latency worse (median of alternating 1/2-thread runs, 2% tolerance)",
        "t2 <= t1", "%d of %d models worse" % (len(worse), len(E)), not worse,
        ("; ".join(worse) or "none worse") + "; float32 (not a goal): " + ("; ".join(float_worse) or "none worse"))
    if "base" in E:
        shares = [E["base"]["int8"]["runs"]["b1_t%d" % t]["profile"]["decoder_per_step"]["xnnpack_share"]
                  for t in (1, 2)]
        s = max(shares)
        add("base int8 decoder step: share inside XNNPACK", ">= 80%", "%.1f%% (1 thread %.1f%%, 2 threads %.1f%%)" %
            (100 * s, 100 * shares[0], 100 * shares[1]), s >= GOAL_BASE_XNNPACK_SHARE, "")
    for name in E:
        for dtype in ("int8",):
            e = E[name][dtype]
            arena = e["runs"]["b1_t1"]["arena_bytes"]
            limit = GOAL_RSS_FACTOR * e["file_bytes"] + arena
            rss = max(e["rss_t1"]["peak_rss_kb"], e["rss_t2"]["peak_rss_kb"]) * 1024
            base = results.get("baseline_rss_kb", 0) * 1024
            add("%s int8 peak RSS <= 1.3 x file + arena" % name, "<= %.1f MB" % mb(limit), "%.1f MB" % mb(rss),
                rss <= limit, "RSS = arena + %.2f x file; without the %.1f MB of any edgemt-translate process "
                "(micro model): arena + %.2f x file" % ((rss - arena) / e["file_bytes"], mb(base),
                                                     (rss - base - arena) / e["file_bytes"]))
    if "base" in E:
        loads = [(E["base"]["int8"][k], t) for k, t in (("load", 1), ("load_t2", 2)) if k in E["base"]["int8"]]
        best, threads = min(loads, key=lambda x: x[0]["median_ms"])
        l = best["median_ms"]
        add("base int8 load time (warm page cache, better of 1/2 threads)", "< 100 ms",
            "%.1f ms at %d thread(s)" % (l, threads), l < GOAL_BASE_LOAD_MS,
            "%.0f%% of the goal; Model::Load %.2f ms, the rest is Translator::Create (packing weights)" %
            (100.0 * l / GOAL_BASE_LOAD_MS, best["model_load_median_ms"]))
    allocs = [(n, d, k) for n in E for d in E[n] for k, r in E[n][d]["runs"].items()
              if r["allocations_while_translating"] != 0]
    add("heap allocations while translating", "0", "%d runs with allocations" % len(allocs), not allocs,
        ", ".join("%s %s %s" % a for a in allocs))
    return goals


def write_commands(w, commands, merge_all=False):
    """A code block of the commands: a run of identical ones as one line with its count (merge_all: every
    repetition of a command, in the order of first appearance)."""
    w("```")
    if merge_all:
        counts = {}
        for c in commands:
            counts[c] = counts.get(c, 0) + 1
        for c, n in counts.items():
            w(c + ("    # x%d" % n if n > 1 else ""))
    else:
        previous, count = None, 0
        for c in commands + [None]:
            if c == previous:
                count += 1
                continue
            if previous is not None:
                w(previous + ("    # x%d" % count if count > 1 else ""))
            previous, count = c, 1
    w("```")
    w("")


def write_baseline_section(w, B, results, meta):
    """The section of --baseline: this tree against B["short"], measured in the same run."""
    S, P, F = B["summary"], B["plan"], results.get("decoder_floors") or {}
    w("## XNNPACK 2024-11 against the previous build (%s)" % B["short"])
    w("")
    w("This tree (`%s`%s; %s) against `%s` \"%s\" (%s), built in %s from a git worktree "
      "(`%s`, `%s`) and measured in the same run. int8 only. Each configuration ran %d rounds of a baseline "
      "process followed by a process of this tree (A B A B ...), so that the machine's drift affects both "
      "alike; a figure is the median over the rounds of each process's median of its %d timed pass(es) (after "
      "a warm-up pass). Per model and build the better of 1 and 2 threads is reported (the thread count in "
      "parentheses); *new / baseline* < 1 means less time or memory, > 1 more tokens/s. The per-round range "
      "is new / baseline of round i of each build." % (
          meta["git"]["short"], " with uncommitted changes" if meta["git"]["dirty"] else "",
          meta["build"].get("kernels", "?"), B["short"], B["subject"], B["build"].get("kernels", "?"),
          B["build"].get("CMAKE_BUILD_TYPE", "?"), B["src"], B["build_dir"], P["rounds"], P["repeat"]))
    w("")
    tokens = ["%s: baseline %s, new %s output tokens at batch 1" % (
        n, fmt(S[n]["b1_output_tokens"].get("baseline"), 0), fmt(S[n]["b1_output_tokens"].get("new"), 0))
        for n in S if B["kinds"].get(n) == "trained"]
    limits = "; ".join("%s: %s at batch 1, %s at batch 32" % (
        n, "all sources" if not P[n]["b1"] else "%d sources" % P[n]["b1"],
        "all" if not P[n]["b32"] else "%d" % P[n]["b32"]) for n in S)
    w("Models: this tree's files (format %s.x, its converter: no calibration) and the baseline's, converted by "
      "the baseline's own converter (%s). multi30k: dev sentences, normal stopping, so the two builds' "
      "different int8 arithmetic may give different outputs (%s); ms per sentence is the figure that compares. "
      "tiny / base: random checkpoints, 32 ids in, exactly 32 tokens out. Sources: %s. Peak RSS: "
      "`edgemt-translate` on %d sources. Every process starts with its model file in the page cache (read "
      "just before)." % (
          schema_format_major() or "?", B["calibration_note"], "; ".join(tokens) or "–", limits, P["rss_limit"]))
    w("")
    la0, la1 = B.get("loadavg_start"), B.get("loadavg_end")
    loads = [x["other_load"] for n in B["runs"] for k in B["runs"][n] if not k.startswith("rss")
             for b in BUILDS for x in B["runs"][n][k][b] if x.get("other_load") is not None]
    w("Machine load: load average %s at the start of the comparison, %s at its end; other processes used "
      "mean %.2f, max %.2f cores during its timed runs (the figure per run: CPU time of everything else / "
      "wall time); the comparison took %.1f min%s." % (
          ", ".join("%.2f" % x for x in la0) if la0 else "?", ", ".join("%.2f" % x for x in la1) if la1 else "?",
          sum(loads) / len(loads) if loads else 0.0, max(loads) if loads else 0.0, B.get("measure_s", 0) / 60.0,
          " (quick mode: few sentences, NOT representative)" if meta["quick"] else ""))
    w("")
    w("### Goals against the baseline")
    w("")
    w("| Goal | Target | Measured | Met | |")
    w("|---|---|---|---|---|")
    for g in B["goals"]:
        w("| %s | %s | %s | %s | %s |" % (g["goal"], g["target"], g["measured"], "yes" if g["met"] else "**no**",
                                         g["detail"]))
    w("")
    w("### Per model (better of 1 and 2 threads per build)")
    w("")
    w("| Model | measure | baseline %s | new | new / baseline | | per-round range |" % B["short"])
    w("|---|---|---|---|---|---|---|")
    for name in S:
        for key, label, kind, field, better, digits in BASELINE_MEASURES:
            row = S[name]["measures"].get(key)
            if row is None:
                continue
            if key == "peak_rss_mb":
                meaning = "%.1f MB %s" % (abs(row["new"]["value"] - row["baseline"]["value"]),
                                          "less" if row["ratio"] <= 1 else "more")
            else:
                meaning = "%.2fx %s" % (row["speedup"] if row["speedup"] >= 1 else 1 / row["speedup"],
                                        "faster" if row["speedup"] >= 1 else "slower")
            rr = row["round_ratios"]
            w("| %s | %s | %s (%d) | %s (%d) | %.3f | %s | %s |" % (
                name, label, fmt(row["baseline"]["value"], digits), row["baseline"]["threads"],
                fmt(row["new"]["value"], digits), row["new"]["threads"], row["ratio"], meaning,
                "%.3f–%.3f" % (min(rr), max(rr)) if rr else "–"))
    w("")
    w("### Every configuration (median over the rounds; baseline → new)")
    w("")
    w("| Model | batch | thr | ms/sentence | tokens/s | encoder ms/sentence | decoder ms/step | load ms | "
      "peak RSS MB | other load (max) |")
    w("|---|---|---|---|---|---|---|---|---|---|")

    def pair(runs, field, digits):  # 0: not measured (decoder steps are counted at batch 1 only)
        v = {b: [x[field] for x in runs[b] if x.get(field) is not None and x[field] > 0] for b in BUILDS}
        if not v["baseline"] or not v["new"]:
            return "–"
        a, n = statistics.median(v["baseline"]), statistics.median(v["new"])
        return "%s → %s" % (fmt(a, digits), fmt(n, digits))
    for name in S:
        R = B["runs"][name]
        for key, batch, threads in BASELINE_CONFIGS:
            runs = R[key]
            loads = [x.get("other_load", 0.0) for b in BUILDS for x in runs[b]]
            rss = pair(R["rss_t%d" % threads], "peak_rss_mb", 1) if batch == 1 else "–"
            w("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %.2f |" % (
                name, batch, threads, pair(runs, "median_ms_per_sentence", 3), pair(runs, "tokens_per_s", 0),
                pair(runs, "encoder_ms_per_sentence", 3), pair(runs, "decoder_ms_per_step", 4),
                pair(runs, "load_ms", 1), rss, max(loads) if loads else 0.0))
    w("")
    if F:
        w("### Decoder step against its floor")
        w("")
        w("Floor: one decoder step's int8 Linear layers timed alone with this tree's XNNPACK "
          "(`edgemt-xnnpack-gemm-bench --rows 1 --dtype int8 --shapes ... --sequence`): per decoder layer the "
          "fused self-attention QKV (d → 3d), the self-attention output, the cross-attention query and output "
          "(d → d), the feed-forward up (d → d_ff) and down (d_ff → d); then the output projection (d → vocab). "
          "*sum, hot*: each shape timed alone with its weights in cache, times its count, at each layer's "
          "better thread count; *sum, cold*: the same with the weights streamed from memory; *in order*: all "
          "the step's layers with distinct weights (as much memory as the model's) one after the other, the "
          "better of 1 thread and 2 (the pool only for products of at least kMinParallelMacs, as the runtime "
          "does). Decoder ms/step: batch 1, better of 1 and 2 threads, from the rounds above.")
        w("")
        w("| Model | layers per step | weights MB | sum, hot ms | sum, cold ms | in order ms | new: step ms | "
          "new / sum hot | new / in order | baseline: step ms | baseline / sum hot | baseline / in order |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name in S:
            f = F.get(name)
            row = S[name]["measures"].get("decoder_step_ms")
            if not f or not row:
                continue
            seq = min(f["sequence_1_ms"], f["sequence_n_ms"])
            n, b = row["new"], row["baseline"]
            w("| %s | %d | %.1f | %.3f | %.3f | %.3f | %.4f (%d) | %.2fx | %.2fx | %.4f (%d) | %.2fx | %.2fx |" % (
                name, f["layers_per_step"], mb(f["weight_bytes"]), f["hot_best_ms"], f["cold_best_ms"], seq,
                n["value"], n["threads"], n["value"] / f["hot_best_ms"], n["value"] / seq, b["value"], b["threads"],
                b["value"] / f["hot_best_ms"], b["value"] / seq))
        w("")
    w("### Commands of the comparison")
    w("")
    w("From the repository root. Each timed command ran once per round (xN), a baseline process and the "
      "corresponding one of this tree alternately, configuration after configuration, in this order:")
    w("")
    write_commands(w, B["commands"], merge_all=True)


def write_report(path, results, meta, models, goals, xnn, notes_text, baseline=None, separate_runs=None):
    E, T, Q = results["edgemt"], results["torch"], results["quality"]
    P = results["plan"]
    L = []
    w = L.append
    w("# EdgeMT benchmarks")
    w("")
    w("Generated by `%s` — do not edit by hand (the analysis section comes from `tests/bench/ANALYSIS.md`)."
      % meta["command"])
    w("")
    w("| | |")
    w("|---|---|")
    w("| Date | %s |" % meta["date"])
    w("| Commit | `%s` %s%s |" % (meta["git"]["short"], meta["git"]["subject"],
                                " (with uncommitted changes in runtime/converter/bench)" if meta["git"]["dirty"] else ""))
    mi = meta["machine"]
    w("| CPU | %s (family %s, model %s)%s, %d cores, %s MB RAM |" % (
        mi["cpu_model"], mi.get("cpu_family"), mi.get("cpu_model_number"), ", virtual machine" if mi["hypervisor"]
        else "", mi["cores"], fmt(mi["mem_total_mb"], 0)))
    w("| SIMD flags | %s |" % " ".join(mi["simd_flags"]))
    w("| OS | Debian %s, Linux %s |" % (mi.get("debian", "?"), mi["kernel"]))
    w("| Build | %s, %s, `%s` |" % (meta["build"].get("CMAKE_BUILD_TYPE"), meta["build"].get("compiler_version"),
                                   meta["build"].get("CMAKE_CXX_FLAGS_RELEASE")))
    if meta["build"].get("kernels"):
        w("| Libraries | %s |" % meta["build"]["kernels"])
    else:  # a JSON from before the kernels were recorded: Debian's packages
        w("| Libraries | XNNPACK %s, pthreadpool %s (Debian) |" % (mi["packages"].get("libxnnpack0"),
                                                                   mi["packages"].get("libpthreadpool0")))
    w("| PyTorch | python3-torch %s, BLAS: %s |" % (mi["packages"].get("python3-torch"), meta["torch_blas"]))
    w("| Load average at start | %s (1, 5, 15 min)%s |" % (", ".join("%.2f" % x for x in meta["loadavg_start"]),
                                                          meta.get("quiet_note", "")))
    w("| Load average at end | %s |" % ", ".join("%.2f" % x for x in meta["loadavg_end"]))
    loads = [r["other_load"] for n in E for d in E[n] for r in E[n][d]["runs"].values()]
    if loads:
        w("| Other processes during EdgeMT timings | mean %.2f, max %.2f cores (CPU time of everything else / "
          "wall time, per run); waited %.0f s for idle (up to %.0f s before each timed run) |" % (
              sum(loads) / len(loads), max(loads), meta.get("idle_waited_s", 0), meta.get("idle_wait_per_child_s", 0)))
    w("| Duration | %.1f min%s |" % (meta["duration_s"] / 60.0, " (quick mode: few sentences, NOT representative)"
                                    if meta["quick"] else ""))
    w("")
    w("Batch 1 figures are over %d repetitions after an untimed warm-up pass (median and fastest repetition), "
      "per sentence = pass time / sentences; tokens are output tokens (no `</s>`). multi30k: the 500 dev "
      "sentences, normal stopping. tiny / base: random checkpoints (`make_random_checkpoint.py`), 100 sources of "
      "32 ids, exactly 32 output tokens. PyTorch = Debian's python3-torch running the reference decoder "
      "**without a KV cache** (every step re-runs the whole prefix, as `reference.py` does), one pass after one "
      "untimed sentence. *other load*: CPU cores that other processes used while the run took place (machine CPU "
      "time from /proc/stat minus the child's own, per wall second); above ~0.1 the figure is disturbed, 2-thread "
      "runs most of all." % P["repeat"])
    w("")

    cut = ["%s %s: the first %d" % (n, d, P[n]["limit"][d]) for n in E for d in ("int8", "float32")
           if P[n]["limit"][d]]
    if cut:
        w("Fewer sources at batch 1, to keep the run within 20 minutes (per-sentence figures compare directly): "
          + "; ".join(cut) + ". Batch 32: " + "; ".join("%s %s: %d sources" % (n, d, P[n]["batch32"][d])
                                                        for n in E if "batch32" in P[n] for d in ("int8", "float32"))
          + ".")
        w("")

    # Goals
    w("## Goals")
    w("")
    w("| Goal | Target | Measured | Met | |")
    w("|---|---|---|---|---|")
    for g in goals:
        w("| %s | %s | %s | %s | %s |" % (g["goal"], g["target"], g["measured"], "yes" if g["met"] else "**no**",
                                         g["detail"]))
    w("")

    if baseline:
        write_baseline_section(w, baseline, results, meta)

    # Batch 1
    w("## Batch 1: latency and throughput")
    w("")
    w("| Model | dtype | threads | sentences | median ms/sentence | min ms/sentence | median of sentences ms | "
      "tokens/s | best tokens/s | PyTorch ms/sentence | EdgeMT speed-up | other load |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in E:
        for dtype in ("int8", "float32"):
            for t in (1, 2):
                r = E[name][dtype]["runs"]["b1_t%d" % t]
                tr = T.get(name, {}).get("%s_t%d" % (dtype, t))
                tms = tr["mean_ms_per_sentence"] if tr else None
                ratio = "%.1fx" % (tms / r["median_ms_per_sentence"]) if tms else "–"
                tnote = " (%d sent.)" % tr["sentences"] if tr and tr["sentences"] != r["sentences"] else ""
                w("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s%s | %s | %.2f |" % (
                    name, dtype, t, r["sentences"], fmt(r["median_ms_per_sentence"], 3),
                    fmt(r["min_ms_per_sentence"], 3), fmt(r.get("median_sentence_ms"), 3), fmt(r["tokens_per_s"], 0),
                    fmt(r["best_tokens_per_s"], 0), fmt(tms, 1), tnote, ratio, r.get("other_load", 0.0)))
    w("")
    w("2 threads vs 1 (batch 1, time with 2 threads / time with 1; < 1 is faster). *separate runs*: the medians "
      "above; *alternating*: %d rounds of a 1-thread and a 2-thread process, one after the other, on the first N "
      "sources (median of the per-round ratios; the goal is judged on this one, because the machine's speed "
      "drifts between separate runs):" % P.get("pair_rounds", 0))
    w("")
    w("| Model | int8: separate runs | int8: alternating (N) | float32: separate runs | float32: alternating (N) |")
    w("|---|---|---|---|---|")
    for name in E:
        cells = []
        for dtype in ("int8", "float32"):
            r = E[name][dtype]["runs"]
            cells.append("%.3f" % (r["b1_t2"]["median_ms_per_sentence"] / r["b1_t1"]["median_ms_per_sentence"]))
            tp = E[name][dtype].get("thread_pairs")
            cells.append("%.3f (%d)" % (tp["median_ratio"], tp["limit"]) if tp else "–")
        w("| %s | %s |" % (name, " | ".join(cells)))
    w("")

    # Batch 32
    if any("b32_t1" in E[n]["int8"]["runs"] for n in E):
        w("## Batch 32: throughput")
        w("")
        w("| Model | dtype | threads | sentences | median tokens/s | best tokens/s | vs batch 1 | decoder ms per "
          "batch step | other load |")
        w("|---|---|---|---|---|---|---|---|---|")
        for name in E:
            for dtype in ("int8", "float32"):
                for t in (1, 2):
                    r = E[name][dtype]["runs"].get("b32_t%d" % t)
                    if not r:
                        continue
                    b1 = E[name][dtype]["runs"]["b1_t%d" % t]["tokens_per_s"]
                    w("| %s | %s | %d | %d | %s | %s | %.1fx | %s | %.2f |" % (
                        name, dtype, t, r["sentences"], fmt(r["tokens_per_s"], 0), fmt(r["best_tokens_per_s"], 0),
                        r["tokens_per_s"] / b1, fmt(r["decoder_ms_per_step"], 3), r.get("other_load", 0.0)))
        w("")

    # Where time goes
    F = results.get("decoder_floors") or {}
    w("## Where the time goes (batch 1)")
    w("")
    if F:
        floor_text = ("Floor: XNNPACK alone (`edgemt-xnnpack-gemm-bench --shapes ... --sequence`, int8, one row) "
                      "runs one decoder step's Linear layers in %s (each shape timed alone with its weights in "
                      "cache, at its better thread count, summed; in step order with distinct weights: %s)." % (
                          ", ".join("%.3f ms (%s)" % (F[n]["hot_best_ms"], n) for n in F),
                          ", ".join("%.3f ms (%s)" % (min(F[n]["sequence_1_ms"], F[n]["sequence_n_ms"]), n)
                                    for n in F)))
    else:  # a JSON from before the floor was measured: the figures of the old XNNPACK benchmark
        floor_text = ("Floor: XNNPACK alone runs one decoder step's int8 linear layers in ~%.2f ms (tiny) and "
                      "~%.2f ms (base, weights in cache; ~%.1f ms from memory)." % (
                          FLOOR_TINY_STEP_MS, FLOOR_BASE_STEP_HOT_MS, FLOOR_BASE_STEP_COLD_MS))
    w("Encoder per sentence and one decoder step (token choice included), timed without profiling; the shares "
      "come from separate profiled passes (`TranslatorOptions::profile`): XNNPACK = inside XNNPACK operators "
      "(all Linear layers, with the int8 quantization of their inputs); attention = score/value products and "
      "softmax; LayerNorm (+ residual sums); embedding; other = activations not fused into a GEMM and the token "
      "choice (argmax). " + floor_text)
    w("")
    w("| Model | dtype | thr | encoder ms/sentence | decoder ms/step | step: XNNPACK ms | step: XNNPACK | attention | "
      "LayerNorm | embedding | other | encoder: XNNPACK | attention | LayerNorm | other |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in E:
        for dtype in ("int8", "float32"):
            for t in (1, 2):
                r = E[name][dtype]["runs"]["b1_t%d" % t]
                d, e = r["profile"]["decoder_per_step"], r["profile"]["encoder_per_sentence"]
                pct = lambda x: "%.0f%%" % (100 * x)
                w("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    name, dtype, t, fmt(r["encoder_ms_per_sentence"], 3), fmt(r["decoder_ms_per_step"], 4),
                    fmt(d["xnnpack_ms"], 4), pct(d["xnnpack_share"]), pct(d["attention_share"]),
                    pct(d["layer_norm_share"]), pct(d["embedding_share"]), pct(d["other_share"]),
                    pct(e["xnnpack_share"]), pct(e["attention_share"]), pct(e["layer_norm_share"]),
                    pct(e["other_share"])))
    w("")
    if F:
        floors = [(n, F[n]["hot_best_ms"], min(F[n]["sequence_1_ms"], F[n]["sequence_n_ms"])) for n in F]
    else:
        floors = [("tiny", FLOOR_TINY_STEP_MS, None), ("base", FLOOR_BASE_STEP_HOT_MS, FLOOR_BASE_STEP_COLD_MS)]
    for name, floor, floor2 in floors:
        if name in E:
            r1 = E[name]["int8"]["runs"]
            # The better thread count (a value <= 0 is noise of the subtraction: skipped).
            steps = [r1[k]["decoder_ms_per_step"] for k in ("b1_t1", "b1_t2") if r1[k]["decoder_ms_per_step"] > 0]
            xss = [r1[k]["profile"]["decoder_per_step"]["xnnpack_ms"] for k in ("b1_t1", "b1_t2")
                   if r1[k]["profile"]["decoder_per_step"]["xnnpack_ms"] > 0]
            if not steps or not xss:
                continue
            step, xs = min(steps), min(xss)
            extra = ""
            if floor2 is not None:
                extra = (" (%.1fx the %.2f ms of its layers in step order)" if F else
                         " (%.1fx the from-memory floor of %.1f ms)") % (step / floor2, floor2)
            w("- %s int8: decoder step %.3f ms = %.1fx the XNNPACK floor of %.3f ms%s; of it %.3f ms inside "
              "XNNPACK." % (name, step, step / floor, floor, extra, xs))
    w("")

    # Memory, load, size
    w("## Load time, file size, memory")
    w("")
    w("Load = `Model::Load` (mmap + verification) + `Translator::Create` (packing weights into XNNPACK, "
      "allocating the arena; with 2 threads the layers are packed on both), median of %d processes, warm page cache. Peak RSS = `ru_maxrss` (via /usr/bin/time) of a child "
      "`edgemt-translate` process that loads the model and translates the benchmark inputs (PyTorch: the "
      "reference process, interpreter and libraries included)." % P["load_runs"])
    w("")
    w("| Model | dtype | file MB | arena MB | load ms 1 thr (min) | 2 thr (min) | of it Model::Load ms | "
      "peak RSS MB 1 thr | 2 thr | 1.3 x file + arena MB | PyTorch RSS MB 1 thr | PyTorch / EdgeMT |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    if "baseline_rss_kb" in results:
        w("| (any process: micro random model, %.2f MB) | int8 | | | | | | %s | | | | |" % (
            mb(results["baseline_file_bytes"]), fmt(mb(results["baseline_rss_kb"] * 1024))))
    for name in E:
        for dtype in ("int8", "float32"):
            e = E[name][dtype]
            arena = e["runs"]["b1_t1"]["arena_bytes"]
            rss1, rss2 = e["rss_t1"]["peak_rss_kb"] * 1024, e["rss_t2"]["peak_rss_kb"] * 1024
            tr = T.get(name, {}).get("%s_t1" % dtype)
            trss = tr["peak_rss_kb"] * 1024 if tr else None
            l2 = e.get("load_t2")
            w("| %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s |" % (
                name, dtype, fmt(mb(e["file_bytes"])), fmt(mb(arena)), fmt(e["load"]["median_ms"]),
                fmt(e["load"]["min_ms"]), "%s (%s)" % (fmt(l2["median_ms"]), fmt(l2["min_ms"])) if l2 else "–",
                fmt(e["load"]["model_load_median_ms"], 2), fmt(mb(rss1)), fmt(mb(rss2)),
                fmt(mb(GOAL_RSS_FACTOR * e["file_bytes"] + arena)), fmt(mb(trss)) if trss else "–",
                "%.1fx" % (trss / rss1) if trss else "–"))
    w("")

    if results.get("binaries"):
        w("What a device gets, stripped (`strip`); XNNPACK, pthreadpool, cpuinfo and SentencePiece are inside "
          "each (tests/bench/deployment_sizes.py):")
        w("")
        for line in deployment_sizes.markdown({"build": results["binaries"]}):
            w(line)
        w("")

    # Accuracy
    w("## Accuracy")
    w("")
    if "multi30k" in Q:
        q = Q["multi30k"]
        w("multi30k dev (500 sentences), `../shared/models/multi30k-ende/bleu.py` against `dev.de`:")
        w("")
        w("| System | BLEU | |")
        w("|---|---|---|")
        w("| PyTorch reference fp32 (committed `reference/dev.greedy.de`) | %s | %s |" % (
            fmt(q["reference_fp32_committed"]["bleu"], 2), q["reference_fp32_committed"]["line"]))
        for key, label in (("torch_float32", "PyTorch fp32 (this run)"),
                           ("torch_int8", "PyTorch quantize_dynamic int8 (this run)")):
            if key in q:
                w("| %s | %s | %s |" % (label, fmt(q[key]["bleu"], 2), q[key]["line"]))
        for dtype in ("float32", "int8"):
            s, n = q["edgemt_%s_same_as_reference_fp32" % dtype]
            w("| EdgeMT %s | %s | %s; %d/%d lines identical to the reference fp32 output; 1 and 2 threads %s |" % (
                dtype, fmt(q["edgemt_" + dtype]["bleu"], 2), q["edgemt_" + dtype]["line"], s, n,
                "identical" if q["edgemt_%s_1_vs_2_threads_identical" % dtype] else "**differ**"))
        w("")
    rq = [(n, Q[n]) for n in Q if n != "multi30k"]
    if rq:
        w("Random checkpoints (no meaningful accuracy; agreement of greedy outputs, 32 tokens each):")
        w("")
        w("| Model | comparison | sentences | identical | same token at same position | mean common prefix |")
        w("|---|---|---|---|---|---|")
        for n, q in rq:
            for key, label in (("edgemt_vs_torch_float32", "EdgeMT fp32 vs PyTorch fp32"),
                               ("edgemt_vs_torch_int8", "EdgeMT int8 vs PyTorch dynamic int8"),
                               ("edgemt_int8_vs_float32", "EdgeMT int8 vs EdgeMT fp32")):
                if key in q:
                    a = q[key]
                    w("| %s | %s | %d | %d | %s | %s |" % (n, label, a["sentences"], a["identical_sentences"],
                                                           fmt(100 * a["position_agreement"], 1) + "%",
                                                           fmt(a["mean_common_prefix"], 1)))
        w("")

    # XNNPACK threads
    if xnn:
        w("## XNNPACK alone: 1 vs 2 threads")
        w("")
        w("`build/bin/edgemt-xnnpack-gemm-bench` (tests/bench/xnnpack_gemm_bench.cc): one Linear layer as the runtime "
          "runs it (setup + run), microseconds per call, median. hot = the same operator again and again; cold = "
          "a ring of copies whose weights total >= 96 MB. The runtime uses the pool only from "
          "`kMinParallelMacs` = %s MACs (runtime/src/ops/linear.h at this commit)." % min_parallel_macs())
        w("")
        w("| Layer | dtype | M | MACs | hot 1 thr µs | hot 2 thr µs | 2 thr speed-up | cold 1 thr µs | cold 2 thr µs | "
          "speed-up |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for x in xnn:
            w("| %s | %s | %d | %s | %s | %s | %.2fx | %s | %s | %.2fx |" % (
                x["shape"], x["dtype"], x["rows"], fmt(x["macs"], 0), fmt(x["hot_us_1"], 2), fmt(x["hot_us_n"], 2),
                x["hot_us_1"] / x["hot_us_n"], fmt(x["cold_us_1"], 2), fmt(x["cold_us_n"], 2),
                x["cold_us_1"] / x["cold_us_n"]))
        w("")

    # PyTorch notes
    if T:
        w("## PyTorch reference runs")
        w("")
        w("- multi30k: `../shared/models/multi30k-ende/reference.py` (its own timing line; includes SentencePiece "
          "encoding/decoding of each sentence, which is negligible). tiny/base: `tests/bench/torch_fixed_length.py` "
          "(the classes of reference.py, forced 32 tokens: `</s>` masked). Both: batch 1, no KV cache, "
          "`--int8` = `torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, torch.qint8)` (FFN and output "
          "projection only; attention projections stay fp32), quantized engine %s." % meta.get("torch_qengine", "?"))
        w("- BLAS: %s. With Debian's default reference BLAS (`libblas3`, what this machine has installed), "
          "float32 PyTorch is about 10x slower still." % meta["torch_blas"])
        limits = []
        for name in T:
            for key, t in T[name].items():
                total = 500 if name == "multi30k" else 100
                if t["sentences"] != total:
                    limits.append("%s %s: %d of %d sentences" % (name, key, t["sentences"], total))
        if limits:
            w("- Limited to keep the whole run within 20 minutes (ms/sentence and tokens/s are per sentence, so they "
              "compare directly): " + "; ".join(sorted(set(limits))) + ".")
        w("")
        w("| Model | run | sentences | ms/sentence (mean) | median | min | tokens/s | peak RSS MB |")
        w("|---|---|---|---|---|---|---|---|")
        for name in T:
            for key, t in T[name].items():
                w("| %s | %s | %d | %s | %s | %s | %s | %s |" % (
                    name, key.replace("_t", ", threads "), t["sentences"], fmt(t["mean_ms_per_sentence"], 1),
                    fmt(t.get("median_sentence_ms"), 1), fmt(t.get("min_sentence_ms"), 1), fmt(t["tokens_per_s"], 1),
                    fmt(mb(t["peak_rss_kb"] * 1024))))
        w("")

    # Conversions
    w("## Model files")
    w("")
    for name, m in models.items():
        for dtype in ("int8", "float32"):
            c = m["conversions"].get(dtype)
            how = ("committed file" if c is None else "written by edgemt-bench-model (random, not converted)"
                   if c.get("generated") else ("cached conversion" if c["cached"] else
                                               "converted in this run in %.1f s" % c["seconds"]))
            w("- %s %s: `%s` (%s bytes), %s" % (name, dtype, rel(m["files"][dtype]),
                                                fmt(os.path.getsize(m["files"][dtype]), 0), how))
    w("")

    for section in separate_runs or []:
        # Measured by another script at another time (its own date and commit
        # are in its text): never mixed into this run's tables.
        w(section["markdown"].strip())
        w("")

    if notes_text:
        w("## Analysis")
        w("")
        w(notes_text.strip())
        w("")

    w("## Commands")
    w("")
    w("Run from the repository root, in this order (paths relative to it; `../shared` is the shared material):")
    w("")
    write_commands(w, meta["commands"])
    with open(path, "w") as f:
        f.write("\n".join(L))


# --------------------------------------------------------------------------

def wait_quiet(seconds, threshold):
    waited = 0
    while os.getloadavg()[0] > threshold and waited < seconds:
        log("load average %.2f > %.2f: waiting (%d of %d s)" % (os.getloadavg()[0], threshold, waited, seconds))
        time.sleep(30)
        waited += 30
    return waited


def analysis_text(quick):
    """tests/bench/ANALYSIS.md, the hand-written part of the report (not for quick runs: it discusses full ones)."""
    path = os.path.join(HERE, "ANALYSIS.md")
    return open(path).read() if os.path.exists(path) and not quick else ""


def rewrite_report(args):
    """BENCHMARKS.md again from BENCHMARKS.json and the current ANALYSIS.md: same figures, same commands."""
    out = args.out or os.path.join(REPO, "BENCHMARKS.md")
    with open(os.path.splitext(out)[0] + ".json") as f:
        data = json.load(f)
    def absolute(path):
        return os.path.join(REPO, path) if not os.path.isabs(path) else path
    models = {n: dict(kind=m["kind"], conversions=m["conversions"],
                      files={d: absolute(p) for d, p in m["files"].items()}) for n, m in data["models"].items()}
    json_path = os.path.splitext(out)[0] + ".json"
    if args.peer_json:
        # peer_bench's figures: the goals' ratios to CTranslate2 come from them.
        with open(args.peer_json) as f:
            data["peer"] = json.load(f)
        data["goals"] = evaluate_goals(data["results"], models, data["peer"])
        with open(json_path, "w") as f:
            f.write(json.dumps(data, indent=1) + "\n")
    if args.attach_section:
        # A section measured separately (tests/bench/packed_cache_bench.py --md):
        # kept in the JSON under its file name, replacing an older one.
        name = os.path.basename(args.attach_section)
        with open(args.attach_section) as f:
            text = f.read()
        runs = [r for r in data.get("separate_runs", []) if r["name"] != name]
        runs.append({"name": name, "markdown": text})
        data["separate_runs"] = runs
        with open(json_path, "w") as f:
            f.write(json.dumps(data, indent=1) + "\n")
    write_report(out, data["results"], data["meta"], models, data["goals"], data["xnnpack_threads"],
                 analysis_text(data["meta"]["quick"]), data.get("baseline"), data.get("separate_runs"))
    log("rewrote %s from %s" % (rel(out), rel(json_path)))


def main():
    global COMMANDS  # swapped while the baseline's commands are recorded
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="few sentences, 1 repetition; writes build/bench-quick/")
    ap.add_argument("--out", help="BENCHMARKS.md path (JSON beside it)")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    ap.add_argument("--cache-dir")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--models", default="multi30k,tiny,base")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--skip-xnnpack", action="store_true")
    ap.add_argument("--torch-blas", default="openblas", choices=["openblas", "system"])
    ap.add_argument("--generated-models", action="store_true",
                    help="tiny/base from build/bin/edgemt-bench-model instead of converted checkpoints")
    ap.add_argument("--wait-quiet", type=int, default=0, help="wait up to N s for a quiet machine")
    ap.add_argument("--report-only", action="store_true",
                    help="measure nothing: rewrite BENCHMARKS.md from the JSON beside it (e.g. after editing "
                         "tests/bench/ANALYSIS.md)")
    ap.add_argument("--attach-section", metavar="MD",
                    help="with --report-only: keep this Markdown section, measured by another script (e.g. "
                         "tests/bench/packed_cache_bench.py --md FILE), in the JSON and the report")
    ap.add_argument("--peer-json", metavar="JSON",
                    help="with --report-only: tests/bench/peer_bench.py's JSON, for the goals' ratios to CTranslate2")
    ap.add_argument("--quiet-load", type=float, default=0.5)
    ap.add_argument("--idle-wait", type=float, default=None,
                    help="before each timed child, wait up to S s for other processes to use < 0.15 cores "
                         "(default 30, quick 0)")
    ap.add_argument("--idle-budget", type=float, default=300, help="total seconds of such waiting (default 300)")
    ap.add_argument("--baseline", metavar="REV",
                    help="also compare with commit REV in the same run: int8, alternating processes (a worktree "
                         "in BUILD/bench-baseline/, its own converter's models in CACHE/baseline/)")
    ap.add_argument("--baseline-rounds", type=int, default=None, metavar="N",
                    help="rounds of baseline/new processes per configuration (default 3; at least 3 unless "
                         "--quick)")
    args = ap.parse_args()
    if args.report_only:
        rewrite_report(args)
        return
    if not os.access(TIME_PROGRAM, os.X_OK):
        raise SystemExit("%s is missing: peak memory is measured with it (Debian package time; "
                         "tools/install-deps.sh installs it)" % TIME_PROGRAM)
    if args.repeat < 3 and not args.quick:
        ap.error("--repeat must be at least 3 (the table promises >= 3 repetitions)")
    if args.baseline_rounds is None:
        args.baseline_rounds = 3
    if args.baseline_rounds < (1 if args.quick else 3):
        ap.error("--baseline-rounds must be at least 3 (1 with --quick)")
    if args.baseline:
        resolve_commit(args.baseline)  # a bad REV fails before anything is built

    build_dir = os.path.abspath(args.build_dir)
    cache_dir = os.path.abspath(args.cache_dir or os.path.join(build_dir, "bench-cache"))
    out = os.path.abspath(args.out or (os.path.join(build_dir, "bench-quick", "BENCHMARKS.md") if args.quick
                                       else os.path.join(REPO, "BENCHMARKS.md")))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    os.makedirs(cache_dir, exist_ok=True)
    work = os.path.join(cache_dir, "run-quick" if args.quick else "run")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    for n in names:
        if n not in ("multi30k", "tiny", "base"):
            ap.error("unknown model %r" % n)

    invocation = "tests/bench/run_benchmarks.py" + ("" if len(sys.argv) == 1 else " " + " ".join(
        shlex.quote(a) for a in sys.argv[1:]))
    meta = dict(command=invocation, quick=args.quick, git=git_info(), machine=machine_info())
    bins, meta["build"] = build(build_dir, args.no_build)
    models = prepare_models(cache_dir, names, args.quick,
                            bins["edgemt-bench-model"] if args.generated_models else None)
    meta["generated_models"] = args.generated_models
    fixed_ids = fixed_sources(cache_dir)
    base = None
    if args.baseline:
        # The baseline's commands are listed in its own section.
        main_commands, COMMANDS = COMMANDS, []
        base = run_baseline(args, build_dir, cache_dir, models, bins, fixed_ids, work)
        base_commands, COMMANDS = COMMANDS, main_commands
    env, env_note, meta["torch_blas"] = torch_env(cache_dir, args.torch_blas)
    r = subprocess.run([PYTHON, "-c", "import torch; print(torch.backends.quantized.engine)"], capture_output=True,
                       text=True, env=env)
    meta["torch_qengine"] = r.stdout.strip()

    if args.wait_quiet:
        waited = wait_quiet(args.wait_quiet, args.quiet_load)
        meta["quiet_note"] = "; waited %d s for <= %.2f" % (waited, args.quiet_load) if waited else ""
    QUIET["max_wait_s"] = args.idle_wait if args.idle_wait is not None else (0.0 if args.quick else 30.0)
    QUIET["budget_s"] = args.idle_budget
    meta["loadavg_start"] = list(os.getloadavg())
    log("measuring; load average %.2f %.2f %.2f" % tuple(meta["loadavg_start"]))
    t_measure = time.time()
    xnn = [] if args.skip_xnnpack else None
    results = measure(args, bins, models, fixed_ids, work, env, env_note)
    results["binaries"] = binary_sizes(args.build_dir)
    if xnn is None:
        log("XNNPACK 1 vs 2 threads")
        xnn = xnnpack_threads(bins, args.quick)
    if not args.skip_xnnpack or base:
        results["decoder_floors"] = decoder_floors(bins["edgemt-xnnpack-gemm-bench"], models, args.quick)
    meta["loadavg_end"] = list(os.getloadavg())
    baseline = None
    if base:
        main_commands, COMMANDS = COMMANDS, base_commands
        p = baseline_plan(args.quick, args.baseline_rounds)
        waited0, t0, load0 = QUIET["waited_s"], time.time(), list(os.getloadavg())
        log("baseline %s against this tree: %d rounds per configuration" % (base["short"], p["rounds"]))
        runs = compare_builds(dict(baseline=base["bins"], new=bins),
                              dict(baseline=base["files"], new={n: m["files"]["int8"] for n, m in models.items()}),
                              models, fixed_ids, work, p)
        summary = summarize_builds(runs)
        baseline = dict(
            rev=base["rev"], commit=base["commit"], short=base["short"], subject=base["subject"],
            src=rel(base["src"]), build_dir=rel(base["build_dir"]), build=base["build"],
            files={n: rel(f) for n, f in base["files"].items()}, conversions=base["conversions"],
            calibration_note=base["calibration_note"], kinds={n: m["kind"] for n, m in models.items()},
            plan=p, runs=runs, summary=summary, goals=evaluate_baseline_goals(summary),
            loadavg_start=load0, loadavg_end=list(os.getloadavg()), measure_s=round(time.time() - t0, 1),
            idle_waited_s=round(QUIET["waited_s"] - waited0, 1), commands=COMMANDS)
        COMMANDS = main_commands
    meta["idle_waited_s"] = round(QUIET["waited_s"], 1)
    meta["idle_wait_per_child_s"] = QUIET["max_wait_s"]
    meta["measure_s"] = round(time.time() - t_measure, 1)
    meta["duration_s"] = round(time.time() - T0, 1)
    meta["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    meta["commands"] = COMMANDS
    goals = evaluate_goals(results, models)
    write_report(out, results, meta, models, goals, xnn, analysis_text(args.quick), baseline)
    text = json.dumps(dict(meta=meta, goals=goals, results=results, xnnpack_threads=xnn,
                           models={n: dict(kind=m["kind"], files={d: rel(p) for d, p in m["files"].items()},
                                           conversions=m["conversions"]) for n, m in models.items()},
                           baseline=baseline),
                      indent=1)
    # Paths relative to the repository, as in BENCHMARKS.md.
    text = text.replace(SHARED + "/", "../shared/").replace(REPO + "/", "")
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        f.write(text + "\n")
    log("wrote %s and %s in %.1f min" % (rel(out), rel(os.path.splitext(out)[0] + ".json"), meta["duration_s"] / 60))


if __name__ == "__main__":
    main()
