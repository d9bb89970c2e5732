"""The int8 simulation computes docs/int8.md (format 2.0) exactly: the
per-row input quantization parameters against hand-computed cases, an int8
Linear against a separate, plain numpy implementation of the document's
formulas (bit for bit) and against a float64 evaluation (within float32
rounding), and the greedy choice on the float logits."""
import unittest

import numpy as np
import torch

import helpers  # noqa: F401  (sys.path)
from edgemt_convert.format import model_ir as ir
from edgemt_convert.quantize.int8 import Int8Linear, qd8_params, quantize_input, quantize_rows, weight_error

F32 = np.float32
U = 2.0 ** -24          # float32 unit roundoff


def doc_weights(w):
    """docs/int8.md, Weights, with Python floats for the max and float32 division."""
    s = np.array([max(abs(float(v)) for v in row) for row in w], dtype=F32) / F32(127)
    s[s == 0] = 1
    q = np.clip(np.round(w / s[:, None]), -127, 127).astype(np.int64)
    return q, s


def doc_row_params(row):
    """docs/int8.md, "A Linear with an int8 weight", one row, with numpy
    float32 scalars (every operation rounds to float32): (z, si, m)."""
    lo = min(F32(0), F32(np.min(row)))
    hi = max(F32(0), F32(np.max(row)))
    inv = F32(1) if hi == lo else F32(255) / F32(hi - lo)
    zf = F32(-128) - lo * inv if (F32(-128) + lo * inv) + (F32(127) + hi * inv) > 0 else F32(127) - hi * inv
    z = int(np.rint(min(max(zf, F32(-128)), F32(127))))          # np.rint: half to even
    si = F32(1) / inv
    m = F32(1) / si
    return z, si, m


def doc_quantize(x):
    """xq (int64 [n, in]), z (int64 [n]), si (float32 [n]) per docs/int8.md."""
    xq, zs, sis = [], [], []
    for row in np.asarray(x, F32):
        z, si, m = doc_row_params(row)
        xq.append(np.clip(np.rint(row * m), -128 - z, 127 - z).astype(np.int64) + z)
        zs.append(z)
        sis.append(si)
    return np.array(xq), np.array(zs, np.int64), np.array(sis, F32)


def doc_linear(x, q, s, b, fused_relu=False):
    """docs/int8.md: (y float32 [n, out], acc int64 [n, out], si [n]),
    y = (float(acc) * si) * s + b, each operation rounded to float32."""
    xq, z, si = doc_quantize(x)
    acc = (xq - z[:, None]) @ q.astype(np.int64).T                  # exact int64
    y = (acc.astype(F32) * si[:, None]).astype(F32) * s.astype(F32)
    y = (y + (np.zeros_like(s) if b is None else b.astype(F32))).astype(F32)
    if fused_relu:
        y = np.maximum(y, F32(0))
    return y, acc, si


class WeightQuantization(unittest.TestCase):
    def test_matches_the_document(self):
        rng = np.random.default_rng(0)
        w = (rng.standard_normal((20, 33)) * 0.1).astype(F32)
        w[3] = 0.0                                        # a zero row gets scale 1
        q, s = quantize_rows(w)
        q2, s2 = doc_weights(w)
        np.testing.assert_array_equal(s, s2)
        np.testing.assert_array_equal(q.astype(np.int64), q2)
        self.assertEqual(s[3], 1.0)
        self.assertEqual(q.dtype, np.int8)
        self.assertEqual(int(np.abs(q).max()), 127)

    def test_weight_error(self):
        w = np.array([[1.0, 0.5, -0.25], [0.0, 0.0, 0.0], [127.0, 1.0, 0.2]], F32)
        q, s = quantize_rows(w)
        err, worst = weight_error(w, ir.Tensor(q, s))
        d = q.astype(np.float64) * s[:, None] - w
        self.assertAlmostEqual(err, np.linalg.norm(d) / np.linalg.norm(w), delta=1e-6 * err)
        # worst row: the first (0.5 * 127 = 63.5 and -0.25 * 127 = -31.75 round by half a step each);
        # the zero row is exact
        self.assertAlmostEqual(worst, np.linalg.norm(d[0]) / np.linalg.norm(w[0]), delta=1e-6 * worst)
        self.assertGreater(worst, np.linalg.norm(d[2]) / np.linalg.norm(w[2]))


