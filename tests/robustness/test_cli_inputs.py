"""edgemt-translate on bad input: every input line gets exactly one output
line, in order; a bad line gets an empty line and a message on stderr, the
good lines around it are translated as if alone; the exit code is 0.

Needs EDGEMT_BIN (the build's bin directory: edgemt-translate and
edgemt-make-test-model); in cross builds the programs run under
EDGEMT_EMULATOR (qemu), with the largest hostile inputs made smaller as
under the sanitizers (EDGEMT_SANITIZED). Id-level tests use small random models written by
edgemt-make-test-model; text tests embed a tiny SentencePiece model trained
on the spot (python3-sentencepiece) and, when it exists, also use the
committed models/multi30k-ende.int8.edgemt.
"""

import os
import pty
import random
import re
import select
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tiny_spm  # noqa: E402

BIN = os.environ.get("EDGEMT_BIN", "")
TRANSLATE = os.path.join(BIN, "edgemt-translate")
MAKE_MODEL = os.path.join(BIN, "edgemt-make-test-model")
# The programs as commands: through qemu in cross builds.
EMULATOR = os.environ.get("EDGEMT_EMULATOR", "").split()
TRANSLATE_COMMAND = EMULATOR + [TRANSLATE]
MAKE_MODEL_COMMAND = EMULATOR + [MAKE_MODEL]
# Slow runs get smaller hostile inputs: an eighth under the sanitizers (about 5x slower), a
# 32nd under qemu (10-50x; there the hostile cases took minutes at an eighth).
SHRINK = 32 if EMULATOR else 8 if os.environ.get("EDGEMT_SANITIZED") else 1
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
REAL_MODEL = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")

# The id models: vocabularies 40 (source) and 48 (target), 16 positions, so
# that long inputs are easy to make. </s> is 3.
SOURCE_VOCAB = 40
MAX_POSITIONS = 16
EOS = 3
TIMEOUT = 300

_tmp = None
MODELS = {}


def setUpModule():
    global _tmp
    if not (os.path.isfile(TRANSLATE) and os.path.isfile(MAKE_MODEL)):
        raise unittest.SkipTest("EDGEMT_BIN must name a directory with edgemt-translate and edgemt-make-test-model")
    _tmp = tempfile.TemporaryDirectory()
    common = ["--d-model", "16", "--heads", "2", "--d-ff", "32", "--layers", "1",
              "--source-vocab", str(SOURCE_VOCAB), "--target-vocab", "48", "--max-positions", str(MAX_POSITIONS)]
    for name, extra in (("float32", []), ("int8", ["--int8"])):
        path = os.path.join(_tmp.name, name + ".edgemt")
        subprocess.run(MAKE_MODEL_COMMAND + ["-o", path] + common + extra, check=True)
        MODELS[name] = path
    if tiny_spm.available():
        spm_path = os.path.join(_tmp.name, "tiny.spm.model")
        with open(spm_path, "wb") as f:
            f.write(tiny_spm.train())
        path = os.path.join(_tmp.name, "text.edgemt")
        vocab = str(tiny_spm.VOCAB_SIZE)
        subprocess.run(MAKE_MODEL_COMMAND + ["-o", path, "--int8", "--d-model", "16", "--heads", "2", "--d-ff", "32",
                        "--layers", "1", "--source-vocab", vocab, "--target-vocab", vocab,
                        "--max-positions", "24", "--tokenizer", spm_path], check=True)
        MODELS["text"] = path


def tearDownModule():
    if _tmp is not None:
        _tmp.cleanup()


def run(model, data, *args):
    """(exit code, output lines as bytes, stderr as text)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    proc = subprocess.run(TRANSLATE_COMMAND + ["--model", model, "--threads", "1"] + list(args), input=data,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    out = proc.stdout
    if out:
        assert out.endswith(b"\n"), "the output does not end with a newline: %r" % out[-40:]
        lines = out[:-1].split(b"\n")
    else:
        lines = []
    return proc.returncode, lines, proc.stderr.decode("utf-8", "replace")


def input_lines(data):
    """The lines edgemt-translate should see: split at \\n, a last line without \\n counts."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not data:
        return []
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def message(line_number, text):
    return "edgemt-translate: line %d: %s\n" % (line_number, text)


