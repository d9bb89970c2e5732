"""Every model variant the converter supports, converted to float32 and run
through the runtime, computes what the PyTorch reference computes: the same
greedy ids, and logits and encoder outputs within float32 rounding.
The checkpoints are small random ones (no ../shared needed)."""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

from e2e_common import REPO, REFERENCE, convert, emulated, run

# Of the largest absolute value (at least 1e-6), for encoder outputs and
# logits: float32 sums in another order than PyTorch's (measured: at most
# 5.3e-7 on x86-64).
TOLERANCE = 2e-6

sys.path.insert(0, os.path.join(REPO, "converter", "tests"))
from helpers import write_checkpoint  # noqa: E402  (the converter tests' random checkpoints)

# Every value of every option, and every norm x activation pair, in 6 models.
VARIANTS = [dict(norm=n, activation=a, position_layout=p, tie_output=t) for n, a, p, t in (
    ("post", "relu", "interleaved", False),   # the seed layout
    ("pre", "gelu", "halves", True),
    ("post", "silu", "halves", False),
    ("pre", "relu", "interleaved", True),
    ("post", "gelu", "interleaved", True),
    ("pre", "silu", "halves", False),
)]


def random_sources(vocab, count, seed):
    rng = np.random.default_rng(seed)
    return [list(rng.integers(4, vocab, size=int(rng.integers(1, 12)))) + [3] for _ in range(count)]


class Variants(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check_variant(self, index, variant):
        folder = os.path.join(self.tmp.name, "v%d" % index)
        cfg, _ = write_checkpoint(folder, seed=index, **variant)
        model = folder + ".f32.edgemt"
        convert(folder, model, "float32")
        sources = random_sources(cfg["src_vocab_size"], 6, seed=100 + index)
        ids_file = folder + ".src.ids"
        with open(ids_file, "w") as f:
            f.write("".join(" ".join(map(str, s)) + "\n" for s in sources))

        npz = folder + ".ref.npz"
        expected = run([sys.executable, REFERENCE, "--checkpoint", folder, "--input-ids", ids_file,
                        "--dump-npz", npz, "--dump-count", "2"]).stdout.split("\n")[:-1]
        with open(ids_file) as f:
            ours = run(emulated("edgemt-translate") + ["--model", model, "--input-ids", "--output-ids",
                        "--batch-size", "3"], stdin=f.read()).stdout.split("\n")[:-1]
        self.assertEqual(ours, expected, "greedy ids differ for %s" % variant)

        golden = np.load(npz)
        for i in range(2):
            src, out_ids = golden["s%d_src_ids" % i], golden["s%d_out_ids" % i]
            prefix = folder + ".s%d" % i
            run(emulated("edgemt-dump-tensors") + [model, " ".join(map(str, src)),
                 " ".join(map(str, out_ids[:-1])), prefix])
            encoder = np.fromfile(prefix + ".encoder", dtype="<f4").reshape(golden["s%d_encoder_out" % i].shape)
            logits = np.fromfile(prefix + ".logits", dtype="<f4").reshape(golden["s%d_logits" % i].shape)
            for name, a, b in (("encoder", encoder, golden["s%d_encoder_out" % i]),
                               ("logits", logits, golden["s%d_logits" % i])):
                err = np.abs(a - b).max() / max(np.abs(b).max(), 1e-6)
                print("%s %s: relative error %.2g" % (variant, name, err))
                self.assertLess(err, TOLERANCE, "%s: %s relative error %.3g" % (variant, name, err))

    def test_every_variant_matches_the_reference(self):
        for index, variant in enumerate(VARIANTS):
            with self.subTest(**variant):
                self.check_variant(index, variant)


if __name__ == "__main__":
    unittest.main()
