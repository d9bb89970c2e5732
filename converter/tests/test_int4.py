"""int4 files (docs/int4.md, formats 2.1 and 2.6): bfloat16 rounding, the
nibble layout, the block quantizer's scale search, the int4 simulation
against the document's formula in float64, and `edgemt-convert --dtype int4`
end to end (the file, its int4 token embeddings or --int8-embeddings, its
summary, the layers kept in int8 and why, the round trip through the writer
and the reader)."""
import os
import unittest

import numpy as np
import torch

from helpers import TempDir, convert, convert_error, write_checkpoint

from edgemt_convert.format import model_ir as ir
from edgemt_convert.format.int4_encoding import from_bfloat16, pack_nibbles, to_bfloat16, unpack_nibbles
from edgemt_convert.format.reader import parse, read
from edgemt_convert.format.writer import serialize
from edgemt_convert.quantize import int4_plan
from edgemt_convert.quantize.int4 import SCALE_FRACTIONS, Int4Linear, quantize_blocks
from edgemt_convert.quantize.int8 import Int8Linear, quantize_input, quantize_rows
from edgemt_convert.reference.model import ReferenceModel
from edgemt_convert.reference.record import record_linear_inputs

F32 = np.float32


class Bfloat16(unittest.TestCase):
    def test_round_to_nearest_even(self):
        cases = {
            1.0: 0x3F80,
            # 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to even (1.0)
            1.0 + 2.0 ** -8: 0x3F80,
            # 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: to even (1 + 2^-6)
            1.0 + 3 * 2.0 ** -8: 0x3F82,
            1.0 + 2.0 ** -8 + 2.0 ** -20: 0x3F81,     # above halfway: up
            -2.0: 0xC000,
            0.001: 0x3A83,
        }
        for value, bits in cases.items():
            self.assertEqual(int(to_bfloat16(np.array([value], F32))[0]), bits, value)

    def test_round_trip_is_exact_for_bfloat16_values(self):
        bits = np.arange(0x0080, 0x7F80, 7, dtype=np.uint16)         # positive normal numbers
        np.testing.assert_array_equal(to_bfloat16(from_bfloat16(bits)), bits)


class Nibbles(unittest.TestCase):
    def test_lower_nibble_first_holding_q_plus_8(self):
        q = np.array([[-8, 7, 0, -1]], dtype=np.int8)
        np.testing.assert_array_equal(pack_nibbles(q), np.array([0x0 | 0xF << 4, 0x8 | 0x7 << 4], np.uint8))

    def test_round_trip(self):
        q = np.random.default_rng(1).integers(-8, 8, size=(6, 64)).astype(np.int8)
        np.testing.assert_array_equal(unpack_nibbles(pack_nibbles(q), q.shape), q)


