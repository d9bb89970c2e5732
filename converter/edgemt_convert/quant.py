"""The int8 arithmetic of docs/int8.md: parameter choice (numpy) and the exact
simulation of an int8 Linear (torch).

Float32 evaluation order, chosen to match what XNNPACK does (see the
"Exact float32 evaluation" section of docs/int8.md):
  input:   xq = clamp(round_half_even(x * f32(1 / si)) + zi, -128, 127)
  bias:    bq = round_half_even(b / (si * s[r]))              (float64, from the float32 values)
  requant: m[r] = f32(f32(si * s[r]) / so);  yq = clamp(round_half_even(f32(acc) * m[r]) + zo, lo, hi)
  output:  y = so * (yq - zo)
acc is an exact integer (see linalg.ExactIntMatmul).
"""
import numpy as np
import torch

from . import model_ir as ir
from .linalg import ExactIntMatmul, Matmul

F32 = np.float32
# XNNPACK rejects a requantization scale si * s[r] / so >= 256.
REQUANT_LIMIT = F32(256.0)
# Scales must be normal float32 numbers (XNNPACK checks isnormal).
MIN_SCALE = F32(1e-12)


def quantize_rows(w):
    """Symmetric per-row int8: (q int8 [out, in], s float32 [out])."""
    w = np.asarray(w, dtype=F32)
    amax = np.max(np.abs(w), axis=1) if w.shape[1] else np.zeros(w.shape[0], F32)
    s = (amax / F32(127.0)).astype(F32)
    s[~(s >= F32(np.finfo(F32).tiny))] = F32(1.0)       # zero (or denormal-tiny) rows
    q = np.clip(np.round(w / s[:, None]), -127, 127).astype(np.int8)   # np.round: half to even
    return q, s


def quantize_tensor(t):
    q, s = quantize_rows(t.data)
    return ir.Tensor(q, s)


def qparams_for_range(lo, hi):
    """Affine params whose 256 levels cover [lo, hi] (widened to include 0,
    so that zero is exact)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = max(F32((hi - lo) / 255.0), MIN_SCALE)
    zp = int(np.clip(np.round(-128.0 - lo / float(scale)), -128, 127))
    return ir.QuantParams(scale=float(scale), zero_point=zp)


def qparams_for_relu(hi):
    """A fused-ReLU output: zero point -128, all 256 levels on [0, hi]."""
    return ir.QuantParams(scale=float(max(F32(max(float(hi), 0.0) / 255.0), MIN_SCALE)), zero_point=-128)


def quantize_bias(bias, si, scales):
    """bq[r] = round_half_even(b[r] / (si * s[r])), in float64 (docs/int8.md)."""
    return np.round(np.asarray(bias, np.float64) / (np.float64(F32(si)) * np.asarray(scales, F32).astype(np.float64)))


# The runtime refuses a bias whose int32 value would not fit.
BIAS_LIMIT = 2.0 ** 31 - 128


def respect_bias_limit(qp, bias, scales):
    """An input_quant whose scale keeps every |bq| below BIAS_LIMIT (only a
    degenerate, near-constant input gets so small a scale)."""
    if bias is None or qp is None:
        return qp
    need = float(np.max(np.abs(np.asarray(bias, np.float64)) / (np.asarray(scales, np.float64) * BIAS_LIMIT)))
    if qp.scale > need:
        return qp
    return ir.QuantParams(scale=float(F32(need * 1.01)), zero_point=qp.zero_point)


def requant_multipliers(si, scales, so):
    """m[r] = f32(f32(si * s[r]) / so), as the runtime / XNNPACK computes it."""
    return ((F32(si) * np.asarray(scales, F32)).astype(F32) / F32(so)).astype(F32)


def respect_requant_limit(si, scales, so):
    """The smallest float32 so' >= so with every si * s[r] / so' < 256."""
    so = F32(so)
    if np.max(requant_multipliers(si, scales, so)) < REQUANT_LIMIT:
        return float(so)
    so = F32(F32(si) * np.max(scales) / F32(255.0))
    while np.max(requant_multipliers(si, scales, so)) >= REQUANT_LIMIT:
        so = np.nextafter(so, F32(np.inf), dtype=F32)
    return float(so)


def _f32(x):
    return torch.tensor(x, dtype=torch.float32)


def quantize_activation(x, qp, inv_scale=None):
    """float32 x -> int8 levels (as float32 values) with params qp."""
    inv = _f32(F32(1.0) / F32(qp.scale)) if inv_scale is None else inv_scale
    return torch.clamp(torch.round(x * inv) + qp.zero_point, -128, 127)


def fake_quantize(x, qp):
    """x quantized to int8 and back: scale * (q - zero_point)."""
    return (quantize_activation(x, qp) - qp.zero_point) * _f32(F32(qp.scale))


class Int8Linear:
    """A Linear as the runtime executes it with an int8 weight (docs/int8.md)."""

    def __init__(self, weight, bias, input_quant, output_quant, fused_relu=False):
        assert weight.is_int8 and input_quant is not None and output_quant is not None
        self.out_features = weight.shape[0]
        self.iq, self.oq = input_quant, output_quant
        si, so = F32(input_quant.scale), F32(output_quant.scale)
        s = np.asarray(weight.scales, F32)
        b = np.zeros(self.out_features, F32) if bias is None else np.asarray(bias, F32)
        bq = quantize_bias(b, si, s)
        self.gemm = ExactIntMatmul(torch.from_numpy(weight.data.astype(np.float32)), torch.from_numpy(bq))
        self.mult = torch.from_numpy(requant_multipliers(si, s, so))
        self.zo = output_quant.zero_point
        self.lo = self.zo if fused_relu else -128
        self.so = _f32(so)
        self.inv_si = _f32(F32(1.0) / si)
        # for the logits' float rescoring: the dequantized weight and the bias
        self._weight = weight
        self._bias = b
        self._rescore = None

    def output_levels(self, x):
        """yq (int8 values as float32) for float32 input x [..., in]."""
        xq = quantize_activation(x, self.iq, self.inv_si) - self.iq.zero_point
        y = self.gemm(xq) * self.mult
        return torch.clamp(torch.round(y) + self.zo, self.lo, 127)

    def __call__(self, x):
        return (self.output_levels(x) - self.zo) * self.so

    def rescore(self, x):
        """Float logits with the int8 weight and the unquantized input:
        sum_c x[c] * q[r, c] * s[r] + b[r] (docs/int8.md, Logits)."""
        if self._rescore is None:
            self._rescore = Matmul(torch.from_numpy(self._weight.dequantize()))
        return self._rescore(x) + torch.from_numpy(self._bias)

    def rescore_pairs(self, x, rows, cols):
        """rescore() only at (rows[i], cols[i]): x[rows] . w[cols] + b[cols]."""
        if not hasattr(self, "_w_rows"):
            self._w_rows = torch.from_numpy(self._weight.dequantize())
            self._b = torch.from_numpy(self._bias)
        return (x[rows] * self._w_rows[cols]).sum(-1) + self._b[cols]
