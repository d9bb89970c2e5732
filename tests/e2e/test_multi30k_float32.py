"""The float32 conversion of the trained multi30k model through the runtime
reproduces the PyTorch reference: greedy ids on the dev sentences (all 500
natively; under qemu, where 500 float32 translations take minutes, the
first 30) and the golden encoder outputs and step logits, within 2e-6 of
their largest value (measured: at most 6e-7 on x86-64, aarch64 and armhf; the
float sums run in another order than PyTorch's, on ARM in another order
again)."""
import os
import tempfile
import unittest

import numpy as np

from e2e_common import FLOAT32_SENTENCES, MULTI30K, convert, emulated, need_shared, read_lines, run

# All 500 natively; a prefix under emulation (EDGEMT_EMULATOR).
SENTENCES = FLOAT32_SENTENCES or (30 if os.environ.get("EDGEMT_EMULATOR") else 500)
# Of the largest absolute value, for encoder outputs and logits.
TOLERANCE = 2e-6


class Multi30kFloat32(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_shared()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = os.path.join(cls.tmp.name, "m.f32.edgemt")
        convert(MULTI30K, cls.model, "float32")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_dev_greedy_ids_match_the_reference(self):
        reference = os.path.join(MULTI30K, "reference")
        with open(os.path.join(reference, "dev.src.ids")) as f:
            sources = f.readlines()[:SENTENCES]
        out = run(emulated("edgemt-translate") + ["--model", self.model, "--input-ids", "--output-ids",
                                                  "--batch-size", "8"], stdin="".join(sources)).stdout.split("\n")[:-1]
        expected = read_lines(os.path.join(reference, "dev.greedy.ids"))[:SENTENCES]
        self.assertEqual(len(out), len(expected))
        different = [i for i, (a, b) in enumerate(zip(out, expected)) if a != b]
        print("%d of %d identical" % (len(expected) - len(different), len(expected)))
        self.assertEqual(different, [], "sentences whose ids differ from the reference")

    def test_golden_encoder_output_and_logits(self):
        golden = np.load(os.path.join(MULTI30K, "reference", "golden.npz"))
        d = golden["s0_encoder_out"].shape[1]
        for i in range(3):
            src = golden["s%d_src_ids" % i]
            out_ids = golden["s%d_out_ids" % i]
            prefix = os.path.join(self.tmp.name, "s%d" % i)
            run(emulated("edgemt-dump-tensors") + [self.model, " ".join(map(str, src)),
                 " ".join(map(str, out_ids[:-1])), prefix])
            encoder = np.fromfile(prefix + ".encoder", dtype="<f4").reshape(len(src), d)
            logits = np.fromfile(prefix + ".logits", dtype="<f4").reshape(len(out_ids), -1)
            for name, ours, theirs in (("encoder", encoder, golden["s%d_encoder_out" % i]),
                                       ("logits", logits, golden["s%d_logits" % i])):
                relative = np.abs(ours - theirs).max() / np.abs(theirs).max()
                print("sentence %d %s: relative error %.2g" % (i, name, relative))
                self.assertLess(relative, TOLERANCE, "sentence %d %s: relative error %.3g" % (i, name, relative))
            np.testing.assert_array_equal(logits.argmax(axis=1), out_ids)


if __name__ == "__main__":
    unittest.main()
