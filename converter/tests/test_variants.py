"""Every variant of the seed layout converts to float32 and int8, reads back
with the schema's meaning, and a float32 file computes exactly what its
checkpoint computes."""
import unittest

import numpy as np
import torch

from helpers import TempDir, convert, make_config, random_state_dict, write_checkpoint

from edgemt_convert.format import model_ir as ir
from edgemt_convert.format.reader import read
from edgemt_convert.quantize.int8 import Int8Linear
from edgemt_convert.reference.decode import greedy
from edgemt_convert.reference.model import ReferenceModel
from edgemt_convert.sources import load_checkpoint

# Every value of every variant key, most pairs of values.
VARIANTS = [
    dict(norm="post", activation="relu", position_layout="interleaved", tie_output=False),
    dict(norm="pre", activation="gelu", position_layout="halves", tie_output=True),
    dict(norm="post", activation="silu", position_layout="halves", tie_output=False),
    dict(norm="pre", activation="relu", position_layout="interleaved", tie_output=True),
    dict(norm="post", activation="gelu", position_layout="interleaved", tie_output=True),
    dict(norm="pre", activation="silu", position_layout="halves", tie_output=False),
]

SOURCES = [[5, 17, 33, 9, 3], [44, 3], [7, 8, 9, 10, 11, 12, 13, 14, 3]]


def run(model, sources=SOURCES, max_length=None):
    outs, recs = greedy(ReferenceModel(model), sources, max_length=max_length, record=len(sources))
    return outs, recs


