"""edgemt-translate loses nothing: a line is a paragraph (every sentence of
it translated, as --document translates it), and a failed write of the
output ends the run with a message and a non-zero exit in every mode.

- Paragraphs (the committed models/multi30k-ende.int8.edgemt): a line of two
  sentences gives both, equal to --document's line; --sentence-per-line
  translates the line as one sentence; modes that take a line as one sentence
  (--n-best, --input-ids) say so on stderr, naming the line.
- Write errors: standard output on /dev/full (ENOSPC at the first flush) in
  line, document, HTML, stream, document stream, n-best, ids, --help and
  --version modes: exit 1 and "cannot write the output: No space left on
  device"; a reader that goes away still ends the run by SIGPIPE.
- --packed-cache in a full or a read-only folder (a tmpfs of its own, in a
  mount namespace of this test's: unshare -rm): a warning, and the same output.

Needs EDGEMT_BIN; in cross builds the programs run under EDGEMT_EMULATOR.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import unittest

BIN = os.environ.get("EDGEMT_BIN", "")
EMULATOR = os.environ.get("EDGEMT_EMULATOR", "").split()
TRANSLATE = EMULATOR + [os.path.join(BIN, "edgemt-translate")]
HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "..", "models", "multi30k-ende.int8.edgemt")
TIMEOUT = 600
DEV_IDS = os.path.join(HERE, "..", "..", "..", "shared", "models", "multi30k-ende", "reference", "dev.src.ids")
PARAGRAPH = "A dog runs through the snow. Two women are sitting on a bench.\n"
NO_SPACE = "edgemt-translate: cannot write the output: No space left on device\n"


def translate(args, data, stdout=subprocess.PIPE):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return subprocess.run(TRANSLATE + ["--model", MODEL, "--threads", "1"] + args, input=data, stdout=stdout,
                          stderr=subprocess.PIPE, timeout=TIMEOUT)


def setUpModule():
    if not os.path.isfile(TRANSLATE[-1]):
        raise unittest.SkipTest("EDGEMT_BIN must name a directory with edgemt-translate")
    if not os.path.isfile(MODEL):
        raise unittest.SkipTest("models/multi30k-ende.int8.edgemt is not in this checkout")


class Paragraphs(unittest.TestCase):
    def test_a_line_of_two_sentences_gives_both_as_the_document_mode(self):
        line = translate([], PARAGRAPH)
        self.assertEqual(line.returncode, 0, line.stderr)
        document = translate(["--document"], PARAGRAPH)
        self.assertEqual(line.stdout, document.stdout)
        text = line.stdout.decode()
        self.assertEqual(text.count("\n"), 1)
        first = translate(["--sentence-per-line"], "A dog runs through the snow.\n").stdout.decode().strip()
        second = translate(["--sentence-per-line"], "Two women are sitting on a bench.\n").stdout.decode().strip()
        self.assertEqual(text, first + " " + second + "\n")

    def test_every_line_keeps_its_own_whitespace_and_one_output_line(self):
        data = "  A dog runs.   A cat sleeps.  \n\nOne sentence\nA man. \tA woman!\n"
        line = translate([], data)
        self.assertEqual(line.returncode, 0, line.stderr)
        out = line.stdout.decode().split("\n")[:-1]
        self.assertEqual(len(out), 4)
        self.assertTrue(out[0].startswith("  ") and out[0].endswith("  "), out[0])
        self.assertEqual(out[1], "")
        self.assertIn(" \t", out[3])
        # --document gives the same lines (a blank line ends its document and is copied).
        self.assertEqual(translate(["--document"], data).stdout, line.stdout)

    def test_streaming_gives_the_paragraph_as_line_mode_does(self):
        streamed = translate(["--stream"], PARAGRAPH)
        self.assertEqual(streamed.returncode, 0, streamed.stderr)
        self.assertEqual(streamed.stdout, translate([], PARAGRAPH).stdout)

    def test_sentence_per_line_translates_the_line_as_one_sentence(self):
        whole = translate(["--sentence-per-line"], PARAGRAPH)
        self.assertEqual(whole.returncode, 0, whole.stderr)
        self.assertEqual(whole.stderr, b"")
        self.assertNotEqual(whole.stdout, translate([], PARAGRAPH).stdout)

    def test_modes_that_take_a_line_as_one_sentence_warn_naming_the_line(self):
        data = "A dog runs.\n" + PARAGRAPH
        nbest = translate(["--beam-size", "2", "--n-best", "2"], data)
        self.assertEqual(nbest.returncode, 0, nbest.stderr)
        self.assertEqual(len(nbest.stdout.decode().split("\n")[:-1]), 4)
        stderr = nbest.stderr.decode()
        self.assertIn("edgemt-translate: line 2: the source holds 2 sentences, translated as one", stderr)
        self.assertNotIn("line 1:", stderr)
        # Source ids of two sentences (the dev set's second and third, one
        # after the other): taken as given, with a warning.
        if not os.path.isfile(DEV_IDS):
            self.skipTest("the Multi30k reference ids are not at %s" % DEV_IDS)
        with open(DEV_IDS) as f:
            first, second = f.read().split("\n")[1:3]
        paragraph = " ".join(first.split()[:-1] + second.split())  # the first's </s> left out
        by_ids = translate(["--input-ids"], "%s\n%s\n" % (first, paragraph))
        self.assertEqual(by_ids.returncode, 0, by_ids.stderr)
        self.assertEqual(len(by_ids.stdout.decode().split("\n")[:-1]), 2)
        self.assertIn("line 2: the source holds 2 sentences, translated as one", by_ids.stderr.decode())
        self.assertNotIn("line 1:", by_ids.stderr.decode())


class WriteErrors(unittest.TestCase):
    def full(self, args, data=PARAGRAPH):
        with open("/dev/full", "wb") as full:
            return translate(args, data, stdout=full)

    def test_every_mode_on_a_full_disk_exits_non_zero_with_one_message(self):
        html = "<p>A dog runs. <b>Two women</b> sit.</p>\n"
        for args, data in (([], PARAGRAPH), (["--batch-size", "32"], "A dog.\nA cat.\n" * 10000),
                           (["--document"], PARAGRAPH), (["--html"], html), (["--stream"], PARAGRAPH),
                           (["--document", "--stream"], PARAGRAPH), (["--beam-size", "2", "--n-best", "2"], PARAGRAPH),
                           (["--input-ids", "--output-ids"], "5 6 7 3\n"), (["--output-ids"], PARAGRAPH),
                           (["--help"], ""), (["--version"], "")):
            with self.subTest(args=args):
                proc = self.full(args, data)
                self.assertEqual(proc.returncode, 1, proc.stderr)
                self.assertEqual(proc.stderr.decode().splitlines()[-1] + "\n", NO_SPACE)
                self.assertEqual(proc.stderr.decode().count("cannot write"), 1)

    def test_a_reader_that_goes_away_ends_the_run_by_sigpipe(self):
        proc = subprocess.Popen(TRANSLATE + ["--model", MODEL, "--threads", "1", "--batch-size", "4"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.close()  # the reader is gone before the first line is written
        try:
            proc.stdin.write(b"A dog.\n" * 200)
            proc.stdin.close()
        except BrokenPipeError:
            pass
        proc.wait(timeout=TIMEOUT)
        proc.stderr.close()
        self.assertEqual(proc.returncode, -signal.SIGPIPE)


def unshare_available():
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    return subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0


class PackedCacheFolders(unittest.TestCase):
    """A packed-weights cache that cannot be written costs time, never the translation."""

    def in_tmpfs(self, mount_options, setup=""):
        if not unshare_available():
            self.skipTest("unshare -rm (a mount namespace of this test's own) is not available here")
        folder = tempfile.mkdtemp()
        try:
            command = (f"mount -t tmpfs -o {mount_options} tmpfs {folder} && {setup}"
                       f"exec \"$@\" --packed-cache {folder}")
            proc = subprocess.run(["unshare", "-rm", "sh", "-c", command, "sh"] + TRANSLATE +
                                  ["--model", MODEL, "--threads", "1"], input=PARAGRAPH.encode(),
                                  capture_output=True, timeout=TIMEOUT)
        finally:
            os.rmdir(folder)
        return proc

    def test_a_full_or_read_only_cache_folder_is_a_warning(self):
        expected = translate([], PARAGRAPH).stdout
        for name, options in (("full", "size=64k"), ("read-only", "ro")):
            with self.subTest(folder=name):
                proc = self.in_tmpfs(options)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertEqual(proc.stdout, expected)
                self.assertIn("edgemt-translate: warning:", proc.stderr.decode())


if __name__ == "__main__":
    unittest.main()
