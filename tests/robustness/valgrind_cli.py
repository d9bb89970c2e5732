"""edgemt-translate under Valgrind's memcheck on a few good and bad inputs:
no invalid read or write, no use of uninitialised memory, no leak.

    valgrind_cli.py BIN_DIR

Exits 77 (CTest: skipped) when valgrind is not installed. Slow (memcheck is
~20-50x slower): CTest label `slow`.
"""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tiny_spm  # noqa: E402

SKIP = 77

ID_INPUT = b"5 6 7 3\n\n5 40 3\nabc 3\n" + b"9 " * 40 + b"3\n8 3"
TEXT_INPUT = b"a man is riding\n\n\xff\xfe the dog\r\n" + b"two women " * 30 + b"\nthe bench"


def memcheck(command, data):
    """Runs `command` under memcheck; returns a failure description or None."""
    suppressions = os.path.join(os.path.dirname(os.path.abspath(__file__)), "valgrind.supp")
    valgrind = ["valgrind", "--error-exitcode=99", "--suppressions=" + suppressions, "--leak-check=full", "--errors-for-leak-kinds=definite,indirect",
                "--show-leak-kinds=definite,indirect", "--track-origins=yes", "--quiet"]
    proc = subprocess.run(valgrind + command, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=900)
    err = proc.stderr.decode("utf-8", "replace")
    lines = proc.stdout.count(b"\n")
    expected = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if proc.returncode != 0:
        return "exit code %d\n%s" % (proc.returncode, err)
    if lines != expected:
        return "%d output lines for %d input lines" % (lines, expected)
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if shutil.which("valgrind") is None:
        print("skipped: valgrind is not installed (apt-get install valgrind)")
        return SKIP
    bin_dir = sys.argv[1]
    translate = os.path.join(bin_dir, "edgemt-translate")
    make_model = os.path.join(bin_dir, "edgemt-make-test-model")
    dims = ["--d-model", "16", "--heads", "2", "--d-ff", "32", "--layers", "1", "--max-positions", "16"]
    failures = []
    text_skipped = None
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for name, extra in (("float32", []), ("int8", ["--int8"])):
            model = os.path.join(tmp, name + ".edgemt")
            subprocess.run([make_model, "-o", model, "--source-vocab", "40", "--target-vocab", "48"] + dims + extra,
                           check=True)
            for batch in ("1", "3"):
                runs.append((name + " ids, batch " + batch,
                             [translate, "--model", model, "--input-ids", "--output-ids", "--threads", "1",
                              "--batch-size", batch], ID_INPUT))
        if tiny_spm.available():
            spm = os.path.join(tmp, "tiny.spm.model")
            with open(spm, "wb") as f:
                f.write(tiny_spm.train())
            model = os.path.join(tmp, "text.edgemt")
            vocab = str(tiny_spm.VOCAB_SIZE)
            subprocess.run([make_model, "-o", model, "--int8", "--source-vocab", vocab, "--target-vocab", vocab,
                            "--tokenizer", spm] + dims, check=True)
            runs.append(("int8 text, batch 2", [translate, "--model", model, "--threads", "2", "--batch-size", "2"],
                         TEXT_INPUT))
        else:
            text_skipped = "text input not checked: python3-sentencepiece is not installed"
            print(text_skipped)
        for name, command, data in runs:
            failure = memcheck(command, data)
            print("%-22s %s" % (name, "ok" if failure is None else "FAILED"), flush=True)
            if failure is not None:
                failures.append("%s: %s" % (name, failure))
    for failure in failures:
        print(failure)
    if failures:
        return 1
    if text_skipped:
        print("skipped: " + text_skipped)
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