class Variants(unittest.TestCase):
    def convert_variant(self, variant, index):
        tmp = TempDir(self)
        ckpt = tmp("ckpt")
        write_checkpoint(ckpt, seed=index, **variant)
        f32, i8 = tmp("m.f32.edgemt"), tmp("m.int8.edgemt")
        convert(ckpt, f32, "--dtype", "float32")
        convert(ckpt, i8)
        return ckpt, read(f32), read(i8)

    def check_config(self, m, variant):
        c = m.config
        self.assertEqual(ir.NORM_NAMES[c.norm], variant["norm"])
        self.assertEqual(ir.ACT_NAMES[c.activation], variant["activation"])
        self.assertEqual(ir.POS_NAMES[c.position_encoding], variant["position_layout"])
        self.assertEqual(c.tied_output, variant["tie_output"])
        self.assertAlmostEqual(c.embedding_scale, 8.0)            # sqrt(64)
        self.assertEqual((c.d_model, c.num_heads, c.d_ff, c.encoder_layers, c.decoder_layers), (64, 4, 128, 2, 2))
        self.assertEqual((c.source_vocab_size, c.target_vocab_size, c.max_positions), (120, 130, 48))
        self.assertEqual(c.decoder_start_id, c.bos_id)
        pre = variant["norm"] == "pre"
        self.assertEqual(m.encoder.final_norm is not None, pre)
        self.assertEqual(m.decoder.final_norm is not None, pre)
        self.assertIsNone(m.encoder.positions)
        proj = m.decoder.output_projection
        self.assertEqual(proj.weight is None, variant["tie_output"])
        self.assertEqual(proj.bias.shape, (130,))

    def check_int8(self, m, f32, variant):
        self.assertEqual(m.metadata.dtype, "int8")
        self.assertIn("per-tensor int8 weight error", m.metadata.quantization_summary)
        self.assertIn("kept float32: none", m.metadata.quantization_summary)
        self.assertTrue(m.decoder.token_embedding.is_int8)
        float_linears = dict(f32.named_linears())
        for name, lin in m.named_linears():
            w = m.linear_weight(lin)
            self.assertTrue(w.is_int8, name)
            self.assertTrue(np.all(np.abs(w.data.astype(int)) <= 127), name)
            self.assertEqual(w.scales.shape, (w.shape[0],), name)
            fw = f32.linear_weight(float_linears[name]).data
            np.testing.assert_allclose(w.dequantize(), fw, atol=0.51 * float(w.scales.max()), rtol=0, err_msg=name)
            np.testing.assert_array_equal(lin.bias, float_linears[name].bias, err_msg=name)
        # the int8 simulation runs every Linear in int8 and stays close to the float model
        ref, fref = ReferenceModel(m), ReferenceModel(f32)
        self.assertTrue(all(isinstance(op, Int8Linear) for op in ref.ops.values()))
        with torch.no_grad():
            logits = []
            for r in (ref, fref):
                mem, valid = r.encode(SOURCES)
                state = r.start_decoder(mem, valid)
                logits.append(r.project(r.decode(state, torch.tensor([[2, 8, 9, 70, 11]] * 3))))
        rel = float((logits[0] - logits[1]).norm() / logits[1].norm())
        self.assertLess(rel, 0.03, variant)
        self.assertGreater(rel, 0.0, variant)

    def test_variants(self):
        for index, variant in enumerate(VARIANTS):
            with self.subTest(**variant):
                ckpt, f32, i8 = self.convert_variant(variant, index)
                self.check_config(f32, variant)
                self.check_config(i8, variant)
                self.check_int8(i8, f32, variant)
                checkpoint_model = load_checkpoint(ckpt).model
                a_out, a_rec = run(checkpoint_model)
                b_out, b_rec = run(f32)
                self.assertEqual(a_out, b_out)
                for ra, rb in zip(a_rec, b_rec):
                    np.testing.assert_array_equal(ra["encoder_out"], rb["encoder_out"])
                    np.testing.assert_array_equal(ra["logits"], rb["logits"])
                outs, recs = run(i8, max_length=6)
                self.assertTrue(all(len(o) <= 6 and all(0 <= t < 130 for t in o) for o in outs))

    def test_keep_float(self):
        """--keep-float NAMES: those Linears keep their float32 weight in an int8
        file and run in float; the summary names them; bad names fail."""
        from helpers import convert_error
        from edgemt_convert.quantize.linear import FloatLinear
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"))
        names = "encoder.layers.0.self_attention.value,decoder.output_projection"
        out = convert(tmp("ckpt"), tmp("m.edgemt"), "--keep-float", names)
        self.assertIn("kept float32 (--keep-float): encoder.layers.0.self_attention.value, "
                      "decoder.output_projection", out)
        self.assertRegex(out, r"\n  decoder\.output_projection +130x64 +kept float32\n")
        m = read(tmp("m.edgemt"))
        linears = dict(m.named_linears())
        for name, lin in linears.items():
            self.assertEqual(lin.weight.is_int8, name not in names.split(","), name)
        ckpt_model = load_checkpoint(tmp("ckpt")).model
        np.testing.assert_array_equal(m.decoder.output_projection.weight.data,
                                      ckpt_model.decoder.output_projection.weight.data)
        ref = ReferenceModel(m)
        self.assertIsInstance(ref.ops["decoder.output_projection"], FloatLinear)
        self.assertIsInstance(ref.ops["encoder.layers.0.self_attention.query"], Int8Linear)
        self.assertIn("decoder.output_projection", m.metadata.quantization_summary)

        def fails(message, *argv, checkpoint=tmp("ckpt")):
            self.assertEqual(convert_error(self, checkpoint, tmp("bad.edgemt"), *argv),
                             "edgemt-convert: error: %s\n" % message)

        fails("--keep-float: no Linear named 'encoder.nope' (names look like encoder.layers.0.feed_forward.up)",
              "--keep-float", "encoder.nope")
        fails("--keep-float applies to int8 and int4 files only", "--keep-float", names, "--dtype", "float32")
        write_checkpoint(tmp("tied"), tie_output=True)
        fails("--keep-float: the tied output projection is the decoder embedding; it is int8 in an int8 file",
              "--keep-float", "decoder.output_projection", checkpoint=tmp("tied"))

    def test_seed_layout_defaults_without_variant_keys(self):
        """Checkpoints older than the variant keys: post, relu, interleaved, untied, 1e-5."""
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"), drop_config_keys=("norm", "activation", "position_layout",
                                                        "tie_output", "layer_norm_eps"))
        convert(tmp("ckpt"), tmp("m.edgemt"), "--dtype", "float32")
        m = read(tmp("m.edgemt"))
        self.check_config(m, dict(norm="post", activation="relu", position_layout="interleaved", tie_output=False))
        self.assertAlmostEqual(m.config.layer_norm_epsilon, 1e-5, places=9)

    def test_layer_norm_epsilon(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"), layer_norm_eps=1e-6)
        convert(tmp("ckpt"), tmp("m.edgemt"), "--dtype", "float32")
        self.assertAlmostEqual(read(tmp("m.edgemt")).config.layer_norm_epsilon, 1e-6, places=12)

    def test_shared_embeddings_stored_once(self):
        tmp = TempDir(self)
        cfg = make_config(tgt_vocab_size=120)
        sd = random_state_dict(cfg)
        sd["encoder.token_embedding.weight"] = sd["decoder.token_embedding.weight"].copy()
        write_checkpoint(tmp("ckpt"), cfg=cfg, sd=sd)
        for dtype in ("float32", "int8"):
            out = convert(tmp("ckpt"), tmp(dtype + ".edgemt"), "--dtype", dtype)
            self.assertIn("identical; stored once", out)
            m = read(tmp(dtype + ".edgemt"))
            self.assertTrue(m.config.shared_embeddings)
            self.assertIsNone(m.encoder.token_embedding)
        ckpt_model = load_checkpoint(tmp("ckpt")).model
        self.assertEqual(run(ckpt_model)[0], run(read(tmp("float32.edgemt")))[0])

    def test_learned_positions_when_the_buffer_is_not_the_sinusoid(self):
        tmp = TempDir(self)
        cfg = make_config()
        sd = random_state_dict(cfg)
        rng = np.random.default_rng(3)
        sd["decoder.positional_encoding"] = sd["decoder.positional_encoding"] + \
            rng.normal(0, 0.05, sd["decoder.positional_encoding"].shape).astype(np.float32)
        write_checkpoint(tmp("ckpt"), cfg=cfg, sd=sd)
        out = convert(tmp("ckpt"), tmp("m.edgemt"), "--dtype", "float32")
        self.assertIn("stored as Learned tables", out)
        m = read(tmp("m.edgemt"))
        self.assertEqual(m.config.position_encoding, ir.POS_LEARNED)
        np.testing.assert_array_equal(m.decoder.positions, sd["decoder.positional_encoding"][0])
        np.testing.assert_array_equal(m.encoder.positions, sd["encoder.positional_encoding"][0])
        ckpt_model = load_checkpoint(tmp("ckpt")).model
        self.assertEqual(run(ckpt_model)[0], run(m)[0])

    def test_declared_layout_is_checked(self):
        """A halves table under an interleaved config is not that sinusoid: Learned."""
        tmp = TempDir(self)
        cfg = make_config(position_layout="halves")
        sd = random_state_dict(cfg)
        cfg["position_layout"] = "interleaved"
        write_checkpoint(tmp("ckpt"), cfg=cfg, sd=sd)
        convert(tmp("ckpt"), tmp("m.edgemt"), "--dtype", "float32")
        self.assertEqual(read(tmp("m.edgemt")).config.position_encoding, ir.POS_LEARNED)


if __name__ == "__main__":
    unittest.main()
