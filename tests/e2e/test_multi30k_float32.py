"""The float32 conversion of the trained multi30k model through the runtime
reproduces the PyTorch reference: greedy ids on the 500 dev sentences and
the golden encoder outputs and step logits."""
import os
import tempfile
import unittest

import numpy as np

from e2e_common import MULTI30K, convert, need_shared, read_lines, run, tool


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
            sources = f.read()
        out = run([tool("edgemt-translate"), "--model", self.model, "--input-ids", "--output-ids",
                   "--batch-size", "8"], stdin=sources).stdout.split("\n")[:-1]
        expected = read_lines(os.path.join(reference, "dev.greedy.ids"))
        self.assertEqual(len(out), len(expected))
        same = sum(a == b for a, b in zip(out, expected))
        self.assertGreaterEqual(same / len(expected), 0.99, "%d of %d identical" % (same, len(expected)))

    def test_golden_encoder_output_and_logits(self):
        golden = np.load(os.path.join(MULTI30K, "reference", "golden.npz"))
        d = golden["s0_encoder_out"].shape[1]
        for i in range(3):
            src = golden["s%d_src_ids" % i]
            out_ids = golden["s%d_out_ids" % i]
            prefix = os.path.join(self.tmp.name, "s%d" % i)
            run([tool("edgemt-dump-tensors"), self.model, " ".join(map(str, src)),
                 " ".join(map(str, out_ids[:-1])), prefix])
            encoder = np.fromfile(prefix + ".encoder", dtype="<f4").reshape(len(src), d)
            logits = np.fromfile(prefix + ".logits", dtype="<f4").reshape(len(out_ids), -1)
            for name, ours, theirs in (("encoder", encoder, golden["s%d_encoder_out" % i]),
                                       ("logits", logits, golden["s%d_logits" % i])):
                relative = np.abs(ours - theirs).max() / np.abs(theirs).max()
                self.assertLess(relative, 1e-3, "sentence %d %s: relative error %.3g" % (i, name, relative))
            np.testing.assert_array_equal(logits.argmax(axis=1), out_ids)


if __name__ == "__main__":
    unittest.main()