class CliCase(unittest.TestCase):
    model = "float32"
    ids = True

    def setUp(self):
        if self.model not in MODELS:
            self.skipTest("no %s model (python3-sentencepiece missing?)" % self.model)

    def flags(self):
        return ["--input-ids", "--output-ids"] if self.ids else []

    def translate(self, data, *args):
        return run(MODELS[self.model], data, *(self.flags() + list(args)))

    def alone(self, line, *args):
        """The output of `line` translated on its own."""
        code, lines, err = self.translate(line + b"\n" if isinstance(line, bytes) else line + "\n", *args)
        self.assertEqual(code, 0, err)
        self.assertEqual(len(lines), 1)
        return lines[0]

    def check(self, data, bad, *args, batch_sizes=(1, 4)):
        """Translates `data` (good lines around bad ones); `bad` maps 1-based
        line numbers to the stderr message of that line (None: no message,
        an empty output line). Good lines must equal their translation alone."""
        expected_lines = input_lines(data)
        good = {}
        for number, line in enumerate(expected_lines, 1):
            if number not in bad:
                good[number] = self.alone(line, *args)
                self.assertNotEqual(good[number], b"", "a good line translated to nothing: %r" % line)
        expected_err = "".join(message(n, bad[n]) for n in sorted(bad) if bad[n] is not None)
        for batch in batch_sizes:
            with self.subTest(batch_size=batch):
                code, lines, err = self.translate(data, "--batch-size", str(batch), *args)
                self.assertEqual(code, 0, err)
                self.assertEqual(len(lines), len(expected_lines), err)
                for number, output in enumerate(lines, 1):
                    if number in bad:
                        self.assertEqual(output, b"", "line %d" % number)
                    else:
                        self.assertEqual(output, good[number], "line %d" % number)
                self.assertEqual(err, expected_err)


class IdInputs(CliCase):
    """--input-ids --output-ids with a float32 model."""

    def test_empty_and_blank_lines(self):
        self.check("5 6 7 3\n\n8 9 3\n \t \n10 3\n", {2: None, 4: None})

    def test_ids_outside_the_vocabulary(self):
        self.check("5 6 3\n5 40 3\n7 3\n-1 3\n9 3\n2147483647 3\n", {
            2: "id 40 is outside the source vocabulary (0..39)",
            4: "id -1 is outside the source vocabulary (0..39)",
            6: "id 2147483647 is outside the source vocabulary (0..39)",
        })

    def test_non_numeric_ids(self):
        self.check("5 6 3\n5 abc 3\n7 3\n1.5 3\n99999999999999999999 3\n123456789012345678901234 3\n8 3\n", {
            2: "'abc' is not a token id",
            4: "'1.5' is not a token id",
            5: "'99999999999999999999' is not a token id",
            6: "'12345678901234567890...' is not a token id",
        })

    def test_nul_byte_and_invalid_utf8(self):
        self.check(b"5 6 3\n5 6\x00 3\n7 3\n\xff\xfe 3\n8 3\n", {
            2: "'6?' is not a token id",
            4: "'??' is not a token id",
        })

    def test_long_input_is_truncated_with_a_warning(self):
        long_ids = " ".join(str(4 + i % 30) for i in range(30)) + " 3"
        truncated = " ".join(str(4 + i % 30) for i in range(MAX_POSITIONS - 1)) + " 3"
        warning = message(2, "the source has 31 tokens, more than the limit of 16: translating its first 16 "
                             "(--long-input error refuses it)")
        data = "5 6 3\n" + long_ids + "\n7 3\n"
        for batch in ("1", "4"):
            code, lines, err = self.translate(data, "--batch-size", batch)
            self.assertEqual(code, 0, err)
            self.assertEqual(lines, [self.alone("5 6 3"), self.alone(truncated), self.alone("7 3")])
            self.assertEqual(err, warning)

    def test_long_input_error(self):
        long_ids = " ".join(["5"] * 30) + " 3"
        self.check("5 6 3\n" + long_ids + "\n7 3\n",
                   {2: "the source has 31 tokens, more than the limit of 16"}, "--long-input", "error")

    def test_max_source_length_option(self):
        self.check("5 6 3\n5 6 7 8 9 3\n7 3\n", {2: "the source has 6 tokens, more than the limit of 4"},
                   "--long-input", "error", "--max-source-length", "4")

    def test_line_of_one_megabyte(self):
        huge = " ".join(["5"] * (1 << 19))  # 1 MiB
        data = "6 7 3\n" + huge + "\n8 3\n"
        code, lines, err = self.translate(data, "--long-input", "error")
        self.assertEqual(code, 0, err)
        self.assertEqual(lines, [self.alone("6 7 3"), b"", self.alone("8 3")])
        self.assertEqual(err, message(2, "the source has 524288 tokens, more than the limit of 16"))
        # Truncated (the default): the first 15 ids and </s>.
        code, lines, err = self.translate(data)
        self.assertEqual(code, 0, err)
        self.assertEqual(lines[1], self.alone(" ".join(["5"] * 15) + " 3"))
        self.assertEqual(len(lines), 3)

    def test_binary_garbage(self):
        garbage = random.Random(1234).randbytes(64 * 1024)
        data = b"5 6 3\n" + garbage + b"\n7 3\n"
        expected = input_lines(data)
        code, lines, err = self.translate(data, "--batch-size", "8")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(lines), len(expected))
        self.assertEqual(lines[0], self.alone("5 6 3"))
        self.assertEqual(lines[-1], self.alone("7 3"))
        # Every garbage line is refused with a message of its own (or is blank).
        refused = [n for n in range(2, len(expected)) if expected[n - 1].strip(b" \t\r")]
        self.assertEqual(err.count("edgemt-translate: line "), len(refused))
        for n in refused:
            self.assertIn("edgemt-translate: line %d: " % n, err)
            self.assertEqual(lines[n - 1], b"")

    def test_no_final_newline(self):
        data = "5 6 3\n7 8 3"
        code, lines, err = self.translate(data)
        self.assertEqual(code, 0, err)
        self.assertEqual(lines, [self.alone("5 6 3"), self.alone("7 8 3")])
        self.assertEqual(err, "")

    def test_crlf_line_endings(self):
        code, crlf, err = self.translate("5 6 3\r\n\r\n7 8 3\r\n")
        self.assertEqual(code, 0, err)
        code, lf, _ = self.translate("5 6 3\n\n7 8 3\n")
        self.assertEqual(crlf, lf)
        self.assertEqual(err, "")

    def test_empty_input(self):
        code, lines, err = self.translate(b"")
        self.assertEqual((code, lines, err), (0, [], ""))