class RowQuantizationParameters(unittest.TestCase):
    """qd8 parameters (XNNPACK's xnn_f32_qd8_asymmetric_quantization_params)
    and quantized values, computed by hand from docs/int8.md."""

    # row, z, si, m (float32, as hex), xq
    CASES = [
        # all zero: lo = hi = 0, inv = 1; zf: -128 + 127 = -1 <= 0 -> 127 - 0
        ("zero", [0.0, 0.0, 0.0], 127, "0x1p+0", "0x1p+0", [127, 127, 127]),
        # all positive: lo 0, hi 2, inv = 127.5; zf = -128 - 0; si = f32(1 / 127.5),
        # m = f32(1 / si) = 127.49999237 (not 127.5): 1.0 * m rounds to 127, not 128
        ("positive", [0.5, 1.0, 2.0, 0.25], -128, "0x1.010102p-7", "0x1.fdfffep+6", [-64, -1, 127, -96]),
        # all negative: lo -2, hi 0, inv 127.5; (-128 - 255) + (127 + 0) < 0 -> zf = 127 - 0
        ("negative", [-2.0, -1.0], 127, "0x1.010102p-7", "0x1.fdfffep+6", [-128, 0]),
        # mixed: lo -1, hi 3, inv 63.75; (-128 - 63.75) + (127 + 191.25) > 0 -> zf = -128 + 63.75 = -64.25
        ("mixed", [-1.0, 3.0, 0.5], -64, "0x1.010102p-6", "0x1.fdfffep+5", [-128, 127, -32]),
        # mixed, mostly negative: lo -3, hi 1, inv 63.75; (-319.25) + (190.75) < 0 -> zf = 127 - 63.75 = 63.25
        ("mixed-negative", [-3.0, 1.0], 63, "0x1.010102p-6", "0x1.fdfffep+5", [-128, 127]),
        # zero point rounds half to even: inv = 255 / 255 = 1, zf = -128 + 63.5 = -64.5 -> -64 (not -65);
        # values too: -63.5 -> -64, 0.5 -> 0, 1.5 -> 2, 191.5 -> 192 clamped to 127 - z = 191
        ("zero-point-half", [-63.5, 0.5, 1.5, 191.5], -64, "0x1p+0", "0x1p+0", [-128, -64, -62, 127]),
        # zf = -128 + 64.5 = -63.5 -> -64 (not -63); 190.5 -> 190
        ("zero-point-half-2", [-64.5, 190.5], -64, "0x1p+0", "0x1p+0", [-128, 126]),
    ]

    def test_hand_computed_cases(self):
        for name, row, z, si, m, xq in self.CASES:
            with self.subTest(name):
                x = torch.tensor([row], dtype=torch.float32)
                tz, tsi, tm = qd8_params(x)
                self.assertEqual(float(tz[0]), z)
                self.assertEqual(float(tsi[0]), float.fromhex(si))
                self.assertEqual(float(tm[0]), float.fromhex(m))
                xd, qz, qsi = quantize_input(x)
                self.assertEqual((xd[0] + qz[0]).tolist(), [float(v) for v in xq])
                # the plain implementation used by the Linear test agrees
                self.assertEqual(doc_row_params(np.array(row, F32)), (z, F32(float.fromhex(si)), F32(float.fromhex(m))))

    def test_multiplier_is_the_reciprocal_of_the_scale(self):
        """m = 1 / si, not inv: for the "positive" row they differ by an ulp and
        x = 1.0 lands on the other side of a rounding boundary."""
        x = torch.tensor([[0.5, 1.0, 2.0, 0.25]])
        _, si, m = qd8_params(x)
        inv = torch.tensor(127.5)
        self.assertNotEqual(float(m[0]), float(inv))
        self.assertEqual(float(torch.round(1.0 * inv)), 128.0)
        self.assertEqual(float(quantize_input(x)[0][0, 1]), 127.0)      # xq - z with m

    def test_random_rows_against_the_plain_implementation(self):
        rng = np.random.default_rng(3)
        x = (rng.standard_normal((300, 40)) * rng.uniform(0.001, 50, (300, 1))).astype(F32)
        x[:50] = np.abs(x[:50])                  # all positive
        x[50:100] = -np.abs(x[50:100])           # all negative
        x[100:110] += 30                         # mostly one-sided
        x[110, :] = 0
        x[111, :] = 1e-30                        # tiny
        xq, z, si = doc_quantize(x)
        xd, tz, tsi = quantize_input(torch.from_numpy(x))
        np.testing.assert_array_equal(tz.numpy().astype(np.int64), z)
        np.testing.assert_array_equal(tsi.numpy(), si)
        np.testing.assert_array_equal(xd.numpy().astype(np.int64), xq - z[:, None])
        self.assertTrue(np.all((xq >= -128) & (xq <= 127)))
        # every value is within half a step of its quantized value (the range covers the row)
        err = np.abs((xq - z[:, None]) * si[:, None].astype(np.float64) - x)
        self.assertTrue(np.all(err <= 0.5001 * si[:, None]), float((err / si[:, None]).max()))


