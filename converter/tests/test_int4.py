"""int4 files (docs/int4.md, format 2.1): bfloat16 rounding, the nibble
layout, the block quantizer, the int4 simulation against the document's
formula in float64, and `edgemt-convert --dtype int4` end to end (the file,
its summary, the layers kept in int8 and why)."""
import os
import unittest

import numpy as np
import torch

from helpers import TempDir, convert, convert_error, write_checkpoint

from edgemt_convert.format import model_ir as ir
from edgemt_convert.format.int4_encoding import from_bfloat16, pack_nibbles, to_bfloat16, unpack_nibbles
from edgemt_convert.format.reader import read
from edgemt_convert.quantize import int4_plan
from edgemt_convert.quantize.int4 import Int4Linear, quantize_blocks
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

    def test_no_worse_than_max_over_7_per_block(self):
        # The search includes max|w| / 7 (rounded to bfloat16), so no block's error exceeds it.
        for block in (32, 64, 128, 256):
            q, s = quantize_blocks(self.w, block)
            wb = self.w.reshape(24, -1, block).astype(np.float64)
            err = ((wb - q.reshape(24, -1, block) * s[..., None].astype(np.float64)) ** 2).sum(axis=2)
            amax = np.abs(wb).max(axis=2).astype(F32)
            s7 = from_bfloat16(to_bfloat16(amax / F32(7))).astype(np.float64)
            s7[s7 == 0] = 1
            q7 = np.clip(np.round(wb / s7[..., None]), -8, 7)
            err7 = ((wb - q7 * s7[..., None]) ** 2).sum(axis=2)
            self.assertTrue(np.all(err <= err7 * (1 + 1e-12)), block)

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
        self.assertEqual((m.format_major, m.format_minor, m.metadata.dtype), (2, 1, "int4"))
        self.assertTrue(m.encoder.token_embedding.is_int8 and m.decoder.token_embedding.is_int8)
        kinds = {name: lin.weight.block_size for name, lin in m.named_linears()}
        int4 = [n for n, b in kinds.items() if b]
        self.assertGreater(len(int4), len(kinds) // 2)
        # d_model 64 and d_ff 128: no multiple of 32 up to the default 256 but 64 and 128 divide them
        for name, block in kinds.items():
            self.assertIn(block, (0, 64, 128), name)
        self.assertIn("int4 (format 2.1, docs/int4.md)", out)
        self.assertIn("kept int8:", out)
        self.assertEqual(m.metadata.quantization_summary, out.split("\ntime:")[0])
        self.assertLess(os.path.getsize(tmp("m4.edgemt")), os.path.getsize(tmp("m8.edgemt")))
        ref = ReferenceModel(m)
        for name in int4:
            self.assertIsInstance(ref.ops[name], Int4Linear, name)

    def test_layers_over_the_limit_stay_int8_with_their_fused_group(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"))
        from edgemt_convert.sources import load_checkpoint
        model = load_checkpoint(tmp("ckpt")).model
        plan = int4_plan.plan_int4(model, 128, record_linear_inputs)
        errors = sorted(m.int4_error for m in plan.layers)
        # a limit between two measured errors: the layers above it stay int8, and their groups
        limit = (errors[-1] + errors[-2]) / 2
        old = int4_plan.OUTPUT_ERROR_LIMIT
        try:
            int4_plan.OUTPUT_ERROR_LIMIT = limit
            plan = int4_plan.plan_int4(model, 128, record_linear_inputs)
        finally:
            int4_plan.OUTPUT_ERROR_LIMIT = old
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