class IdInputsInt8(IdInputs):
    """The same with an int8 model."""
    model = "int8"


class TextInputs(CliCase):
    """Text in: a random int8 model with the tiny SentencePiece model. Output
    ids, which show what was translated better than the random model's text."""
    model = "text"
    ids = False

    def flags(self):
        # --min-length: the random model may choose </s> first for some sentences.
        return ["--output-ids", "--min-length", "2"]

    def test_text_output(self):
        data = "a man\n\n\xff the dog\ntwo women"
        code, lines, err = run(MODELS[self.model], data, "--batch-size", "2")
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(len(lines), 4)
        self.assertEqual(lines[1], b"")

    def test_empty_and_blank_lines(self):
        self.check("a man is riding\n\nthe quick fox\n \t \ntwo women\n", {2: None, 4: None})

    def test_invalid_utf8_and_nul_bytes_are_translated(self):
        # SentencePiece reads what it cannot decode as unknown pieces: no error.
        data = b"a man\n\xff\xfe\xc3 the dog\nthe bench\nein\x00mann\x00\ntwo women\n"
        self.check(data, {})

    def test_long_input(self):
        long_line = " ".join(["the quick brown fox"] * 20)
        code, lines, err = self.translate("a man\n" + long_line + "\ntwo women\n")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(lines), 3)
        self.assertEqual(lines[0], self.alone("a man"))
        self.assertEqual(lines[2], self.alone("two women"))
        self.assertNotEqual(lines[1], b"")
        self.assertRegex(err, r"^edgemt-translate: line 2: the source has \d+ tokens, more than the limit of 24: "
                              r"translating its first 24 \(--long-input error refuses it\)\n$")
        code, lines, err = self.translate("a man\n" + long_line + "\ntwo women\n", "--long-input", "error")
        self.assertEqual(lines[1], b"")
        self.assertRegex(err, r"^edgemt-translate: line 2: the source has \d+ tokens, more than the limit of 24\n$")

    def test_line_of_one_megabyte(self):
        huge = ("the quick brown fox " * 52429)[: 1 << 20]
        code, lines, err = self.translate("a man\n" + huge + "\ntwo women\n")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(lines), 3)
        self.assertEqual([lines[0], lines[2]], [self.alone("a man"), self.alone("two women")])
        self.assertRegex(err, r"^edgemt-translate: line 2: the source has \d+ tokens, more than the limit of 24")

    def test_binary_garbage(self):
        garbage = random.Random(99).randbytes(64 * 1024)
        data = b"a man\n" + garbage + b"\ntwo women\n"
        code, lines, err = self.translate(data, "--batch-size", "8")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(lines), len(input_lines(data)))
        self.assertEqual(lines[0], self.alone("a man"))
        self.assertEqual(lines[-1], self.alone("two women"))
        # Only warnings about long lines, one per line at most.
        for warning in err.splitlines():
            self.assertRegex(warning, r"^edgemt-translate: line \d+: the source has \d+ tokens, more than the limit")

    def test_hostile_documents_and_pages(self):
        """--document and --html on what no page should hold: every input line
        comes out, the markup unchanged, nothing refused as a whole."""
        tags = re.compile(rb"<[^<>]*>")
        # Under the sanitizers a 128 KB paragraph stands for the 1 MB one, under qemu 32 KB, and
        # fewer tags and words for the 5,000 and 33,000 (SHRINK).
        paragraph = (1 << 20) // SHRINK
        tag_count, word_count = 5000 // max(1, SHRINK // 8), 33000 // max(1, SHRINK // 8)
        cases = {
            # A 1 MB paragraph without a sentence end: split where it fits, translated whole.
            "paragraph": ("the quick brown fox " * 52429)[:paragraph] + "\n",
            # 10,000 inline tags around words, and unclosed and stray ones.
            "tags": "<p>" + " ".join("<b>a</b> <i>man" for _ in range(tag_count)) + "</p>\n",
            "unclosed": "<p>a <b>man <i>the <a href='x'>dog</p> </b></b></span> two <women\n",
            # 100,000 nested tags, and a 100,000-word sentence with a tag around most of it.
            "nested": "<p>" + "<b>" * 100000 + "a man" + "</b>" * 100000 + "</p>\n",
            "wide": "<p>the <i>" + "quick brown fox " * word_count + "</i> dog</p>\n",
            "binary": random.Random(98).randbytes(16 * 1024).replace(b"\n", b" ") + b"\n",
        }
        for name, data in cases.items():
            # Plain text as a document; markup as a page (as a document it is one long word).
            for mode in ("--document",) if name == "paragraph" else ("--html",) if name in ("nested", "wide") \
                    else ("--document", "--html"):
                with self.subTest(case=name, mode=mode):
                    data_bytes = data if isinstance(data, bytes) else data.encode("utf-8")
                    code, lines, err = run(MODELS[self.model], data_bytes, mode, "--max-length", "8")
                    self.assertEqual(code, 0, err[-2000:])
                    self.assertEqual(len(lines), len(input_lines(data_bytes)))
                    self.assertNotIn("translating its first", err)
                    # Every sentence translated: none fell back to its source.
                    self.assertNotIn("not translated", err)
                    source = data_bytes.rstrip(b"\n")
                    if mode == "--html" and name in ("tags", "unclosed", "nested", "wide"):
                        self.assertEqual(tags.findall(lines[0]), tags.findall(data_bytes))
                        # The text between the tags is the translation's, not the page's.
                        self.assertNotEqual(tags.sub(b"", lines[0]), tags.sub(b"", source))
                    else:
                        self.assertNotEqual(lines[0], source)
                    if mode == "--document":
                        # Translations and the kept whitespace only: valid UTF-8, whatever came in.
                        lines[0].decode("utf-8")

    def test_no_final_newline_and_crlf(self):
        code, lf, err = self.translate("a man\nthe dog\n")
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(lf, [self.alone("a man"), self.alone("the dog")])
        self.assertEqual(self.translate("a man\nthe dog")[1], lf)
        self.assertEqual(self.translate("a man\r\nthe dog\r\n")[1], lf)


