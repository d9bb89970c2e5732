"""The trained multi30k model in ../shared (skipped when it is absent): the
float32 conversion reproduces the golden outputs, an int8 conversion fits the
size limit, and the committed int8 example model reads back and translates."""
import os
import tempfile
import unittest

import numpy as np

from helpers import REPO, SHARED, convert

from edgemt_convert.decode import greedy
from edgemt_convert.reader import read
from edgemt_convert.reference_model import ReferenceModel

MODEL = os.path.join(SHARED, "models", "multi30k-ende")
TRAIN_EN = os.path.join(SHARED, "data", "multi30k", "train.en")
EXAMPLE = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")


def ids(path, n=None):
    with open(path) as f:
        lines = f.read().split("\n")[:-1]
    return [[int(t) for t in l.split()] for l in lines[:n]]


@unittest.skipUnless(os.path.isdir(MODEL), "the shared multi30k model is not at %s" % MODEL)
class SharedModel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="edgemt-test-")
        cls.sources = ids(os.path.join(MODEL, "reference", "dev.src.ids"))
        cls.float_ids = ids(os.path.join(MODEL, "reference", "dev.greedy.ids"))

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_float32_file_reproduces_the_golden_outputs(self):
        path = os.path.join(self._tmp.name, "m.f32.edgemt")
        convert(MODEL, path, "--dtype", "float32")
        model = read(path)
        golden = np.load(os.path.join(MODEL, "reference", "golden.npz"))
        outs, recs = greedy(ReferenceModel(model), [golden["s%d_src_ids" % i].tolist() for i in range(3)], record=3)
        for i, rec in enumerate(recs):
            np.testing.assert_allclose(rec["encoder_out"], golden["s%d_encoder_out" % i], atol=1e-4)
            np.testing.assert_allclose(rec["logits"], golden["s%d_logits" % i], atol=1e-4)
            np.testing.assert_array_equal(rec["out_ids"], golden["s%d_out_ids" % i])
        outs, _ = greedy(ReferenceModel(model), self.sources[:60])
        self.assertEqual(outs, self.float_ids[:60])

    @unittest.skipUnless(os.path.exists(TRAIN_EN), "no shared train.en")
    def test_int8_conversion_fits_in_30_percent(self):
        path = os.path.join(self._tmp.name, "m.int8.edgemt")
        out = convert(MODEL, path, "--calibration", TRAIN_EN, "--calibration-size", "48")
        size = os.path.getsize(path)
        self.assertLessEqual(size, 0.30 * os.path.getsize(os.path.join(MODEL, "model.pt")))
        self.assertIn("file: %s bytes" % format(size, ","), out)
        self.assertTrue(read(path).decoder.output_projection.weight.is_int8)

    @unittest.skipUnless(os.path.exists(EXAMPLE), "models/multi30k-ende.int8.edgemt is not in this checkout")
    def test_committed_example_model(self):
        model = read(EXAMPLE)
        self.assertEqual(model.metadata.dtype, "int8")
        self.assertEqual((model.metadata.source_language, model.metadata.target_language), ("en", "de"))
        self.assertEqual(model.metadata.source_checkpoint, "multi30k-ende")
        self.assertIsNotNone(model.tokenizer)
        self.assertLessEqual(os.path.getsize(EXAMPLE), 0.30 * os.path.getsize(os.path.join(MODEL, "model.pt")))
        outs, _ = greedy(ReferenceModel(model), self.sources[:100])
        same = sum(a == b for a, b in zip(outs, self.float_ids[:100]))
        self.assertGreaterEqual(same, 75, "int8 simulation identical to float32 on %d of 100" % same)


if __name__ == "__main__":
    unittest.main()
