"""int8 on a trained model in Firefox's files, against Bergamot (issue 55).

int8 on random weights is chaotic for every engine, so int8 is judged on the
Multi30k model exported to Marian by the kit (export_marian.py from-seed,
with alphas): the float32 model.ende.bin and the shipped
model.ende.intgemm.alphas.bin. EdgeMT converts the float32 file with
--dtype float32 and the folder as a user would (no flag: int8, the intgemm8
weights kept bit for bit); Bergamot runs the float32 file and the intgemm8
file with Firefox's gemm-precision int8shiftAlphaAll, batched as in
Firefox. On the 500 dev sentences, greedy:

  * EdgeMT int8 gives EdgeMT float32's ids at least as often as Bergamot's
    int8 gives Bergamot's float32 ids;
  * EdgeMT int8's BLEU is not measurably below Bergamot int8's (the bar is "at
    least": both are printed with the paired bootstrap's interval);
  * the two float32 engines agree on at least 99% (the same model).

With a shortlist learnt from the training corpus (the kit's lex.50.50),
float32 one sentence at a time, EdgeMT's ids are Bergamot's on at least 99%.
Every count and BLEU is printed. About two minutes, most of it Bergamot.
"""
import os
import sys
import tempfile
import unittest

from e2e_common import CONVERT, DEV_DE, DEV_EN, MULTI30K, SHARED, bleu_of_lines, emulated, need_shared, read_lines, run
from test_firefox_models import KIT, need_kit

SENTENCES = 500
TRAIN_EN, TRAIN_DE = (os.path.join(SHARED, "data", "multi30k", "train." + lang) for lang in ("en", "de"))


def paired_bootstrap(hyps_a, hyps_b, refs, resamples=1000, seed=1):
    """BLEU(a), and the 2.5th and 97.5th percentiles of BLEU(a) - BLEU(b) over corpora resampled with
    replacement (the same sentences for both), from the model folder's bleu.py statistics."""
    import random
    sys.path.insert(0, MULTI30K)
    import bleu

    def stats(hyp, ref):
        h, r = bleu._prep(hyp, "13a", False).split(), bleu._prep(ref, "13a", False).split()
        hc, rc = bleu._ngrams(h, 4), bleu._ngrams(r, 4)
        correct, total = [0] * 4, [max(0, len(h) - n) for n in range(4)]
        for gram, count in hc.items():
            correct[len(gram) - 1] += min(count, rc.get(gram, 0))
        return correct, total, len(h), len(r)

    def score(rows, picks):
        correct, total, sys_len, ref_len = [0] * 4, [0] * 4, 0, 0
        for i in picks:
            c, t, h, r = rows[i]
            correct = [x + y for x, y in zip(correct, c)]
            total = [x + y for x, y in zip(total, t)]
            sys_len, ref_len = sys_len + h, ref_len + r
        return bleu.score_from_stats(correct, total, sys_len, ref_len)[0]

    rows_a = [stats(h, r) for h, r in zip(hyps_a, refs)]
    rows_b = [stats(h, r) for h, r in zip(hyps_b, refs)]
    rng = random.Random(seed)
    differences = []
    for _ in range(resamples):
        picks = [rng.randrange(len(refs)) for _ in refs]
        differences.append(score(rows_a, picks) - score(rows_b, picks))
    differences.sort()
    whole = range(len(refs))
    return score(rows_a, whole), differences[int(0.025 * resamples)], differences[int(0.975 * resamples) - 1]


