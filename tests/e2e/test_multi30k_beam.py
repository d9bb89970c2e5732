"""Beam search on the trained Multi30k model (float32), the runtime against
the converter's independent PyTorch beam search (converter/edgemt_convert/
reference/beam.py) on the first 100 dev sentences: beam 4 with the 1-best (the
default, which can stop before beam_size hypotheses have finished), beam 4
and beam 5 with 4-best lists; every hypothesis's ids identical on at least 99% of the
sentences and the scores within 1e-4 relative.
With beam 1 and --scores the runtime prints greedy's output."""
import os
import sys
import tempfile
import unittest

from e2e_common import MULTI30K, REFERENCE, convert, emulated, need_shared, run

SENTENCES = 100


def parse_nbest(text):
    """{input index: [(ids, score), ...]} from 'INDEX ||| IDS ||| SCORE' lines."""
    out = {}
    for line in text.split("\n")[:-1]:
        index, ids, score = line.split(" ||| ")
        out.setdefault(int(index), []).append((ids, float(score)))
    return out


class Multi30kBeam(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_shared()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = os.path.join(cls.tmp.name, "multi30k-ende.float32.edgemt")
        convert(MULTI30K, cls.model, "float32", extra=("--quiet",))
        with open(os.path.join(MULTI30K, "reference", "dev.src.ids")) as f:
            lines = f.read().split("\n")[:SENTENCES]
        cls.sources = os.path.join(cls.tmp.name, "src.ids")
        with open(cls.sources, "w") as f:
            f.write("\n".join(lines) + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def compare(self, beam, n_best):
        ours = run(emulated("edgemt-translate") + ["--model", self.model, "--input-ids", "--output-ids",
                                                   "--beam-size", str(beam), "--n-best", str(n_best),
                                                   "--batch-size", "8"], stdin=open(self.sources).read()).stdout
        ref = run([sys.executable, REFERENCE, "--model", self.model, "--input-ids", self.sources,
                   "--beam-size", str(beam), "--n-best", str(n_best)]).stdout
        a, b = parse_nbest(ours), parse_nbest(ref)
        self.assertEqual(sorted(a), list(range(SENTENCES)))
        self.assertEqual(sorted(b), list(range(SENTENCES)))
        same = sum(len(a[i]) == len(b[i]) and all(x[0] == y[0] for x, y in zip(a[i], b[i])) for i in a) / SENTENCES
        worst = max((abs(x[1] - y[1]) / max(abs(y[1]), 1e-30) for i in a if len(a[i]) == len(b[i])
                     for x, y in zip(a[i], b[i]) if x[0] == y[0]), default=0.0)
        print("beam %d, %d-best: identical %.1f%%, scores within %.2g" % (beam, n_best, 100 * same, worst))
        self.assertGreaterEqual(same, 0.99)
        self.assertLessEqual(worst, 1e-4)
        self.assertTrue(all(len(a[i]) == n_best for i in a))

    def test_beam_4_one_best(self):
        self.compare(4, 1)

    def test_beam_4_four_best(self):
        self.compare(4, 4)

    def test_beam_5_four_best(self):
        self.compare(5, 4)

    def test_beam_1_with_scores_is_greedy(self):
        source = open(self.sources).read()
        plain = run(emulated("edgemt-translate") + ["--model", self.model, "--input-ids", "--output-ids"],
                    stdin=source).stdout.split("\n")[:-1]
        scored = run(emulated("edgemt-translate") + ["--model", self.model, "--input-ids", "--output-ids", "--scores"],
                     stdin=source).stdout.split("\n")[:-1]
        self.assertEqual(len(plain), SENTENCES)
        self.assertEqual([line.split("\t", 1)[1] for line in scored], plain)
        self.assertTrue(all(float(line.split("\t", 1)[0]) <= 0.0 for line in scored))


if __name__ == "__main__":
    unittest.main()
