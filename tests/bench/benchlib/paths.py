"""Where things are: the repository, ../shared, the binaries and the benchmark cache."""
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/bench
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.normpath(os.path.join(REPO, "..", "shared"))
MULTI30K = os.path.join(SHARED, "models", "multi30k-ende")
DEV_EN = os.path.join(SHARED, "data", "multi30k", "dev.en")
DEV_DE = os.path.join(SHARED, "data", "multi30k", "dev.de")
TRAIN_EN = os.path.join(SHARED, "data", "multi30k", "train.en")
FLOAT32_GREEDY = os.path.join(MULTI30K, "reference", "dev.greedy.de")
PYTHON = "/usr/bin/python3"
BUILD = os.path.join(REPO, "build")
BIN = os.path.join(BUILD, "bin")
BENCH = os.path.join(BIN, "edgemt-bench")
TRANSLATE = os.path.join(BIN, "edgemt-translate")
CACHE = os.path.join(BUILD, "bench-cache")
FIXED_IDS = os.path.join(CACHE, "fixed-100x32.ids")
COMMITTED_INT8 = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")


def rel(path):
    """A path as BENCHMARKS.md writes it: relative to the repository."""
    return os.path.relpath(os.path.abspath(path), REPO)


def relative_paths(text):
    """Text with the repository's and ../shared's absolute paths made relative, as in BENCHMARKS.md."""
    return text.replace(SHARED + "/", "../shared/").replace(REPO + "/", "")


def require(*paths):
    """Stops with a message naming the first missing file (build/bin is built by cmake, the fixed-length ids by
    run_benchmarks.py)."""
    for path in paths:
        if not os.path.exists(path):
            raise SystemExit("missing %s (build/bin is built by cmake; the ids by run_benchmarks.py)" % path)
