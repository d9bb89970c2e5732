"""Shared helpers of the end-to-end tests: paths, the shared folder, running
the converter and the CLI."""
import os
import re
import subprocess
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.environ.get("EDGEMT_SHARED", os.path.join(os.path.dirname(REPO), "shared"))
MULTI30K = os.path.join(SHARED, "models", "multi30k-ende")
DEV_EN = os.path.join(SHARED, "data", "multi30k", "dev.en")
DEV_DE = os.path.join(SHARED, "data", "multi30k", "dev.de")
CONVERT = os.path.join(REPO, "converter", "edgemt-convert")
# The first N dev sentences only (tests/x86_cpus/run.sh, on an emulated CPU slow for the whole
# set): EDGEMT_DEV_SENTENCES for the int8 and int4 checks, EDGEMT_FLOAT32_SENTENCES for float32's.
DEV_SENTENCES = int(os.environ.get("EDGEMT_DEV_SENTENCES") or 0)
FLOAT32_SENTENCES = int(os.environ.get("EDGEMT_FLOAT32_SENTENCES") or 0)
REFERENCE = os.path.join(REPO, "converter", "edgemt-reference")
EXAMPLE_INT8 = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")


def bin_dir():
    path = os.environ.get("EDGEMT_BIN")
    if not path:
        raise unittest.SkipTest("EDGEMT_BIN is not set: run through CTest")
    return path


def tool(name):
    return os.path.join(bin_dir(), name)


def emulated(name, static=False):
    """The command that runs one of our programs: through the emulator
    (qemu) when the build is for another CPU (EDGEMT_EMULATOR). A static
    program runs through EDGEMT_STATIC_EMULATOR, the same CPU without -L:
    it must do without the cross compiler's libraries."""
    return os.environ.get("EDGEMT_STATIC_EMULATOR" if static else "EDGEMT_EMULATOR", "").split() + [tool(name)]


def need_shared():
    if not os.path.isdir(MULTI30K):
        raise unittest.SkipTest("the shared multi30k model is not at %s" % MULTI30K)


def run(cmd, stdin=None, check=True):
    result = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s" % (" ".join(cmd), result.returncode, result.stderr[-4000:]))
    return result


def convert(checkpoint, out, dtype, extra=()):
    run([sys.executable, CONVERT, checkpoint, "--out", out, "--dtype", dtype, *extra])


def bleu_of_lines(lines, path, reference=DEV_DE):
    """Writes `lines` to `path` and returns their BLEU against `reference`, a file of
    one line per line (the dev set by default), with the model's bleu.py."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    out = run([sys.executable, os.path.join(MULTI30K, "bleu.py"), path, reference]).stdout
    return float(re.search(r"BLEU = ([0-9.]+)", out).group(1))


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def decoded(id_lines):
    """Lines of output ids as text: the Multi30k model's SentencePiece model decodes them."""
    import sentencepiece
    processor = sentencepiece.SentencePieceProcessor(model_file=os.path.join(MULTI30K, "spm.model"))
    return [processor.decode([int(i) for i in line.split()]) for line in id_lines]
