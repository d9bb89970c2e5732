"""The PyTorch reference runs: Debian's python3-torch running the reference decoder without a KV cache
(reference.py for multi30k, tests/bench/torch_fixed_length.py for the random checkpoints), and their BLAS.

PyTorch links the BLAS that libblas.so.3 resolves to; Debian's default (libblas3, the reference BLAS) is 10x
slower than OpenBLAS, so unless --torch-blas system is given the PyTorch children run with Debian's
libopenblas0-openmp (the installed one, else unpacked from `apt-get download` into build/bench-cache/openblas,
without touching the system's alternatives).
"""
import json
import os
import re
import subprocess

from benchlib.log import log
from benchlib.paths import DEV_EN, HERE, MULTI30K, PYTHON, rel
from benchlib.processes import COMMANDS, run_child

SYSTEM_BLAS = "/usr/lib/x86_64-linux-gnu/libblas.so.3"


def _unpacked_openblas(cache_dir):
    """Debian's libopenblas0-openmp unpacked into CACHE/openblas: (its library directory, its version)."""
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
    version = re.search(r"libopenblas0-openmp_([^_]+)_", " ".join(os.listdir(d))) if os.path.isdir(d) else None
    return lib, version.group(1) if version else ""


def torch_env(cache_dir, choice):
    """(environment, the note the report puts before each PyTorch command, a description of the BLAS)."""
    env = dict(os.environ)
    system_blas = os.path.realpath(SYSTEM_BLAS)
    if choice == "system" or "openblas" in system_blas:
        return env, None, "system libblas.so.3 (%s)" % system_blas
    for variant in ("openblas-openmp", "openblas-pthread"):
        d = "/usr/lib/x86_64-linux-gnu/" + variant
        if os.path.exists(os.path.join(d, "libblas.so.3")):
            env["LD_LIBRARY_PATH"] = d
            return env, "LD_LIBRARY_PATH=" + d, "OpenBLAS (installed %s, via LD_LIBRARY_PATH)" % variant
    lib, version = _unpacked_openblas(cache_dir)
    if os.path.exists(os.path.join(lib, "libblas.so.3")):
        env["LD_LIBRARY_PATH"] = lib
        return env, "LD_LIBRARY_PATH=" + rel(lib), \
            "OpenBLAS %s (Debian libopenblas0-openmp, unpacked, via LD_LIBRARY_PATH)" % version
    return env, None, "system libblas.so.3 (%s; OpenBLAS unavailable)" % system_blas


def quantized_engine(env):
    r = subprocess.run([PYTHON, "-c", "import torch; print(torch.backends.quantized.engine)"], capture_output=True,
                       text=True, env=env)
    return r.stdout.strip()


TIMING_LINE = re.compile(r"decoded (\d+) sentences in ([0-9.]+) s: ([0-9.]+) sent/s; (\d+) target tokens without "
                         r"</s> \(([0-9.]+) tok/s\)")


def reference_trained(env, env_note, dtype, threads, limit, work):
    """reference.py on the dev sentences (its own timing line)."""
    out = os.path.join(work, "torch-multi30k-%s-%dt.de" % (dtype, threads))
    ids = os.path.join(work, "torch-multi30k-%s-%dt.ids" % (dtype, threads))
    cmd = [PYTHON, os.path.join(MULTI30K, "reference.py"), "--input", DEV_EN, "--output", out, "--ids-out", ids,
           "--threads", str(threads)] + (["--int8"] if dtype == "int8" else []) + (
        ["--limit", str(limit)] if limit else [])
    r = run_child(cmd, env=env, env_note=env_note, timed=True)
    m = TIMING_LINE.search(r["err"])
    if not m:
        raise SystemExit("no timing line from reference.py:\n" + r["err"][-2000:])
    n, wall = int(m.group(1)), float(m.group(2))
    return dict(sentences=n, wall_s=wall, mean_ms_per_sentence=round(wall * 1000.0 / n, 3),
                tokens=int(m.group(4)), tokens_per_s=float(m.group(5)), peak_rss_kb=r["maxrss_kb"],
                process_wall_s=round(r["wall_s"], 2), command=COMMANDS[-1], output=out, ids=ids,
                timing_line=m.group(0), other_load=r["other_load"])


def reference_fixed(env, env_note, ckpt, source, dtype, threads, limit, work, name):
    """torch_fixed_length.py on the fixed-length sources: exactly 32 tokens each."""
    out = os.path.join(work, "torch-%s-%s-%dt.ids" % (name, dtype, threads))
    cmd = [PYTHON, os.path.join(HERE, "torch_fixed_length.py"), "--checkpoint", ckpt, "--input-ids", source,
           "--length", "32", "--threads", str(threads), "--limit", str(limit), "--output", out]
    if dtype == "int8":
        cmd.append("--int8")
    r = run_child(cmd, env=env, env_note=env_note, timed=True)
    j = json.loads(r["out"].strip().splitlines()[-1])
    j.update(other_load=r["other_load"], peak_rss_kb=r["maxrss_kb"], process_wall_s=round(r["wall_s"], 2),
             command=COMMANDS[-1], ids=out)
    return j


def measure_torch(env, env_note, models, fixed_ids, p, work):
    """{model: {dtype_tN: figures}} at 1 and 2 threads, int8 (quantize_dynamic) and float32."""
    out = {}
    for name, m in models.items():
        out[name] = {}
        for dtype in ("int8", "float32"):
            for threads in (1, 2):
                log("PyTorch %s %s, %d thread(s)" % (name, dtype, threads))
                limit = p[name]["torch"][dtype][threads - 1]
                if m["kind"] == "trained":
                    t = reference_trained(env, env_note, dtype, threads, limit, work)
                else:
                    t = reference_fixed(env, env_note, m["checkpoint"], fixed_ids, dtype, threads, limit or 100, work,
                                        name)
                out[name]["%s_t%d" % (dtype, threads)] = t
    return out