class BlockQuantizer(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(3)
        self.w = (rng.standard_normal((24, 256)) * rng.uniform(0.01, 2.0, size=(24, 1))).astype(F32)
        self.w[5, 64:128] = 0.0                       # one block of zeros

    def test_codes_scales_and_zero_blocks(self):
        q, s = quantize_blocks(self.w, 64)
        self.assertEqual((q.shape, s.shape), ((24, 256), (24, 4)))
        self.assertTrue(q.min() >= -8 and q.max() <= 7)
        np.testing.assert_array_equal(from_bfloat16(to_bfloat16(s)), s)   # every scale is a bfloat16
        self.assertTrue(np.all(s > 0) and np.all(np.isfinite(s)))
        self.assertEqual(s[5, 1], 1.0)
        self.assertTrue(np.all(q[5, 64:128] == 0))

    @staticmethod
    def block_errors(w, q, s, block):
        """Each block's squared error sum (w - q s)^2, in float64."""
        rows = w.shape[0]
        wb = w.reshape(rows, -1, block).astype(np.float64)
        return ((wb - q.reshape(rows, -1, block) * s[..., None].astype(np.float64)) ** 2).sum(axis=2)

    @staticmethod
    def max_over_7(w, block):
        """The plain scheme: s = bfloat16(max|w| / 7), q rounded to nearest and clamped."""
        rows = w.shape[0]
        wb = w.reshape(rows, -1, block)
        s = from_bfloat16(to_bfloat16(np.abs(wb).max(axis=2) / F32(7)))
        s[s == 0] = 1
        return np.clip(np.round(wb / s[..., None]), -8, 7).reshape(w.shape), s

    def test_no_worse_than_max_over_7_per_block(self):
        # The search includes max|w| / 7 (rounded to bfloat16), so no block's error exceeds it.
        for block in (32, 64, 128, 256):
            q, s = quantize_blocks(self.w, block)
            err = self.block_errors(self.w, q, s, block)
            err7 = self.block_errors(self.w, *self.max_over_7(self.w, block), block)
            self.assertTrue(np.all(err <= err7), block)

    def test_search_on_random_blocks(self):
        # 6,000 blocks of 32 from six distributions, scales spread over 2^-20..2^10:
        # never a larger error than max|w| / 7, a fifth smaller on average (measured
        # 0.70-0.83 of it per distribution), and the codes are those of the
        # scales written (bfloat16).
        rng = np.random.default_rng(29)
        n = 1000
        parts = [rng.standard_normal((n, 32)), rng.uniform(-1, 1, (n, 32)), rng.laplace(size=(n, 32)),
                 rng.standard_t(2, size=(n, 32)),
                 rng.standard_normal((n, 32)) * (rng.uniform(size=(n, 32)) < 0.1),         # mostly zeros
                 -np.abs(rng.standard_normal((n, 32))) * 3 + rng.uniform(size=(n, 32))]    # negative extremes
        w = (np.concatenate(parts) * np.exp2(rng.integers(-20, 11, size=(6 * n, 1)))).astype(F32)
        q, s = quantize_blocks(w, 32)
        self.assertTrue(q.min() >= -8 and q.max() <= 7)
        np.testing.assert_array_equal(from_bfloat16(to_bfloat16(s)), s)
        err = self.block_errors(w, q, s, 32)
        err7 = self.block_errors(w, *self.max_over_7(w, 32), 32)
        self.assertTrue(np.all(err <= err7))
        self.assertLess(np.mean(err[err7 > 0] / err7[err7 > 0]), 0.85)
        # q is s's round-to-nearest: the codes follow from the scales written
        np.testing.assert_array_equal(q, np.clip(np.round(w / np.repeat(s, 32, axis=1)), -8, 7))

    def test_no_worse_than_any_grid_scale(self):
        # Every scale of the grid was tried: none gives a block a smaller error.
        q, s = quantize_blocks(self.w, 64)
        err = self.block_errors(self.w, q, s, 64)
        amax = np.abs(self.w.reshape(24, -1, 64)).max(axis=2)
        for f in SCALE_FRACTIONS:
            sf = from_bfloat16(to_bfloat16(amax * F32(f / 7.0)))
            sf[sf == 0] = 1
            qf = np.clip(np.round(self.w / np.repeat(sf, 64, axis=1)), -8, 7)
            self.assertTrue(np.all(err <= self.block_errors(self.w, qf, sf, 64)), f)

    def test_exact_blocks_are_found_and_a_negative_extreme_takes_minus_8(self):
        # w = q * s with a bfloat16 s and codes from -8 to 7: found exactly (error 0).
        rng = np.random.default_rng(5)
        q0 = rng.integers(-8, 8, size=(16, 64)).astype(np.int8)
        q0[:, 0] = -8                                    # the largest magnitude is negative
        s0 = from_bfloat16(to_bfloat16(rng.uniform(0.01, 3.0, size=(16, 1)).astype(F32)))
        q, s = quantize_blocks(q0 * s0, 64)
        np.testing.assert_array_equal(q, q0)
        np.testing.assert_array_equal(s, s0)

    def test_deterministic(self):
        a = quantize_blocks(self.w, 32)
        b = quantize_blocks(self.w.copy(), 32)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])

    def test_block_for_picks_the_largest_dividing_multiple_of_32(self):
        self.assertEqual(int4_plan.block_for(256, 128), 128)
        self.assertEqual(int4_plan.block_for(96, 128), 96)
        self.assertEqual(int4_plan.block_for(160, 128), 32)
        self.assertEqual(int4_plan.block_for(48, 128), 0)