class Int8LinearAgainstTheDocument(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(0)

    def check(self, inp, out, fused=False, bias=True, rows=37):
        rng = self.rng
        w = (rng.standard_normal((out, inp)) * 0.1).astype(F32)
        w[3] = 0.0
        b = (rng.standard_normal(out) * 0.3).astype(F32) if bias else None
        x = (rng.standard_normal((rows, inp)) * rng.uniform(0.01, 20, (rows, 1))).astype(F32)
        x[0, :5] = [100.0, -100.0, 0.0, 1e-9, -3.0]
        x[1] = np.abs(x[1])
        x[2] = 0.0
        q, s = quantize_rows(w)
        op = Int8Linear(ir.Tensor(q, s), b, fused_relu=fused)
        y = op(torch.from_numpy(x)).numpy()
        y_doc, acc, si = doc_linear(x, q, s, b, fused)
        # 1. bit for bit what the document's float32 formulas give
        np.testing.assert_array_equal(y, y_doc)
        # 2. within float32 rounding of the same formula in float64 (from the exact integer acc);
        #    also holds for a kernel that fuses the last multiply-add (FMA)
        prod = acc.astype(np.float64) * np.float64(1) * si[:, None].astype(np.float64) * s.astype(np.float64)
        y64 = prod + (0.0 if b is None else b.astype(np.float64))
        if fused:
            y64 = np.maximum(y64, 0.0)
        bound = 3.01 * U * np.abs(prod) + U * np.abs(y64) + 1e-45
        self.assertTrue(np.all(np.abs(y - y64) <= bound), float(np.max(np.abs(y - y64) / bound)))
        t = (acc.astype(F32) * si[:, None]).astype(F32).astype(np.float64)
        y_fma = (t * s.astype(np.float64) + (0.0 if b is None else b.astype(np.float64))).astype(F32)
        if fused:
            y_fma = np.maximum(y_fma, F32(0))
        self.assertTrue(np.all(np.abs(y_fma - y64) <= bound))
        # fused and unfused differ by the product's rounding: at most half an ulp of
        # s * (float(acc) * si) plus an ulp of y (more than an ulp of y when b cancels it)
        p = np.abs((acc.astype(F32) * si[:, None]).astype(F32) * s)
        self.assertTrue(np.all(np.abs(y_fma - y) <= 0.5 * np.spacing(p) + np.spacing(np.abs(y))))
        self.assertGreater(np.abs(acc).max(), 0)
        # 3. close to the float Linear: the int8 error is that of 256 levels per row
        y_float = x.astype(np.float64) @ w.T.astype(np.float64) + (0 if b is None else b)
        if fused:
            y_float = np.maximum(y_float, 0)
        rel = np.linalg.norm(y - y_float) / np.linalg.norm(y_float)
        self.assertLess(rel, 0.03)
        self.assertGreater(rel, 0.0)
        if fused:
            self.assertTrue(np.all(y >= 0))
            self.assertTrue(np.any(y == 0))
        return y

    def test_linear(self):
        self.check(64, 48)

    def test_no_bias(self):
        self.check(64, 48, bias=False)

    def test_fused_relu(self):
        self.check(64, 48, fused=True)

    def test_long_rows_use_exact_chunked_sums(self):
        """in_features 2048: several exact chunks, summed in float64."""
        self.check(2048, 16)

    def test_accumulator_beyond_float32_precision(self):
        """float(acc) rounds to nearest even above 2^24: constant rows give
        xq - z = 255 everywhere, so acc = 255 * sum(q[r])."""
        n = 2048
        q = np.full((3, n), 127, np.int8)
        q[1, 0] = 126                       # acc = 66,324,480 - 255 = 66,324,225 -> 66,324,224 (ulp 4)
        q[2, :2] = 126                      # acc = 66,323,970: a tie -> 66,323,968 (even)
        s = np.array([0.01, 0.02, 0.03], F32)
        x = np.full((1, n), 0.7, F32)
        y = Int8Linear(ir.Tensor(q, s), None)(torch.from_numpy(x)).numpy()
        y_doc, acc, si = doc_linear(x, q, s, None)
        self.assertEqual(acc[0].tolist(), [66324480, 66324225, 66323970])
        self.assertEqual([int(F32(a)) for a in acc[0]], [66324480, 66324224, 66323968])
        np.testing.assert_array_equal(y, y_doc)

    def test_exact_integer_gemm(self):
        """linalg.ExactIntMatmul against int64: sums far beyond 2^24 with
        arbitrary low bits, which a plain float32 GEMM gets wrong."""
        from edgemt_convert.quantize.linalg import ExactIntMatmul
        rng = np.random.default_rng(4)
        for k in (300, 512, 2048, 3000):
            xd = rng.integers(150, 256, (40, k)) * rng.choice([-1, 1], (40, 1))
            q = rng.integers(90, 128, (24, k)).astype(np.int8)
            acc = xd @ q.astype(np.int64).T
            got = ExactIntMatmul(torch.from_numpy(q.astype(F32)))(torch.from_numpy(xd.astype(F32))).numpy()
            np.testing.assert_array_equal(got, acc.astype(F32), err_msg="k=%d" % k)
            if k > 1000:
                self.assertGreater(np.abs(acc).min(), 2 ** 24)

    def test_rows_are_independent(self):
        """Each row has its own range: a row's result does not depend on the
        other rows of the batch (unlike a per-tensor range)."""
        rng = np.random.default_rng(9)
        q, s = quantize_rows((rng.standard_normal((24, 32)) * 0.1).astype(F32))
        op = Int8Linear(ir.Tensor(q, s), None)
        x = torch.from_numpy(rng.standard_normal((5, 32)).astype(F32))
        alone = op(x[1:2])
        x[3] *= 1000.0
        together = op(x)
        self.assertTrue(torch.equal(together[1:2], alone))
        self.assertTrue(torch.equal(op(x.reshape(5, 1, 32))[:, 0], together))     # [B, T, in] too


class GreedyChoice(unittest.TestCase):
    """ReferenceModel.choose with an int8 projection: the argmax of its float
    output, the lowest id on ties, eos excluded under min_length."""

    def setUp(self):
        from helpers import make_config, random_state_dict
        from edgemt_convert.sources.seed.build import build_float_model
        from edgemt_convert.sources.seed.config import parse_config
        from edgemt_convert.quantize.int8 import quantize_tensor
        from edgemt_convert.reference.model import ReferenceModel
        cfg = make_config()
        model, _ = build_float_model(parse_config(cfg), random_state_dict(cfg))
        proj = model.decoder.output_projection
        proj.weight = quantize_tensor(proj.weight)
        self.model = model
        self.ref = ReferenceModel(model)
        self.op = self.ref.ops["decoder.output_projection"]
        self.assertIsInstance(self.op, Int8Linear)
        self.h = torch.from_numpy(np.random.default_rng(5).standard_normal((200, 64)).astype(F32))

    def brute_force(self, logits, forbid_eos=None):
        out = []
        for r, row in enumerate(logits.tolist()):
            cands = [i for i in range(len(row)) if not (forbid_eos is not None and forbid_eos[r] and i == 3)]
            out.append(max(cands, key=lambda i: (row[i], -i)))
        return out

    def test_argmax_of_the_int8_logits(self):
        ids, rows = self.ref.choose(self.h, want_rows=True)
        w = self.model.decoder.output_projection
        y_doc, _, _ = doc_linear(self.h.numpy(), w.weight.data, w.weight.scales, w.bias)
        np.testing.assert_array_equal(rows.numpy(), y_doc)
        self.assertEqual(ids.tolist(), self.brute_force(y_doc))

    def test_min_length_excludes_eos(self):
        forbid = torch.ones(200, dtype=torch.bool)
        forbid[::2] = False
        self.model.decoder.output_projection.bias[3] = 100.0            # eos wins wherever allowed
        from edgemt_convert.reference.model import ReferenceModel
        ref = ReferenceModel(self.model)
        ids, rows = ref.choose(self.h, forbid, want_rows=True)
        self.assertEqual(ids.tolist(), self.brute_force(rows, forbid.tolist()))
        self.assertNotIn(3, ids[1::2].tolist())
        self.assertEqual(set(ids[::2].tolist()), {3})

    def test_ties_go_to_the_lowest_id(self):
        proj = self.model.decoder.output_projection
        w = proj.weight
        for r in (10, 20):
            w.data[r] = w.data[7]
            w.scales[r] = w.scales[7]
            proj.bias[r] = proj.bias[7] = 50.0                           # 7, 10 and 20 tie at the top
        from edgemt_convert.reference.model import ReferenceModel
        ref = ReferenceModel(self.model)
        ids, rows = ref.choose(self.h[:5], want_rows=True)
        self.assertTrue(torch.equal(rows[:, 7], rows[:, 20]))
        self.assertEqual(ids.tolist(), [7] * 5)


if __name__ == "__main__":
    unittest.main()
