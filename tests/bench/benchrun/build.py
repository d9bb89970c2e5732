"""Configuring (Release) and building the measured tools of a source tree."""
import os
import subprocess

from benchlib.log import log
from benchlib.machine import build_info
from benchlib.paths import REPO
from benchlib.processes import COMMANDS, show

BENCH_TARGETS = ["edgemt-bench", "edgemt-translate", "edgemt-xnnpack-gemm-bench", "edgemt-bench-model",
                 "edgemt-translate-static", "edgemt_shared"]


# Where a target's file lands: libraries in lib/, programs in bin/.
TARGET_FILES = {"edgemt_shared": os.path.join("lib", "libedgemt.so")}


def build(build_dir, no_build, source=REPO, targets=BENCH_TARGETS, hint="", cmake_args=()):
    """Configures (Release, with `cmake_args`) and builds `targets` of the tree `source` in `build_dir`;
    returns their paths and the build's settings."""
    if not no_build:
        for cmd in (["cmake", "-S", source, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release"] + list(cmake_args),
                    ["cmake", "--build", build_dir, "-j2", "--target"] + targets):
            log(show(cmd))
            COMMANDS.append(show(cmd))
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit("build failed:\n" + r.stdout[-3000:] + r.stderr[-3000:] + hint)
    bins = {t: os.path.join(build_dir, TARGET_FILES.get(t, os.path.join("bin", t))) for t in targets}
    for t, p in bins.items():
        if not os.path.exists(p):
            raise SystemExit("missing %s: build it (cmake --build %s --target %s)" % (p, build_dir, t))
    return bins, build_info(build_dir)
