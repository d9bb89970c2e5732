"""The int8 simulation computes docs/int8.md exactly: checked against a
separate, plain integer implementation of the document's formulas, and the
greedy choice with candidate rescoring against a brute-force one."""
import unittest

import numpy as np
import torch

import helpers  # noqa: F401  (sys.path)
from edgemt_convert import model_ir as ir
from edgemt_convert.quant import (Int8Linear, qparams_for_range, qparams_for_relu, quantize_rows,
                                  requant_multipliers, respect_requant_limit)

F32 = np.float32


def doc_weights(w):
    """docs/int8.md, Weights, with Python floats for the max and float32 division."""
    s = np.array([max(abs(float(v)) for v in row) for row in w], dtype=F32) / F32(127)
    s[s == 0] = 1
    q = np.clip(np.round(w / s[:, None]), -127, 127).astype(np.int64)
    return q, s


def doc_linear(x, q, s, b, si, zi, so, zo, lo=-128, hi=127):
    """docs/int8.md, "A Linear with an int8 weight", with int64 integers."""
    inv = F32(1) / F32(si)
    xq = np.clip(np.round((x.astype(F32) * inv).astype(F32)) + zi, -128, 127).astype(np.int64)
    bq = np.round(b.astype(np.float64) / (np.float64(si) * s.astype(np.float64))).astype(np.int64)
    acc = (xq - zi) @ q.T + bq                                   # exact int64
    m = ((F32(si) * s).astype(F32) / F32(so)).astype(F32)
    yq = np.clip(np.round((acc.astype(F32) * m).astype(F32)) + zo, lo, hi).astype(np.int64)
    return yq, (F32(so) * (yq - zo).astype(F32)).astype(F32)