class TrainedFirefoxFilesInt8(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_shared()
        need_kit()
        cls._tmp = tempfile.TemporaryDirectory(prefix="edgemt-firefox-trained-")
        tmp = cls._tmp.name
        folder = os.path.join(tmp, "marian")
        run(["/usr/bin/python3", os.path.join(KIT, "export_marian.py"), "from-seed", MULTI30K,
             "--out-dir", folder])
        cls.vocab = os.path.join(folder, "vocab.ende.spm")
        float_bin = os.path.join(folder, "model.ende.bin")
        int8_bin = os.path.join(folder, "model.ende.intgemm.alphas.bin")
        f32, i8 = os.path.join(tmp, "f32.edgemt"), os.path.join(tmp, "i8.edgemt")
        run(["/usr/bin/python3", CONVERT, float_bin, "--out", f32, "--dtype", "float32"])
        run(["/usr/bin/python3", CONVERT, folder, "--out", i8])
        sources = "".join(line + "\n" for line in read_lines(DEV_EN)[:SENTENCES])
        cls.out = {}
        for name, path in (("EdgeMT float32", f32), ("EdgeMT int8", i8)):
            cls.out[name] = cls._edgemt(path, sources)
        for name, model, gemm in (("Bergamot float32", float_bin, None),
                                  ("Bergamot int8shiftAlphaAll", int8_bin, "int8shiftAlphaAll")):
            cls.out[name] = cls._bergamot(model, gemm, sources, os.path.join(tmp, "ids"))
        # Bergamot's shortlist selection, end to end: a lex.50.50 from the training corpus, float32, one by one.
        lex = os.path.join(tmp, "lex.bin")
        run(["/usr/bin/python3", os.path.join(KIT, "make_shortlist.py"), "corpus", "--vocab", cls.vocab, "--src",
             TRAIN_EN, "--trg", TRAIN_DE, "--out", lex])
        listed = os.path.join(tmp, "f32.shortlist.edgemt")
        run(["/usr/bin/python3", CONVERT, float_bin, "--out", listed, "--dtype", "float32", "--shortlist-bergamot", lex])
        cls.shortlisted = {"EdgeMT": cls._edgemt(listed, sources)[1],
                           "Bergamot": cls._bergamot(float_bin, None, sources, os.path.join(tmp, "ids"),
                                                     ["--shortlist", lex, "--one-by-one"])[1]}
        cls.bleu = {name: bleu_of_lines(text, os.path.join(tmp, "hyp"), DEV_DE)
                    for name, (text, _) in cls.out.items()}
        for name, score in cls.bleu.items():
            print("%s: BLEU %.2f on %d dev sentences" % (name, score, SENTENCES), file=sys.stderr)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    @staticmethod
    def _edgemt(path, sources):
        cmd = emulated("edgemt-translate") + ["--model", path, "--threads", "1"]
        text = run(cmd, stdin=sources).stdout.split("\n")[:-1]
        ids = run(cmd + ["--output-ids"], stdin=sources).stdout.split("\n")[:-1]
        return text, ids

    @classmethod
    def _bergamot(cls, model, gemm, sources, ids_path, extra=()):
        cmd = ["node", os.path.join(KIT, "bergamot_translate.mjs"), "--model", model, "--vocab", cls.vocab,
               "--ids-out", ids_path, *extra]
        if gemm:
            cmd += ["--gemm", gemm]
        text = run(cmd, stdin=sources).stdout.split("\n")[:-1]
        return text, read_lines(ids_path)

    def _same(self, a, b):
        ids_a, ids_b = self.out[a][1], self.out[b][1]
        self.assertEqual(len(ids_a), SENTENCES)
        self.assertEqual(len(ids_b), SENTENCES)
        same = sum(x == y for x, y in zip(ids_a, ids_b))
        print("%s gives %s's ids on %d of %d sentences" % (a, b, same, SENTENCES), file=sys.stderr)
        return same

    def test_every_output_has_one_line_per_source(self):
        for name, (text, ids) in self.out.items():
            self.assertEqual((len(text), len(ids)), (SENTENCES, SENTENCES), name)

    def test_the_float32_engines_agree(self):
        self.assertGreaterEqual(self._same("EdgeMT float32", "Bergamot float32"), 0.99 * SENTENCES)

    def test_int8_agrees_with_float32_at_least_as_often_as_bergamot(self):
        ours = self._same("EdgeMT int8", "EdgeMT float32")
        theirs = self._same("Bergamot int8shiftAlphaAll", "Bergamot float32")
        self.assertGreaterEqual(ours, theirs)

    def test_int8_bleu_not_below_bergamot_int8(self):
        """The bar is EdgeMT int8's BLEU >= Bergamot int8's. Both lose about 0.3 to float32, and which loses
        less on 500 sentences is mostly which sentences each happens to change: the paired bootstrap's 95%
        interval of the difference is printed, and the test fails when EdgeMT is measurably worse (the
        whole interval below 0)."""
        ours, theirs = self.out["EdgeMT int8"][0], self.out["Bergamot int8shiftAlphaAll"][0]
        whole, low, high = paired_bootstrap(ours, theirs, read_lines(DEV_DE)[:SENTENCES])
        self.assertAlmostEqual(whole, self.bleu["EdgeMT int8"], delta=0.006)  # the statistics are bleu.py's
        difference = self.bleu["EdgeMT int8"] - self.bleu["Bergamot int8shiftAlphaAll"]
        print("EdgeMT int8 - Bergamot int8: %+.2f BLEU (paired bootstrap, 1000 resamples, 95%%: %+.2f to %+.2f)"
              % (difference, low, high), file=sys.stderr)
        self.assertGreaterEqual(high, 0.0, "EdgeMT int8 is measurably worse than Bergamot int8")

    def test_the_shortlist_selects_as_bergamot(self):
        """With the same lex.50.50, float32 one sentence at a time, EdgeMT's ids are Bergamot's: the selection
        (the first ids, </s>'s list, each source id's list and itself, padded to a multiple of 8 ids) is
        Marian's (test_firefox_models.py's tiny_shortlist checks the padding on a random model)."""
        ours, theirs = self.shortlisted["EdgeMT"], self.shortlisted["Bergamot"]
        self.assertEqual((len(ours), len(theirs)), (SENTENCES, SENTENCES))
        same = sum(a == b for a, b in zip(ours, theirs))
        print("with the shortlist, float32: EdgeMT's ids are Bergamot's on %d of %d sentences" % (same, SENTENCES),
              file=sys.stderr)
        self.assertGreaterEqual(same, 0.99 * SENTENCES)
        self.assertNotEqual(ours, self.out["EdgeMT float32"][1], "the shortlist must change some translations")

    def test_the_trained_model_translates(self):
        self.assertGreater(self.bleu["EdgeMT float32"], 30.0)


if __name__ == "__main__":
    unittest.main()
