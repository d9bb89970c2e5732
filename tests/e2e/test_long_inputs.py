"""Sources as long as a model's positions, against the PyTorch reference (issue 31): the other tests' models
have 48-256 positions and their sources stay under 100 ids. Here a random checkpoint with 512 positions
(converted to float32) translates sources of 100 to 512 ids, batched together with short ones: the greedy ids
must be the reference's, and the encoder outputs and the logits of the longest within the float32 tolerance
of the other e2e tests (2e-6 of the largest value). Natively, under ASan and on ARM (qemu); no ../shared."""
import os
import sys
import tempfile
import unittest

import numpy as np

from e2e_common import REFERENCE, REPO, convert, emulated, run
from int8_layers import FLOAT_TOLERANCE

sys.path.insert(0, os.path.join(REPO, "converter", "tests"))
from helpers import make_config, random_state_dict, write_checkpoint  # noqa: E402  (the converter tests' checkpoints)

POSITIONS = 512
LENGTHS = (512, 400, 5, 257, 100, 3)   # ids, </s> included: the longest first and last in its batch
MAX_OUTPUT = 48                        # output ids per source: enough steps over a long memory, in time


def long_sources(vocab, seed=31):
    rng = np.random.default_rng(seed)
    return [list(rng.integers(4, vocab, size=n - 1)) + [3] for n in LENGTHS]


class LongInputs(unittest.TestCase):
    def test_sources_up_to_the_models_positions_match_the_reference(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = os.path.join(tmp, "long")
            cfg = make_config(max_seq_len=POSITIONS, d_model=32, n_heads=4, d_ff=64)
            write_checkpoint(folder, cfg=cfg, sd=random_state_dict(cfg, seed=31))
            sources = long_sources(cfg["src_vocab_size"])
            ids_file = os.path.join(tmp, "src.ids")
            with open(ids_file, "w") as f:
                f.write("".join(" ".join(map(str, s)) + "\n" for s in sources))
            npz = os.path.join(tmp, "ref.npz")
            expected = run([sys.executable, REFERENCE, "--checkpoint", folder, "--input-ids", ids_file,
                            "--max-length", str(MAX_OUTPUT), "--dump-npz", npz, "--dump-count", "1"]
                           ).stdout.split("\n")[:-1]
            golden = np.load(npz)
            model = os.path.join(tmp, "long.f32.edgemt")
            convert(folder, model, "float32")
            with open(ids_file) as f:
                ours = run(emulated("edgemt-translate") + ["--model", model, "--input-ids", "--output-ids",
                            "--max-length", str(MAX_OUTPUT), "--batch-size", "3"], stdin=f.read()
                           ).stdout.split("\n")[:-1]
            self.assertEqual(len(ours), len(sources))
            for length, a, b in zip(LENGTHS, ours, expected):
                self.assertEqual(a, b, "greedy ids differ for the source of %d ids" % length)

            src, out_ids = golden["s0_src_ids"], golden["s0_out_ids"]
            self.assertEqual(len(src), POSITIONS)
            prefix = os.path.join(tmp, "s0")
            run(emulated("edgemt-dump-tensors") + [model, " ".join(map(str, src)), " ".join(map(str, out_ids[:-1])),
                                                   prefix])
            encoder = np.fromfile(prefix + ".encoder", dtype="<f4").reshape(golden["s0_encoder_out"].shape)
            logits = np.fromfile(prefix + ".logits", dtype="<f4").reshape(golden["s0_logits"].shape)
            for name, a, b in (("encoder", encoder, golden["s0_encoder_out"]), ("logits", logits, golden["s0_logits"])):
                err = np.abs(a - b).max() / max(np.abs(b).max(), 1e-6)
                print("%d-id source, %s: relative error %.2g" % (POSITIONS, name, err))
                self.assertLess(err, FLOAT_TOLERANCE, "%s relative error %.3g" % (name, err))


if __name__ == "__main__":
    unittest.main()
