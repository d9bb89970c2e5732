"""Documents (edgemt-translate --document; runtime/include/edgemt/document.h)
with the Multi30k int8 example model and the dev set.

Paragraphs: the 500 dev sentences in deterministic groups of 1-6 (seed 27),
joined with a space. The splitter finds the inner boundaries (F1 printed;
every boundary after a sentence that ends with punctuation, asserted with
F1 >= 0.99; 30 dev sentences end without any, and a boundary after one
cannot be seen in the text), and each paragraph whose boundaries it found
translates exactly as its sentences do alone, joined with a space.
Paragraph-level BLEU with and without splitting is printed.

Whitespace: generated documents of dev sentences with spaces, tabs,
no-break and other Unicode spaces, CRLF and LF, blank lines and leading
and trailing runs: the output has the input's lines, each with its own
leading and trailing whitespace, and blank lines as they were.
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest

from e2e_common import DEV_DE, DEV_EN, EXAMPLE_INT8, bleu_of_lines, emulated, run

PUNCTUATION = tuple(".!?\"')")


def paragraphs(sentences, seed=27):
    """[(first sentence index, count)] covering the sentences in order."""
    rng, groups, i = random.Random(seed), [], 0
    while i < len(sentences):
        count = min(rng.randint(1, 6), len(sentences) - i)
        groups.append((i, count))
        i += count
    return groups


def f1(found, gold):
    hits = len(found & gold)
    precision = hits / len(found) if found else 1.0
    recall = hits / len(gold) if gold else 1.0
    return (2 * precision * recall / (precision + recall) if hits else 0.0), precision, recall


class Documents(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isfile(DEV_EN):
            raise unittest.SkipTest("the Multi30k dev set is not at %s" % DEV_EN)
        with open(DEV_EN, encoding="utf-8") as f:
            cls.en = f.read().split("\n")[:-1]
        with open(DEV_DE, encoding="utf-8") as f:
            cls.de = f.read().split("\n")[:-1]
        cls.groups = paragraphs(cls.en)
        cls.paragraphs = [" ".join(cls.en[i:i + n]) for i, n in cls.groups]
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def translate(self, text, *extra):
        # One thread: CTest runs two tests at a time on CI's two cores, and a second thread's
        # pool spinning beside another test made this module 489 s instead of tens (the
        # output does not depend on the thread count: unit tests check that).
        return run(emulated("edgemt-translate") + ["--model", EXAMPLE_INT8, "--threads", "1"] + list(extra),
                   stdin=text).stdout

    def test_paragraph_boundaries(self):
        ends = run(emulated("edgemt-split-sentences") + ["en"], stdin="".join(p + "\n" for p in self.paragraphs))
        found, gold, seen_gold = set(), set(), set()
        for g, ((first, count), line) in enumerate(zip(self.groups, ends.stdout.split("\n"))):
            offsets = [int(x) for x in line.split()]
            self.assertEqual(offsets[-1], len(self.paragraphs[g].encode("utf-8")))
            found |= {(g, o) for o in offsets[:-1]}
            at = 0
            for s in self.en[first:first + count - 1]:
                at += len(s.encode("utf-8"))
                gold.add((g, at))
                if s.rstrip().endswith(PUNCTUATION):
                    seen_gold.add((g, at))
                at += 1
        score, precision, recall = f1(found, gold)
        print("sentence boundaries of %d paragraphs: %d inner, %d found; F1 %.4f (precision %.4f, recall %.4f); "
              "after punctuated sentences: F1 %.4f" % (len(self.groups), len(gold), len(found), score, precision,
                                                      recall, f1(found & seen_gold, seen_gold)[0]), file=sys.stderr)
        self.assertGreaterEqual(f1(found - (gold - seen_gold), seen_gold)[0], 0.99)
        self.assertGreaterEqual(precision, 0.99)
        self.__class__.found_all = {g for g, (first, count) in enumerate(self.groups)
                                    if {o for gg, o in gold if gg == g} == {o for gg, o in found if gg == g}}

    def test_paragraphs_translate_as_their_sentences(self):
        if not hasattr(self, "found_all"):
            self.test_paragraph_boundaries()
        alone = self.translate("".join(s + "\n" for s in self.en)).split("\n")[:-1]
        self.assertEqual(len(alone), len(self.en))
        documents = self.translate("".join(p + "\n" for p in self.paragraphs), "--document").split("\n")[:-1]
        plain = self.translate("".join(p + "\n" for p in self.paragraphs), "--sentence-per-line").split("\n")[:-1]
        self.assertEqual(len(documents), len(self.paragraphs))
        joined = [" ".join(alone[i:i + n]) for i, n in self.groups]
        same = [g for g in self.found_all if documents[g] == joined[g]]
        print("%d of %d paragraphs split as their sentences; %d of them translate exactly as those sentences "
              "alone, joined" % (len(self.found_all), len(self.groups), len(same)), file=sys.stderr)
        self.assertEqual(sorted(same), sorted(self.found_all))
        references = os.path.join(self.tmp.name, "paragraphs.de")
        with open(references, "w", encoding="utf-8") as f:
            f.write("".join(" ".join(self.de[i:i + n]) + "\n" for i, n in self.groups))
        bleu = {name: bleu_of_lines(lines, os.path.join(self.tmp.name, name + ".de"), references)
                for name, lines in (("split", documents), ("whole", plain), ("sentences", joined))}
        print("paragraph-level BLEU: split into sentences %.2f, each paragraph as one sentence %.2f "
              "(the dev sentences alone, joined: %.2f)" % (bleu["split"], bleu["whole"], bleu["sentences"]),
              file=sys.stderr)
        self.assertGreater(bleu["split"], bleu["whole"])

    def test_line_mode_splits_as_documents_do(self):
        """Line mode (the default) gives each paragraph as --document does; the
        dev set, one sentence a line, is byte-identical with and without
        splitting (a line that differs must be one the splitter splits)."""
        text = "".join(p + "\n" for p in self.paragraphs)
        self.assertEqual(self.translate(text), self.translate(text, "--document"))
        dev = "".join(s + "\n" for s in self.en)
        split, whole = self.translate(dev).split("\n"), self.translate(dev, "--sentence-per-line").split("\n")
        self.assertEqual(len(split), len(whole))
        differ = [i for i, (a, b) in enumerate(zip(split, whole)) if a != b]
        ends = run(emulated("edgemt-split-sentences") + ["en"], stdin=dev).stdout.split("\n")
        several = {i for i, line in enumerate(ends[:len(self.en)]) if len(line.split()) > 1}
        print("dev set: %d of %d lines differ with and without splitting (%d lines hold several sentences)"
              % (len(differ), len(self.en), len(several)), file=sys.stderr)
        for i in differ:
            print("  line %d: %r" % (i + 1, self.en[i]), file=sys.stderr)
        self.assertTrue(set(differ) <= several, "lines that differ without holding several sentences")

    def test_200_paragraphs_equal_their_sentences_joined(self):
        """Paragraphs of 2-5 dev sentences (those that end with punctuation and
        start with a capital, so that every boundary can be seen; seed 53) in
        line mode: each equals its sentences' translations, joined with its spaces."""
        ends = run(emulated("edgemt-split-sentences") + ["en"],
                   stdin="".join(s + "\n" for s in self.en)).stdout.split("\n")
        clean = [s for s, e in zip(self.en, ends) if s.rstrip().endswith(PUNCTUATION) and s[:1].isupper()
                 and len(e.split()) == 1]
        rng = random.Random(53)
        groups = [rng.sample(clean, rng.randint(2, 5)) for _ in range(200)]
        paragraphs = ["  ".join(g) if k % 3 == 0 else " ".join(g) for k, g in enumerate(groups)]
        alone = dict(zip(clean, self.translate("".join(s + "\n" for s in clean),
                                               "--sentence-per-line").split("\n")))
        out = self.translate("".join(p + "\n" for p in paragraphs)).split("\n")[:-1]
        self.assertEqual(len(out), 200)
        expected = [("  " if k % 3 == 0 else " ").join(alone[s] for s in g) for k, g in enumerate(groups)]
        differ = [k for k in range(200) if out[k] != expected[k]]
        print("200 paragraphs of 2-5 sentences: %d equal their sentences joined" % (200 - len(differ)),
              file=sys.stderr)
        self.assertEqual(differ, [])

    def test_streamed_documents_are_the_documents(self):
        text = "".join(p + "\n" for p in self.paragraphs[:60]) + "\n" + "".join(p + "\n" for p in self.paragraphs[60:90])
        self.assertEqual(self.translate(text, "--document", "--stream", "--batch-size", "4"),
                         self.translate(text, "--document"))

    def test_the_cache_changes_no_output(self):
        # Documents that repeat sentences, through the default document cache and without one.
        documents = "".join(p + "\n" for p in self.paragraphs[:40]) + "\n"
        text = documents * 3
        cached = self.translate(text, "--document")
        plain = self.translate(text, "--document", "--cache-mb", "0")
        self.assertEqual(cached, plain)
        self.assertEqual(len(cached.split("\n")), len(text.split("\n")))

    def test_a_long_sentence_is_split_and_translated_whole(self):
        # Three short dev sentences made one with semicolons: too long for 24 positions, each part fits.
        # Each part fits in 24 positions, no two together do.
        short = [s.rstrip(".") for s in self.en if 11 <= len(s.split()) <= 12][:3]
        parts = [short[0] + ";", short[1] + ";", short[2] + "."]
        long = " ".join(parts)
        limit = ["--max-source-length", "24"]
        alone = self.translate("".join(p + "\n" for p in parts)).split("\n")[:-1]
        for args in (["--document"], ["--long-input", "split"]):
            result = run(emulated("edgemt-translate") + ["--model", EXAMPLE_INT8] + limit + args,
                         stdin="  %s\n" % long if args[0] == "--document" else long + "\n")
            expected = " ".join(alone)
            self.assertEqual(result.stdout, ("  %s\n" if args[0] == "--document" else "%s\n") % expected, args)
            if args[0] != "--document":  # (documents report failures only)
                self.assertIn("translated in 3 parts", result.stderr)
            self.assertNotIn("translating its first", result.stderr)
        # Truncation stays the line mode's default; --long-input error still refuses in documents.
        truncated = run(emulated("edgemt-translate") + ["--model", EXAMPLE_INT8] + limit, stdin=long + "\n")
        self.assertIn("translating its first 24", truncated.stderr)
        refused = run(emulated("edgemt-translate") + ["--model", EXAMPLE_INT8, "--document", "--long-input", "error"] +
                      limit, stdin=long + "\n")
        self.assertEqual(refused.stdout, long + "\n")

    def test_a_failed_sentence_keeps_its_source(self):
        long = "Dog " + " ".join(["dog"] * 40) + "."
        document = "A man sleeps.  %s Two dogs run.\n\nA child eats.\n" % long
        result = run(emulated("edgemt-translate") + ["--model", EXAMPLE_INT8, "--document", "--long-input", "error",
                                                     "--max-source-length", "20"], stdin=document)
        alone = self.translate("A man sleeps.\nTwo dogs run.\nA child eats.\n").split("\n")
        self.assertEqual(result.stdout, "%s  %s %s\n\n%s\n" % (alone[0], long, alone[1], alone[2]))
        self.assertIn("1 of 3 sentences are not translated", result.stderr)
        for extra in (["--n-best", "2"], ["--output-ids"], ["--scores"]):
            refused = run(emulated("edgemt-translate") + ["--model", EXAMPLE_INT8, "--document"] + extra,
                          stdin="a\n", check=False)
            self.assertEqual(refused.returncode, 2, extra)
            self.assertIn("--document is for text in and text out", refused.stderr)

    def test_whitespace_and_lines_are_kept(self):
        # Fewer documents under emulation (qemu), where each sentence costs ~10x.
        count = 100 if os.environ.get("EDGEMT_EMULATOR") else 1000
        rng = random.Random(28)
        spaces = [" ", "  ", "\t", "\u00a0", "\u2003", "\u3000", "\u202f", " \t "]
        lines = []
        for _ in range(count):
            for _ in range(rng.randint(1, 4)):
                sentences = rng.sample(self.en, rng.randint(1, 3))
                body = rng.choice(spaces).join(sentences) if rng.random() < 0.5 else " ".join(sentences)
                lead = "".join(rng.choice(spaces) for _ in range(rng.randint(0, 2)))
                trail = "".join(rng.choice(spaces) for _ in range(rng.randint(0, 2)))
                lines.append(lead + body + trail + ("\r" if rng.random() < 0.3 else ""))
            lines.append(rng.choice(["", " ", "\r", "\t\r"]))      # the blank line that ends a document
        text = "".join(line + "\n" for line in lines)
        # As bytes: text mode would turn "\r\n" into "\n".
        result = subprocess.run(emulated("edgemt-translate") + ["--model", EXAMPLE_INT8, "--document"],
                                input=text.encode("utf-8"), capture_output=True, check=True)
        out = result.stdout.decode("utf-8").split("\n")
        self.assertEqual(out[-1], "")
        out = out[:-1]
        self.assertEqual(len(out), len(lines))

        def edges(line):
            m = re.match(r"^([\s\u00a0\u2003\u3000\u202f]*)(.*?)([\s\u00a0\u2003\u3000\u202f]*)$", line, re.S)
            return m.group(1), m.group(3), m.group(2) == ""

        for source, target in zip(lines, out):
            lead, trail, blank = edges(source)
            if blank:
                self.assertEqual(target, source)
                continue
            t_lead, t_trail, t_blank = edges(target)
            self.assertEqual((t_lead, t_trail), (lead, trail), "%r -> %r" % (source, target))
            self.assertFalse(t_blank)


if __name__ == "__main__":
    unittest.main()