@unittest.skipUnless(os.path.isfile(REAL_MODEL), "models/multi30k-ende.int8.edgemt is not there (yet)")
class RealModelTextInputs(unittest.TestCase):
    """The committed Multi30k model on the same bad inputs."""

    def translate(self, data, *args):
        return run(REAL_MODEL, data, *args)

    def test_bad_lines_between_good_ones(self):
        good = ["A man is riding a bike.", "Two women are sitting on a bench."]
        _, alone, _ = self.translate("\n".join(good) + "\n")
        data = good[0].encode() + b"\n\n \t\n\xff\xfe\x00 x\n" + good[1].encode() + b"\r\n"
        code, lines, err = self.translate(data, "--batch-size", "4")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(lines), 5)
        self.assertEqual([lines[0], lines[4]], alone)
        self.assertEqual(lines[1:3], [b"", b""])

    def test_long_and_garbage_lines(self):
        garbage = random.Random(7).randbytes(16 * 1024 // SHRINK)
        data = b"A dog runs.\n" + b"a dog " * 2000 + b"\n" + garbage + b"\nA dog runs.\n"
        code, lines, err = self.translate(data, "--batch-size", "4")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(lines), len(input_lines(data)))
        self.assertEqual(lines[0], lines[-1])
        self.assertNotEqual(lines[0], b"")
        self.assertIn("edgemt-translate: line 2: the source has", err)


