"""Machine, commit and build metadata of a run: what the report says a figure was measured on."""
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
import time

from . import load
from .paths import REPO

SIMD = ["sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx_vnni",
        "avx512_bf16", "avx512vbmi", "neon", "asimd", "asimddp"]
PACKAGES = ("libxnnpack0", "libpthreadpool0", "python3-torch", "libblas3", "libopenblas0-openmp")


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def debian_version(package):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None


def _cpuinfo(info):
    with open("/proc/cpuinfo") as f:
        text = f.read()
    m = re.search(r"^model name\s*:\s*(.*)$", text, re.M)
    info["cpu_model"] = m.group(1).strip() if m else platform.processor()
    m = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    flags = m.group(1).split() if m else []
    info["simd_flags"] = [f for f in SIMD if f in flags]
    for key, pattern in (("cpu_family", r"^cpu family\s*:\s*(\d+)"), ("cpu_model_number", r"^model\s*:\s*(\d+)")):
        m = re.search(pattern, text, re.M)
        if m:
            info[key] = int(m.group(1))
    info["cores"] = os.cpu_count()
    info["hypervisor"] = "hypervisor" in flags


def machine_info():
    info = {}
    _cpuinfo(info)
    with open("/proc/meminfo") as f:
        m = re.search(r"MemTotal:\s*(\d+) kB", f.read())
    info["mem_total_mb"] = int(m.group(1)) // 1024 if m else None
    info["kernel"] = platform.release()
    try:
        with open("/etc/debian_version") as f:
            info["debian"] = f.read().strip()
    except OSError:
        pass
    info["packages"] = {pkg: debian_version(pkg) for pkg in PACKAGES}
    return info


def git_info():
    def git(*a):
        return subprocess.run(["git", "-C", REPO] + list(a), capture_output=True, text=True).stdout.strip()
    return dict(commit=git("rev-parse", "HEAD"), short=git("rev-parse", "--short", "HEAD"),
                subject=git("log", "-1", "--format=%s"),
                dirty=bool(git("status", "--porcelain", "--untracked-files=no", "--", "runtime", "converter",
                               "tests/bench", "CMakeLists.txt", "cmake")))


def _kernels(info):
    """The kernel libraries: built by tools/kernel-deps.sh (their VERSIONS file), or Debian's shared ones."""
    versions = os.path.join(info.get("EDGEMT_KERNEL_DEPS_PREFIX", "/nonexistent"), "VERSIONS")
    if os.path.exists(versions):
        with open(versions) as f:
            v = dict(line.split(None, 1) for line in f.read().splitlines() if " " in line)
        return "XNNPACK %s, pthreadpool %s, cpuinfo %s (static, built by tools/kernel-deps.sh)" % (
            v.get("xnnpack", "?").strip(), v.get("pthreadpool", "?").strip(), v.get("cpuinfo", "?").strip())
    if info.get("XNNPACK_LIBRARY"):
        return "XNNPACK %s, pthreadpool %s, cpuinfo %s (Debian, shared)" % tuple(
            debian_version(p) for p in ("libxnnpack0", "libpthreadpool0", "libcpuinfo0"))
    return None


def build_info(build_dir):
    """A CMake build's settings (from its CMakeCache.txt), kernel libraries and compiler version."""
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
    kernels = _kernels(info)
    if kernels:
        info["kernels"] = kernels
    compiler = info.get("CMAKE_CXX_COMPILER", "c++")
    r = subprocess.run([compiler, "--version"], capture_output=True, text=True)
    info["compiler_version"] = r.stdout.splitlines()[0] if r.returncode == 0 and r.stdout else compiler
    return info


def start_meta(**extra):
    """The metadata a separate script records when it starts (its date is the start)."""
    return dict(machine=machine_info(), git=git_info(), loadavg_start=list(os.getloadavg()), date=utc_now(),
                started=time.time(), **extra)


def finish_meta(meta, commands):
    """Completes start_meta's record: load at the end, duration, the commands run and the locked rounds."""
    meta["loadavg_end"] = list(os.getloadavg())
    meta["duration_s"] = round(time.time() - meta.pop("started"), 1)
    meta["commands"] = list(commands)
    meta["lock_rounds"] = list(load.ROUNDS)
    return meta


def run_header(meta, script, date_is="start"):
    """What the report says about a separate script's run: script, command, date, commit, CPU."""
    mi, git = meta["machine"], meta["git"]
    commit = git["short"] + (" (uncommitted changes)" if git["dirty"] else "")
    return dict(script=script, command=" ".join([script] + [shlex.quote(a) for a in sys.argv[1:]]),
                date=meta["date"], date_is=date_is, commit=commit, cpu=cpu_of(mi))


def cpu_of(mi):
    """The CPU as a figure must name it: model, family, cores and the SIMD extensions that decide which
    kernels run (this VM has moved between AVX-512 VNNI and AVX2-only hosts)."""
    family = " family %d" % mi["cpu_family"] if "cpu_family" in mi else ""
    flags = " ".join(mi.get("simd_flags") or []) or "no SIMD flags read"
    return "%s%s, %d cores, %s" % (mi["cpu_model"], family, mi["cores"], flags)


def measured_when(meta, during="a measured round", simd=False):
    """The sentence a separate script's section opens with: when, at which commit, on what, and how busy the
    machine was (load averages, and the most CPU other processes took during `during`)."""
    mc, rounds = meta["machine"], meta.get("lock_rounds", [])
    del simd  # the SIMD extensions are always named now (cpu_of)
    return ("Measured %s at %s on %s; load average %.2f at the start, %.2f at the end; other processes "
            "used at most %.2f cores during %s." % (
                meta["date"], meta["git"]["short"], cpu_of(mc), meta["loadavg_start"][0],
                meta["loadavg_end"][0], max(r["other_load"] for r in rounds) if rounds else 0.0, during))
