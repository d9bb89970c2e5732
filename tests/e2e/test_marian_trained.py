"""The trained Multi30k model written in Hugging Face Marian's layout
(tests/tools/marian_from_seed.py) and converted to float32 has Marian's
sinusoidal positions and translates the dev set as the PyTorch reference
did, ids and text (all 500 natively, the first 50 under the sanitizers). Needs
../shared (the model and its reference outputs); the random Marian
checkpoints are test_marian.py's."""
import os
import sys
import tempfile
import unittest

from e2e_common import DEV_EN, MULTI30K, REPO, convert, emulated, need_shared, read_lines, run

sys.path.insert(0, os.path.join(REPO, "tests", "tools"))
import marian_from_seed  # noqa: E402


class TrainedMarian(unittest.TestCase):
    # All natively; a prefix under the sanitizers (CTest runs it natively and there only).
    SENTENCES = 50 if os.environ.get("EDGEMT_SANITIZED") else 500

    @classmethod
    def setUpClass(cls):
        need_shared()
        cls.tmp = tempfile.TemporaryDirectory()
        folder = os.path.join(cls.tmp.name, "multi30k-marian")
        marian_from_seed.write(MULTI30K, folder)
        cls.model = folder + ".f32.edgemt"
        convert(folder, cls.model, "float32")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def translate(self, args, stdin):
        return run(emulated("edgemt-translate") + ["--model", self.model, "--beam-size", "1", "--batch-size", "8"]
                   + args, stdin="".join(stdin)).stdout.split("\n")[:-1]

    def assert_all_equal(self, ours, expected):
        self.assertEqual(len(ours), len(expected))
        different = [i for i, (a, b) in enumerate(zip(ours, expected)) if a != b]
        self.assertEqual(different, [], "sentences that differ from the reference")

    def test_dev_ids_match_the_reference(self):
        with open(os.path.join(MULTI30K, "reference", "dev.src.ids")) as f:
            sources = f.readlines()[:self.SENTENCES]
        expected = read_lines(os.path.join(MULTI30K, "reference", "dev.greedy.ids"))[:self.SENTENCES]
        self.assert_all_equal(self.translate(["--input-ids", "--output-ids"], sources), expected)

    def test_dev_text_matches_the_reference(self):
        with open(DEV_EN, encoding="utf-8") as f:
            sources = f.readlines()[:self.SENTENCES]
        expected = read_lines(os.path.join(MULTI30K, "reference", "dev.greedy.de"))[:self.SENTENCES]
        self.assert_all_equal(self.translate([], sources), expected)

    def test_positions_are_marians_sinusoid(self):
        # The dimensions were reordered so that the seed's positions are Marian's own: the import
        # must find the sinusoid, not keep a learned table (which would translate just as well).
        sys.path.insert(0, os.path.join(REPO, "converter"))
        from edgemt_convert.format import model_ir as ir
        from edgemt_convert.format.reader import read
        model = read(self.model)
        self.assertEqual(model.config.position_encoding, ir.POS_HALVES)
        self.assertIsNone(model.encoder.positions)
        self.assertIsNone(model.decoder.positions)


if __name__ == "__main__":
    unittest.main()
