"""Vocabulary shortlists (docs/shortlist.md) on the trained Multi30k model:
the int8 example file given a shortlist learned from the train split
(edgemt-convert FILE.edgemt --shortlist-corpus train.en train.de), its dev
translations against the same file with --no-shortlist.

- The converter's default shortlist (50 candidates per source id, 100
  frequent ids): dev BLEU, greedy and beam 4, at least the whole
  vocabulary's less 0.1 (measured: higher).
- A wide one (200 per source id, 4,000 frequent): at least 97% of the
  translations identical to the whole vocabulary's and BLEU within 0.1 of
  it, greedy and beam 4. Beam 4 holds only because each step's normaliser
  adds the estimated probability of the ids outside the shortlist (format
  2.7's output sums, docs/shortlist.md "Scores"): normalised over the
  shortlist alone, 465 of 500 were identical.

Two models: the example file (Shortlist), and the same trained model
written in Hugging Face Marian's layout (tests/tools/marian_from_seed.py)
and converted from that directory to int8 with the shortlist
(MarianShortlist): the corpus is tokenized through the Marian
tokenizer's vocab.json, as an OPUS-MT model's would be.
(The Python module with a shortlist: tests/python/test_python_multi30k.py.)
"""
import os
import sys
import tempfile
import unittest

from e2e_common import CONVERT, DEV_DE, DEV_EN, EXAMPLE_INT8, MULTI30K, REPO, SHARED, bleu_of_lines, need_shared, \
    run, tool

sys.path.insert(0, os.path.join(REPO, "tests", "tools"))
import marian_from_seed  # noqa: E402

TRAIN_EN = os.path.join(SHARED, "data", "multi30k", "train.en")
TRAIN_DE = os.path.join(SHARED, "data", "multi30k", "train.de")


class Shortlist(unittest.TestCase):
    @classmethod
    def source(cls):
        """What the converter reads: the int8 example file."""
        return EXAMPLE_INT8, []

    @classmethod
    def setUpClass(cls):
        need_shared()
        if not os.path.isfile(TRAIN_EN):
            raise unittest.SkipTest("the Multi30k train split is not at %s" % TRAIN_EN)
        cls.tmp = tempfile.TemporaryDirectory()
        source, options = cls.source()
        cls.files = {}
        for name, extra in (("default", []), ("wide", ["--shortlist-k", "200", "--shortlist-frequent", "4000"])):
            out = os.path.join(cls.tmp.name, "%s.edgemt" % name)
            run([sys.executable, CONVERT, source, "--out", out, "--quiet", *options,
                 "--shortlist-corpus", TRAIN_EN, TRAIN_DE, *extra])
            cls.files[name] = out
        with open(DEV_EN, encoding="utf-8") as f:
            cls.dev = f.read()
        cls.whole = {beam: cls.translate(cls.files["default"], beam, shortlist=False) for beam in (1, 4)}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def translate(cls, path, beam, shortlist=True):
        cmd = [tool("edgemt-translate"), "--model", path, "--beam-size", str(beam), "--batch-size", "16"]
        if not shortlist:
            cmd.append("--no-shortlist")
        lines = run(cmd, stdin=cls.dev).stdout.split("\n")[:-1]
        assert len(lines) == 500, len(lines)
        return lines

    def bleu(self, lines, name):
        return bleu_of_lines(lines, os.path.join(self.tmp.name, name + ".de"), DEV_DE)

    def test_the_default_shortlist_keeps_bleu(self):
        for beam in (1, 4):
            with self.subTest(beam=beam):
                listed = self.translate(self.files["default"], beam)
                whole_bleu = self.bleu(self.whole[beam], "whole%d" % beam)
                listed_bleu = self.bleu(listed, "default%d" % beam)
                same = sum(a == b for a, b in zip(listed, self.whole[beam]))
                print("default shortlist, beam %d: BLEU %.2f (whole vocabulary %.2f), %d/500 identical"
                      % (beam, listed_bleu, whole_bleu, same))
                self.assertGreaterEqual(listed_bleu, whole_bleu - 0.1)

    def test_a_wide_shortlist_translates_as_the_whole_vocabulary(self):
        for beam in (1, 4):
            listed = self.translate(self.files["wide"], beam)
            same = sum(a == b for a, b in zip(listed, self.whole[beam]))
            whole_bleu = self.bleu(self.whole[beam], "whole%d" % beam)
            listed_bleu = self.bleu(listed, "wide%d" % beam)
            print("wide shortlist, beam %d: %d/500 identical, BLEU %.2f (whole vocabulary %.2f)"
                  % (beam, same, listed_bleu, whole_bleu))
            self.assertGreaterEqual(same, 0.97 * 500)
            self.assertLessEqual(abs(listed_bleu - whole_bleu), 0.1)


class MarianShortlist(Shortlist):
    @classmethod
    def source(cls):
        """The trained model as a Marian directory, converted to int8 with the shortlist."""
        folder = os.path.join(cls.tmp.name, "multi30k-marian")
        marian_from_seed.write(MULTI30K, folder)
        return folder, ["--dtype", "int8"]


if __name__ == "__main__":
    unittest.main()