class ReadAhead(CliCase):
    """A file is read 16 x --batch-size lines ahead, sorted by length into
    batches (--max-batch-tokens bounds them too) and written back in input
    order; standard input that is a terminal is translated line by line, and
    a window never waits for lines that are not there yet (a pipe)."""

    def test_windows_restore_input_order(self):
        r = random.Random(5)
        lines = []
        for i in range(100):
            if i % 10 == 3:
                lines.append("")  # empty
            elif i % 10 == 7:  # longer than the 16 positions: truncated with a warning
                lines.append(" ".join(str(r.randrange(4, SOURCE_VOCAB)) for _ in range(25)) + " 3")
            else:
                lines.append(" ".join(str(r.randrange(4, SOURCE_VOCAB)) for _ in range(r.randrange(1, 12))) + " 3")
        data = "\n".join(lines)  # the last line has no newline
        expected = [self.alone(line) if line else b"" for line in lines]
        warned = [n for n, line in enumerate(lines, 1) if len(line.split()) > MAX_POSITIONS]
        # 3 windows of 64 lines; 7 of 48 lines, in batches of 3 and at most 20 padded tokens; the default.
        for args in (["--batch-size", "4"], ["--batch-size", "3", "--max-batch-tokens", "20"], []):
            with self.subTest(args=args):
                code, out, err = self.translate(data, *args)
                self.assertEqual(code, 0, err)
                self.assertEqual(out, expected)
                self.assertEqual([int(n) for n in re.findall(r"line (\d+): ", err)], warned)

    def test_terminal_input_is_translated_line_by_line(self):
        """Each line's translation comes out before the next line is typed."""
        master, slave = pty.openpty()
        proc = subprocess.Popen(TRANSLATE_COMMAND + ["--model", MODELS[self.model], "--threads", "1"] + self.flags(),
                                stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(slave)
        try:
            for line in ("5 6 7 3", "8 9 3"):
                os.write(master, (line + "\n").encode())
                ready, _, _ = select.select([proc.stdout], [], [], 60)
                self.assertTrue(ready, "no output for %r before the next line (read ahead on a terminal?)" % line)
                self.assertEqual(proc.stdout.readline().rstrip(b"\n"), self.alone(line))
            os.write(master, b"\x04")  # end of input
            self.assertEqual(proc.wait(timeout=60), 0)
        finally:
            os.close(master)
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
            proc.stderr.close()

    def test_a_program_on_a_pipe_gets_each_answer_before_its_next_line(self):
        """A program that writes one line to a pipe and waits for its translation
        gets it (the read-ahead takes what is there, never waits for a full window),
        at the default batch size and at 32."""
        for args in ([], ["--batch-size", "32"]):
            with self.subTest(args=args):
                proc = subprocess.Popen(TRANSLATE_COMMAND + ["--model", MODELS[self.model], "--threads", "1"] + self.flags()
                                        + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
                try:
                    for line in ("5 6 7 3", "8 9 3", "4 3"):
                        proc.stdin.write((line + "\n").encode())
                        proc.stdin.flush()
                        ready, _, _ = select.select([proc.stdout], [], [], 60)
                        self.assertTrue(ready, "no answer to %r: waiting for a full read-ahead window?" % line)
                        self.assertEqual(proc.stdout.readline().rstrip(b"\n"), self.alone(line))
                    proc.stdin.close()
                    self.assertEqual(proc.wait(timeout=60), 0)
                finally:
                    if proc.poll() is None:
                        proc.kill()
                    for stream in (proc.stdin, proc.stdout, proc.stderr):
                        if not stream.closed:
                            stream.close()


class DecodingOptions(CliCase):
    """--beam-size, --n-best, --scores and sampling keep the line contract:
    one line per input line (N with --n-best), bad lines included."""

    DATA = "4 5 6 3\n\n99 3\n7 8 9 10 3\n"    # good, blank, out of the vocabulary, good

    def test_n_best_lines(self):
        for batch in ("1", "4"):
            code, lines, err = self.translate(self.DATA, "--beam-size", "3", "--n-best", "3", "--batch-size", batch)
            self.assertEqual(code, 0, err)
            self.assertEqual(len(lines), 12)
            for i, line in enumerate(lines):
                index, text, score = line.decode().split(" ||| ")
                self.assertEqual(int(index), i // 3)
                if i // 3 == 1:
                    self.assertEqual((text, score), ("", "0"))
                elif i // 3 == 2:
                    self.assertEqual((text, score), ("", "-inf"))
                else:
                    self.assertLessEqual(float(score), 0.0)
            for first in (0, 9):        # each good line's scores are ranked
                scores = [float(lines[first + k].decode().split(" ||| ")[2]) for k in range(3)]
                self.assertEqual(scores, sorted(scores, reverse=True))
            self.assertIn("line 3: id 99 is outside the source vocabulary", err)

    def test_alignments_and_confidence_fields(self):
        # Ids in, ids out: each output id is a word, each source id too (</s> never aligned).
        for beam in ("1", "3"):
            code, lines, err = self.translate(self.DATA, "--beam-size", beam, "--alignments", "--confidence",
                                              "--min-length", "3")
            self.assertEqual(code, 0, err)
            self.assertEqual(len(lines), 4)
            for i, line in enumerate(lines):
                text, pairs, confidence, words = line.decode().split(" ||| ")
                if i in (1, 2):  # blank: nothing; failed: empty fields
                    self.assertEqual((text, pairs.strip(), words.strip()), ("", "", ""))
                    continue
                source_ids = len(self.DATA.split("\n")[i].split())
                targets = text.split()
                self.assertEqual(len(words.split()), len(targets))
                self.assertTrue(0.0 < float(confidence) <= 1.0)
                linked = set()
                for pair in pairs.split():
                    src, tgt = map(int, pair.split("-"))
                    self.assertTrue(0 <= src < source_ids - 1 and 0 <= tgt < len(targets), line)
                    linked.add(tgt)
                self.assertEqual(linked, set(range(len(targets))))  # every target word has a source
        code, _, err = self.translate(self.DATA, "--alignments", "--alignment-layer", "7")
        self.assertEqual(code, 0)
        self.assertIn("alignment_layer 7 is outside", err)
        for bad in (["--alignments", "--alternatives", "--n-best", "2"], ["--confidence", "--document"]):
            code, _, err = self.translate(self.DATA, *bad)
            self.assertEqual(code, 2, bad)

    def test_scores_prefix_and_beam_best(self):
        code, lines, err = self.translate(self.DATA, "--beam-size", "3", "--scores")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(lines), 4)
        self.assertEqual(lines[1], b"0\t")
        self.assertEqual(lines[2], b"-inf\t")
        code, nbest, _ = self.translate(self.DATA, "--beam-size", "3", "--n-best", "1")
        for i in (0, 3):
            score, text = lines[i].decode().split("\t")
            self.assertEqual(nbest[i].decode(), "%d ||| %s ||| %s" % (i, text, score))

    def test_sampling_is_reproducible(self):
        data = "4 5 6 3\n7 8 9 10 3\n11 12 3\n"
        args = ("--sampling-topk", "0", "--temperature", "1.5", "--seed", "99")
        first = self.translate(data, *args)
        self.assertEqual(first[0], 0, first[2])
        self.assertEqual(len(first[1]), 3)
        self.assertEqual(self.translate(data, *args, "--batch-size", "3")[1], first[1])
        self.assertEqual(run(MODELS[self.model], data, "--threads", "2", *(self.flags() + list(args)))[1], first[1])

    def side_file(self, text):
        path = os.path.join(_tmp.name, "side-%d.txt" % random.randrange(1 << 30))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_target_prefix_lines(self):
        # Line N of the file starts line N's translation; an empty line is none; a bad prefix
        # fails its own line only, and a file too short fails the lines past its end.
        prefixes = self.side_file("20 21\n\n\n47 48\n")
        data = self.DATA + "4 5 6 3\n"
        for batch in ("1", "4"):
            code, lines, err = self.translate(data, "--target-prefix", prefixes, "--batch-size", batch,
                                              "--max-length", "8")
            self.assertEqual(code, 0, err)
            self.assertEqual(len(lines), 5, err)
            self.assertTrue(lines[0].startswith(b"20 21"), lines[0])
            self.assertEqual(lines[1], b"")
            self.assertEqual(lines[2], b"")
            self.assertEqual(lines[4], b"")
            self.assertIn("line 3: id 99 is outside the source vocabulary", err)
            self.assertIn("line 4: id 48 at position 1 of target prefix 0 is outside the target vocabulary", err)
            self.assertIn("line 5: %s has no line 5" % prefixes, err)
        code, lines, err = self.translate("4 5 3\n", "--target-prefix", "/nonexistent/prefixes")
        self.assertNotEqual(code, 0)
        self.assertIn("cannot open /nonexistent/prefixes", err)

    def test_alternatives_lines(self):
        code, lines, err = self.translate(self.DATA, "--alternatives", "--n-best", "4", "--beam-size", "2",
                                          "--max-length", "6")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(lines), 16, err)
        for first in (0, 12):  # each good line: 4 alternatives, different first ids
            firsts = [lines[first + k].decode().split(" ||| ")[1].split()[0] for k in range(4)]
            self.assertEqual(len(set(firsts)), 4, firsts)

    def test_score_lines(self):
        # One line per pair: the sum, the target, a log-probability per id and then </s>'s.
        targets = self.side_file("10 11 12\n5\n6\n\n")
        code, lines, err = self.translate(self.DATA, "--score", targets)
        self.assertEqual(code, 0, err)
        self.assertEqual(len(lines), 4, err)
        total, target, log_probs = lines[0].decode().split(" ||| ")
        self.assertEqual(target, "10 11 12")
        values = [float(x) for x in log_probs.split()]
        self.assertEqual(len(values), 4)
        self.assertAlmostEqual(float(total), sum(values), places=4)
        self.assertTrue(all(v <= 0 for v in values))
        self.assertEqual(lines[1].decode(), "0 ||| 5 |||")  # a blank source scores nothing
        self.assertEqual(lines[2].decode(), "-inf |||  ||| ")
        total, target, log_probs = lines[3].decode().split(" ||| ")
        self.assertEqual((target, len(log_probs.split())), ("", 1))  # the empty target: </s> alone
        self.assertIn("line 3: id 99 is outside the source vocabulary", err)

    def test_bad_option_values(self):
        for args, message in (
                (("--alternatives",), "--alternatives needs --n-best N"),
                (("--repetition-penalty", "0"), "--repetition-penalty needs a number from 1e-6 to 1e6"),
                (("--min-alternative-prob", "2"), "--min-alternative-prob needs a number from 0 to 1"),
                (("--no-repeat-ngram-size", "-1"), "--no-repeat-ngram-size needs a whole number"),
                (("--n-best", "3", "--beam-size", "2"), "--n-best 3 is more than --beam-size 2"),
                (("--beam-size", "0"), "--beam-size needs a whole number from 1 to 256"),
                (("--sampling-topk", "5", "--beam-size", "2"), "needs --beam-size 1"),
                (("--sampling-topp", "0"), "--sampling-topp needs a number from 1e-6 to 1"),
                (("--temperature", "nan"), "--temperature needs a number"),
                (("--length-penalty", "x"), "--length-penalty needs a number from -100 to 100"),
                (("--seed", "-1"), "--seed needs a whole number")):
            code, lines, err = self.translate("4 5 3\n", *args)
            self.assertNotEqual(code, 0, args)
            self.assertEqual(lines, [], args)
            self.assertIn(message, err, args)


if __name__ == "__main__":
    unittest.main(verbosity=2)
