"""Every model variant the converter supports, run through the runtime:
converted to float32, it computes what the PyTorch reference computes (the
same greedy ids, and logits and encoder outputs within float32 rounding);
converted to int8, each of its int8 Linears computes what the converter's
simulation of docs/int8.md computes from the same integers, within the
bound that page derives (int8_layers.py).
The checkpoints are small random ones (no ../shared needed)."""
import os
import sys
import tempfile
import unittest

import numpy as np

from e2e_common import REPO, REFERENCE, convert, emulated, run
from int8_layers import FLOAT_TOLERANCE, LockStep

# Of the largest absolute value (at least 1e-6), for encoder outputs and
# logits: float32 sums in another order than PyTorch's (measured: at most
# 5.3e-7 on x86-64).
TOLERANCE = FLOAT_TOLERANCE

sys.path.insert(0, os.path.join(REPO, "converter", "tests"))
from helpers import make_config, random_state_dict, write_checkpoint  # noqa: E402  (the converter tests' checkpoints)

# Every value of every option, and every norm x activation pair, in 6 models;
# two of them also with learned position tables and with one embedding shared
# by encoder and decoder (the others keep separate ones).
VARIANTS = [dict(norm=n, activation=a, position_layout=p, tie_output=t, **extra) for n, a, p, t, extra in (
    ("post", "relu", "interleaved", False, {}),   # the seed layout
    ("pre", "gelu", "halves", True, dict(shared_embeddings=True)),
    ("post", "silu", "halves", False, dict(learned_positions=True)),
    ("pre", "relu", "interleaved", True, {}),
    ("post", "gelu", "interleaved", True, {}),
    ("pre", "silu", "halves", False, dict(learned_positions=True, shared_embeddings=True)),
)]


def write_variant(folder, index, variant):
    """A random checkpoint of this variant; returns its config."""
    options = dict(variant)
    learned = options.pop("learned_positions", False)
    shared = options.pop("shared_embeddings", False)
    if shared:
        options["tgt_vocab_size"] = make_config()["src_vocab_size"]
    cfg = make_config(**options)
    sd = random_state_dict(cfg, seed=index)
    if learned:   # tables that are no sinusoid: the converter stores them (Learned)
        rng = np.random.default_rng(index)
        for side in ("encoder", "decoder"):
            table = sd[side + ".positional_encoding"]
            sd[side + ".positional_encoding"] = table + rng.normal(0, 0.05, table.shape).astype(np.float32)
    if shared:    # identical tables: stored once
        sd["encoder.token_embedding.weight"] = sd["decoder.token_embedding.weight"].copy()
    write_checkpoint(folder, cfg=cfg, sd=sd)
    return cfg


def random_sources(vocab, count, seed):
    rng = np.random.default_rng(seed)
    return [list(rng.integers(4, vocab, size=int(rng.integers(1, 12)))) + [3] for _ in range(count)]


class Variants(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.prepared = {}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def prepare(self, index, variant):
        """(checkpoint folder, its config, the reference's greedy ids, its dump of 2 sentences)."""
        if index not in self.prepared:
            folder = os.path.join(self.tmp.name, "v%d" % index)
            cfg = write_variant(folder, index, variant)
            sources = random_sources(cfg["src_vocab_size"], 6, seed=100 + index)
            ids_file = folder + ".src.ids"
            with open(ids_file, "w") as f:
                f.write("".join(" ".join(map(str, s)) + "\n" for s in sources))
            npz = folder + ".ref.npz"
            expected = run([sys.executable, REFERENCE, "--checkpoint", folder, "--input-ids", ids_file,
                            "--dump-npz", npz, "--dump-count", "2"]).stdout.split("\n")[:-1]
            self.prepared[index] = (folder, cfg, ids_file, expected, np.load(npz))
        return self.prepared[index]

    def check_float32(self, index, variant):
        folder, cfg, ids_file, expected, golden = self.prepare(index, variant)
        model = folder + ".f32.edgemt"
        convert(folder, model, "float32")
        with open(ids_file) as f:
            ours = run(emulated("edgemt-translate") + ["--model", model, "--input-ids", "--output-ids",
                        "--batch-size", "3"], stdin=f.read()).stdout.split("\n")[:-1]
        self.assertEqual(ours, expected, "greedy ids differ for %s" % variant)

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

    def check_int8_layers(self, index, variant):
        folder, _, _, _, golden = self.prepare(index, variant)
        model = folder + ".int8.edgemt"
        convert(folder, model, "int8")
        lock_step = LockStep(model)
        for i in range(2):
            src, fed = list(golden["s%d_src_ids" % i]), list(golden["s%d_out_ids" % i][:-1])
            prefix = folder + ".int8.s%d" % i
            run(emulated("edgemt-dump-tensors") + [model, " ".join(map(str, src)), " ".join(map(str, fed)),
                 prefix, "--linears"])
            lock_step.check(prefix + ".linears", src, fed)
        print("%s int8: inputs within %.2g of the simulation's; outputs within %.4f of the bound"
              % (variant, lock_step.worst_float, lock_step.worst_product))

    def test_every_variant_matches_the_reference(self):
        for index, variant in enumerate(VARIANTS):
            with self.subTest(**variant):
                self.check_float32(index, variant)

    def test_every_int8_layer_of_every_variant_follows_the_simulation(self):
        for index, variant in enumerate(VARIANTS):
            with self.subTest(**variant):
                self.check_int8_layers(index, variant)


if __name__ == "__main__":
    unittest.main()