class Int4LinearAgainstTheDocument(unittest.TestCase):
    def check(self, rows, cols, out, block, relu=False, bias=True, seed=0):
        rng = np.random.default_rng(seed)
        w = rng.standard_normal((out, cols)).astype(F32) * F32(0.05)
        q, s = quantize_blocks(w, block)
        t = ir.Tensor(q, s, block_size=block)
        b = rng.standard_normal(out).astype(F32) if bias else None
        x = torch.from_numpy((rng.standard_normal((rows, cols)) * 2).astype(F32))
        y = Int4Linear(t, b, fused_relu=relu)(x).numpy().astype(np.float64)
        # y = si * sum_b s_b * sum_c (xq - z) q + bias, in float64
        xd, z, si = quantize_input(x)
        xd = xd.numpy().astype(np.float64)
        wq = t.dequantize().astype(np.float64)
        expected = (xd @ wq.T) * si.numpy().astype(np.float64)[:, None]
        if b is not None:
            expected += b
        if relu:
            expected = np.maximum(expected, 0)
        # float32 rounding: a few units of the magnitudes summed (the zero-point term included)
        xq = xd + z.numpy()[:, None]
        magnitude = (np.abs(xq) @ np.abs(wq).T + np.abs(z.numpy())[:, None] * np.abs(wq).sum(axis=1)) * \
            si.numpy().astype(np.float64)[:, None] + (np.abs(b) if b is not None else 0)
        bound = (cols // block + 4) * 2.0 ** -24 * magnitude
        self.assertTrue(np.all(np.abs(y - expected) <= bound), np.max(np.abs(y - expected) / bound))
        return t, b, x, y

    def test_blocks(self):
        for block in (32, 64, 128):
            self.check(rows=5, cols=256, out=40, block=block, seed=block)

    def test_fused_relu_and_no_bias(self):
        _, _, _, y = self.check(rows=3, cols=128, out=16, block=32, relu=True, bias=False)
        self.assertTrue(np.all(y >= 0) and np.any(y == 0))

    def test_close_to_the_int8_result_on_the_same_weights(self):
        # A sanity check of scale: int4 values are the int8 Linear's up to 4-bit rounding.
        t, b, x, y = self.check(rows=4, cols=128, out=32, block=32)
        w = ir.Tensor(*quantize_rows(t.dequantize()))
        y8 = Int8Linear(w, b)(x).numpy()
        self.assertLess(np.linalg.norm(y - y8) / np.linalg.norm(y8), 0.02)


class ConvertInt4(unittest.TestCase):
    def test_file_summary_and_reference(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"))
        out = convert(tmp("ckpt"), tmp("m4.edgemt"), "--dtype", "int4")
        convert(tmp("ckpt"), tmp("m8.edgemt"))
        m = read(tmp("m4.edgemt"))
        self.assertEqual((m.format_major, m.format_minor, m.metadata.dtype), (2, ir.FORMAT_MINOR_INT4_EMBEDDINGS, "int4"))
        self.assertEqual(ir.FORMAT_MINOR_INT4_EMBEDDINGS, 6)
        kinds = {name: lin.weight.block_size for name, lin in m.named_linears()}
        int4 = [n for n, b in kinds.items() if b]
        self.assertGreater(len(int4), len(kinds) // 2)
        # d_model 64 and d_ff 128: no multiple of 32 up to the default 256 but 64 and 128 divide them
        for name, block in kinds.items():
            self.assertIn(block, (0, 64, 128), name)
        self.assertIn("int4 (format 2.6, docs/int4.md)", out)
        self.assertIn("Linears (block 64/128) and 2 of 2 token embeddings (block 32) in 4 bits", out)
        self.assertIn("kept int8:", out)
        self.assertEqual(m.metadata.quantization_summary, out.split("\ntime:")[0])
        self.assertLess(os.path.getsize(tmp("m4.edgemt")), os.path.getsize(tmp("m8.edgemt")))
        ref = ReferenceModel(m)
        for name in int4:
            self.assertIsInstance(ref.ops[name], Int4Linear, name)
        # the token embeddings: int4 at their own block (32: 2 scales per row of 64),
        # looked up as their exact values q * s
        for t, table in ((m.encoder.token_embedding, ref.src_embedding), (m.decoder.token_embedding, ref.tgt_embedding)):
            self.assertTrue(t.is_int4)
            self.assertEqual((t.block_size, t.scales.shape), (32, (t.shape[0], 2)))
            np.testing.assert_array_equal(table.numpy(), t.data.astype(F32) * np.repeat(t.scales, 32, axis=1))

    def test_int8_embeddings_option(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"))
        out = convert(tmp("ckpt"), tmp("m.edgemt"), "--dtype", "int4", "--int8-embeddings")
        convert(tmp("ckpt"), tmp("m4.edgemt"), "--dtype", "int4")
        m, m4 = read(tmp("m.edgemt")), read(tmp("m4.edgemt"))
        self.assertEqual((m.format_minor, m.metadata.dtype), (ir.FORMAT_MINOR_INT4, "int4"))
        self.assertTrue(m.encoder.token_embedding.is_int8 and m.decoder.token_embedding.is_int8)
        self.assertFalse(m.has_int4_embedding())
        self.assertIn("encoder.token_embedding (--int8-embeddings)", out)
        self.assertIn("and 0 of 2 token embeddings (block -) in 4 bits", out)
        # the Linears are the same either way
        for (name, a), (_, b) in zip(m.named_linears(), m4.named_linears()):
            np.testing.assert_array_equal(a.weight.data, b.weight.data, err_msg=name)
            np.testing.assert_array_equal(a.weight.scales, b.weight.scales, err_msg=name)
        self.assertGreater(os.path.getsize(tmp("m.edgemt")), os.path.getsize(tmp("m4.edgemt")))
        for argv in (["--int8-embeddings"], ["--dtype", "float32", "--int8-embeddings"]):
            self.assertIn("--int8-embeddings applies to int4 files only",
                          convert_error(self, tmp("ckpt"), tmp("bad.edgemt"), *argv))

    def test_embedding_block_size_option(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"))
        convert(tmp("ckpt"), tmp("m.edgemt"), "--dtype", "int4", "--embedding-block-size", "64")
        m = read(tmp("m.edgemt"))
        self.assertEqual([t.block_size for _, t in m.token_embeddings()], [64, 64])
        for argv in (["--dtype", "int4", "--embedding-block-size", "48"], ["--embedding-block-size", "64"],
                     ["--dtype", "int4", "--int8-embeddings", "--embedding-block-size", "64"]):
            self.assertIn("--embedding-block-size applies to int4 files with int4 embeddings",
                          convert_error(self, tmp("ckpt"), tmp("bad.edgemt"), *argv))

    def test_tied_output_projection_runs_on_the_int4_embedding(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"), tie_output=True)
        out = convert(tmp("ckpt"), tmp("m.edgemt"), "--dtype", "int4")
        m = read(tmp("m.edgemt"))
        self.assertTrue(m.config.tied_output and m.decoder.token_embedding.is_int4)
        # the projection's block is the Linears' (block_for(64, 256) = 64), the encoder embedding's its own
        self.assertEqual((m.encoder.token_embedding.block_size, m.decoder.token_embedding.block_size), (32, 64))
        self.assertIn("tied output projection (decoder.token_embedding): int4 output error", out)
        op = ReferenceModel(m).ops["decoder.output_projection"]
        self.assertIsInstance(op, Int4Linear)
        np.testing.assert_array_equal(op.s.numpy(), m.decoder.token_embedding.scales)
        # over the limit, the tied projection keeps the decoder embedding int8 (the encoder's stays int4)
        from edgemt_convert.sources import load_checkpoint
        model = load_checkpoint(tmp("ckpt")).model
        plan = int4_plan.plan_int4(model, 256, record_linear_inputs, limit=0.001)
        self.assertEqual([(e.name, e.int4) for e in plan.embeddings],
                         [("encoder.token_embedding", True), ("decoder.token_embedding", False)])
        self.assertIn("tied output projection", plan.embeddings[1].reason)
        self.assertNotIn("decoder.token_embedding", plan.int4)

    def test_deterministic(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"))
        # the summary inside names the output file: the same name in two folders
        for folder in ("a", "b"):
            os.makedirs(tmp(folder))
            convert(tmp("ckpt"), os.path.join(tmp(folder), "m.edgemt"), "--dtype", "int4")
        with open(os.path.join(tmp("a"), "m.edgemt"), "rb") as a, open(os.path.join(tmp("b"), "m.edgemt"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_round_trip_through_writer_and_reader(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"))
        convert(tmp("ckpt"), tmp("m.edgemt"), "--dtype", "int4")
        m = read(tmp("m.edgemt"))
        again = parse(serialize(m))
        self.assertEqual(again.format_minor, 6)
        for (name, a), (_, b) in zip(m.token_embeddings() + [(n, l.weight) for n, l in m.named_linears()],
                                     again.token_embeddings() + [(n, l.weight) for n, l in again.named_linears()]):
            self.assertEqual((a.block_size, a.data.dtype), (b.block_size, b.data.dtype), name)
            np.testing.assert_array_equal(a.data, b.data, err_msg=name)
            np.testing.assert_array_equal(a.scales, b.scales, err_msg=name)
        # an int4 embedding makes the file 2.6 whatever minor version the model states
        from edgemt_convert.sources import load_checkpoint
        f32 = load_checkpoint(tmp("ckpt")).model
        self.assertEqual(f32.format_minor, 0)
        f32.decoder.token_embedding = ir.Tensor(*quantize_blocks(f32.decoder.token_embedding.data, 32), block_size=32)
        back = parse(serialize(f32))
        self.assertEqual(back.format_minor, 6)
        self.assertTrue(back.decoder.token_embedding.is_int4 and back.encoder.token_embedding.data.dtype == F32)
        np.testing.assert_array_equal(back.decoder.token_embedding.data, f32.decoder.token_embedding.data)
        np.testing.assert_array_equal(back.decoder.token_embedding.scales, f32.decoder.token_embedding.scales)

    def test_layers_over_the_limit_stay_int8_with_their_fused_group(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"))
        from edgemt_convert.sources import load_checkpoint
        model = load_checkpoint(tmp("ckpt")).model
        plan = int4_plan.plan_int4(model, 128, record_linear_inputs)
        errors = sorted(m.int4_error for m in plan.layers)
        # a limit between two measured errors: the layers above it stay int8, and their groups
        limit = (errors[-1] + errors[-2]) / 2
        plan = int4_plan.plan_int4(model, 128, record_linear_inputs, limit=limit)
        self.assertEqual(plan.limit, limit)
        worst = max(plan.layers, key=lambda m: m.int4_error)
        group = next(g for g in int4_plan.fused_groups(model) if worst.name in g)
        kept = {m.name for m in plan.layers if m.kept_int8}
        self.assertEqual(kept, set(group))
        self.assertTrue(all(n not in plan.int4 for n in group))
        for m in plan.layers:
            self.assertLess(m.int8_error, m.int4_error, m.name)   # int8 is the more accurate, always

    def test_a_width_no_block_divides_stays_int8(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"), d_ff=80)          # 80: no multiple of 32 divides it
        out = convert(tmp("ckpt"), tmp("m.edgemt"), "--dtype", "int4")
        m = read(tmp("m.edgemt"))
        for name, lin in m.named_linears():
            if name.endswith("feed_forward.down"):
                self.assertTrue(lin.weight.is_int8, name)
                self.assertIn(name + " (no block size divides the input width)", out)
            elif name.endswith("feed_forward.up"):
                self.assertTrue(lin.weight.is_int4, name)

    def test_block_size_option(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"))
        convert(tmp("ckpt"), tmp("m.edgemt"), "--dtype", "int4", "--block-size", "32")
        m = read(tmp("m.edgemt"))
        self.assertEqual({lin.weight.block_size for _, lin in m.named_linears() if lin.weight.is_int4}, {32})
        for argv in (["--dtype", "int4", "--block-size", "48"], ["--block-size", "64"]):
            self.assertIn("--block-size applies to int4 files and must be a positive multiple of 32",
                          convert_error(self, tmp("ckpt"), tmp("bad.edgemt"), *argv))


if __name__ == "__main__":
    unittest.main()