class Int8Arithmetic(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(0)

    def weight(self, out, inp, scale=0.1):
        w = (self.rng.standard_normal((out, inp)) * scale).astype(F32)
        w[3] = 0.0                                   # a zero row gets scale 1
        return w

    def test_weight_quantization(self):
        w = self.weight(20, 33)
        q, s = quantize_rows(w)
        q2, s2 = doc_weights(w)
        np.testing.assert_array_equal(s, s2)
        np.testing.assert_array_equal(q.astype(np.int64), q2)
        self.assertEqual(s[3], 1.0)
        self.assertEqual(q.dtype, np.int8)
        self.assertEqual(int(np.abs(q).max()), 127)

    def check_linear(self, inp, out, fused=False, x_scale=2.0):
        w = self.weight(out, inp)
        b = (self.rng.standard_normal(out) * 0.3).astype(F32)
        x = (self.rng.standard_normal((37, inp)) * x_scale).astype(F32)
        x[0, :5] = [100.0, -100.0, 0.0, 1e-9, -3.0]          # clamped, exact zero, tiny
        q, s = quantize_rows(w)
        iq = qparams_for_range(-3.0, 4.0)
        y_float = x @ w.T + b
        oq = qparams_for_relu(float(y_float.max()) * 0.8) if fused else \
            qparams_for_range(float(y_float.min()) * 0.8, float(y_float.max()) * 0.8)
        op = Int8Linear(ir.Tensor(q, s), b, iq, oq, fused_relu=fused)
        levels = op.output_levels(torch.from_numpy(x)).numpy()
        values = op(torch.from_numpy(x)).numpy()
        lo = oq.zero_point if fused else -128
        yq, y = doc_linear(x, q.astype(np.int64), s, b, iq.scale, iq.zero_point, oq.scale, oq.zero_point, lo)
        np.testing.assert_array_equal(levels.astype(np.int64), yq)
        np.testing.assert_array_equal(values, y)
        if fused:
            self.assertTrue(np.all(values >= 0))
            self.assertTrue(np.any(levels == -128))
        # close to the float result (of the clamped input) where the output does not clip
        x_in = np.clip(x, iq.scale * (-128 - iq.zero_point), iq.scale * (127 - iq.zero_point))
        y_in = x_in @ w.T + b
        inside = (yq > -128) & (yq < 127)
        self.assertLess(np.abs(y - y_in)[inside].max(), 0.05 * np.abs(y_in).max())

    def test_linear_matches_the_document(self):
        self.check_linear(64, 48)

    def test_fused_relu(self):
        self.check_linear(64, 48, fused=True)

    def test_long_rows_use_exact_chunked_sums(self):
        """in_features 2048: the accumulator exceeds float32's exact range."""
        self.check_linear(2048, 16, x_scale=5.0)

    def test_relu_zero_point(self):
        qp = qparams_for_relu(6.0)
        self.assertEqual(qp.zero_point, -128)
        self.assertAlmostEqual(qp.scale * 255, 6.0, places=5)

    def test_range_includes_zero_exactly(self):
        for lo, hi in ((-1.0, 3.0), (0.5, 3.0), (-4.0, -1.0)):
            qp = qparams_for_range(lo, hi)
            x = torch.zeros(4)
            from edgemt_convert.quant import fake_quantize
            self.assertTrue(torch.equal(fake_quantize(x, qp), x), (lo, hi))

    def test_requantization_limit_raises_the_output_scale(self):
        s = np.array([0.5, 2.0, 1.0], dtype=F32)
        si, so = 1.0, 0.001
        self.assertTrue(np.any(requant_multipliers(si, s, so) >= 256))
        so2 = respect_requant_limit(si, s, so)
        self.assertGreater(so2, so)
        self.assertTrue(np.all(requant_multipliers(si, s, so2) < 256))
        self.assertGreaterEqual(np.max(requant_multipliers(si, s, so2)), 254.0)
        self.assertEqual(respect_requant_limit(0.01, s, 1.0), np.float32(1.0))


class GreedyChoice(unittest.TestCase):
    """reference_model.choose for an int8 projection: candidates within one
    level of the max, rescored in float with the unquantized input."""

    def setUp(self):
        from helpers import make_config, random_state_dict
        from edgemt_convert.build import build_float_model
        from edgemt_convert.config import parse_config
        from edgemt_convert.quant import quantize_tensor
        from edgemt_convert.reference_model import ReferenceModel
        cfg = make_config()
        model, _ = build_float_model(parse_config(cfg), random_state_dict(cfg))
        proj = model.decoder.output_projection
        proj.weight = quantize_tensor(proj.weight)
        proj.input_quant = qparams_for_range(-3, 3)
        proj.output_quant = qparams_for_range(-1.0, 1.5)
        for name, lin in model.named_linears():
            if name != "decoder.output_projection":
                lin.input_quant = lin.output_quant = None      # float
        self.ref = ReferenceModel(model)
        self.op = self.ref.ops["decoder.output_projection"]
        self.h = torch.from_numpy(np.random.default_rng(5).standard_normal((200, 64)).astype(F32))

    def brute_force(self, h, forbid_eos=None):
        levels = self.op.output_levels(h).numpy()
        resc = self.op.rescore(h).numpy()
        out = []
        for r in range(h.shape[0]):
            lv = levels[r].copy()
            if forbid_eos is not None and forbid_eos[r]:
                lv[3] = -1e9
            cands = [i for i in range(len(lv)) if lv[i] >= lv.max() - 1]
            best = max(cands, key=lambda i: (resc[r, i], -i))
            out.append(best)
        return out

    def test_candidates_and_rescoring(self):
        ids, rows = self.ref.choose(self.h, want_rows=True)
        self.assertEqual(ids.tolist(), self.brute_force(self.h))
        resc = self.op.rescore(self.h)
        np.testing.assert_allclose(rows[torch.arange(200), ids].numpy(), resc[torch.arange(200), ids].numpy(),
                                   rtol=1e-5, atol=1e-5)

    def test_min_length_excludes_eos(self):
        forbid = torch.ones(200, dtype=torch.bool)
        forbid[::2] = False
        ids, _ = self.ref.choose(self.h, forbid)
        self.assertEqual(ids.tolist(), self.brute_force(self.h, forbid.tolist()))
        self.assertNotIn(3, ids[1::2].tolist())

    def test_ties_go_to_the_lowest_id(self):
        op = self.op
        w = op._weight.data.copy()
        w[10] = w[7]
        w[20] = w[7]
        tensor = ir.Tensor(w, op._weight.scales.copy())
        tensor.scales[10] = tensor.scales[20] = tensor.scales[7]
        bias = op._bias.copy()
        bias[10] = bias[20] = bias[7] = 50.0                  # 7, 10 and 20 tie at the top
        op2 = Int8Linear(tensor, bias, op.iq, op.oq)
        self.ref.ops["decoder.output_projection"] = op2
        ids, _ = self.ref.choose(self.h[:5])
        self.assertEqual(ids.tolist(), [7] * 5)


if __name__ == "__main__":
    unittest.main()
