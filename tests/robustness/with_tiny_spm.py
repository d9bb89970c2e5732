"""Runs a command with EDGEMT_TEST_SPM naming a freshly trained tiny
SentencePiece model (tiny_spm.py); exits 77 (CTest: skipped) when
python3-sentencepiece is missing. When PROGRAM is a doctest binary given a
--test-case filter, fails when the filter selects no test case.

    with_tiny_spm.py PROGRAM [ARGS...]
"""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tiny_spm  # noqa: E402

SKIP = 77


def selected_test_cases(command):
    """How many test cases a doctest command's filters select (doctest --count)."""
    out = subprocess.run(command + ["--count"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "test cases passing the current filters:" in line:
            return int(line.rsplit(":", 1)[1])
    return None


def main():
    if any(arg.startswith("--test-case=") for arg in sys.argv[2:]) and selected_test_cases(sys.argv[1:]) == 0:
        print("with_tiny_spm.py: %s selects no test case" % " ".join(sys.argv[2:]), flush=True)
        return 1
    if not tiny_spm.available():
        print("skipped: python3-sentencepiece is not installed", flush=True)
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tiny.spm.model")
        with open(path, "wb") as f:
            f.write(tiny_spm.train())
        env = dict(os.environ, EDGEMT_TEST_SPM=path)
        return subprocess.call(sys.argv[1:], env=env)


if __name__ == "__main__":
    sys.exit(main())
