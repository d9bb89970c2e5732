"""Runs a command with EDGEMT_TEST_SPM naming a freshly trained tiny
SentencePiece model (tiny_spm.py); exits 77 (CTest: skipped) when
python3-sentencepiece is missing.

    with_tiny_spm.py PROGRAM [ARGS...]
"""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tiny_spm  # noqa: E402

SKIP = 77


def main():
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
