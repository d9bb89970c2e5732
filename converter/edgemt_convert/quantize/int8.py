"""The int8 arithmetic of docs/int8.md (format 2.0): per-row weight
quantization (numpy) and the exact simulation of an int8 Linear (torch).

Weights: symmetric per row, s[r] = max|W[r]| / 127, q = round(W / s).
Inputs: quantized per row at run time with XNNPACK's qd8 parameters
(xnn_f32_qd8_asymmetric_quantization_params), all in float32:
  lo = min(0, min x), hi = max(0, max x), inv = 255 / (hi - lo) (1 if equal)
  zf = (-128 + lo*inv) + (127 + hi*inv) > 0 ? -128 - lo*inv : 127 - hi*inv
  z = round_half_even(clamp(zf, -128, 127)), si = 1 / inv, m = 1 / si
  xq = clamp(round_half_even(x * m), -128 - z, 127 - z) + z
GEMM: acc = sum (xq - z) * q (exact integer, see linalg.ExactIntMatmul),
  y = (float32(acc) * si) * s[r] + b[r], each step rounded to float32.
Every operation below is one float32 torch operation in that order, so each
rounds exactly once, as the formulas say.
"""
import numpy as np
import torch

from ..format import model_ir as ir
from .linalg import ExactIntMatmul

F32 = np.float32


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


def weight_error(original, tensor):
    """(relative RMS error of the whole int8 tensor, worst relative RMS error
    of one row): ||W - q*s|| / ||W||, in float64."""
    w = np.asarray(original, np.float64)
    d = tensor.dequantize().astype(np.float64) - w
    rows = np.sqrt((d * d).sum(axis=1)) / np.maximum(np.sqrt((w * w).sum(axis=1)), 1e-300)
    return float(np.sqrt((d * d).sum()) / max(np.sqrt((w * w).sum()), 1e-300)), float(rows.max(initial=0.0))


def qd8_params(x):
    """The per-row quantization parameters of float32 x [..., in]:
    (z, si, m), float32 tensors of shape [...] (z holds integers)."""
    x = x.to(torch.float32)
    lo = torch.clamp(x.amin(dim=-1), max=0.0)
    hi = torch.clamp(x.amax(dim=-1), min=0.0)
    one = torch.ones_like(lo)
    inv = torch.where(hi == lo, one, torch.div(torch.full_like(lo, 255.0), hi - lo))
    lo_s = lo * inv
    hi_s = hi * inv
    from_min = (lo_s - 128.0) + (hi_s + 127.0) > 0
    zf = torch.where(from_min, -128.0 - lo_s, 127.0 - hi_s)
    z = torch.round(torch.clamp(zf, -128.0, 127.0))      # torch.round: half to even
    si = torch.div(one, inv)
    m = torch.div(one, si)
    return z, si, m


def quantize_input(x):
    """x [..., in] float32 -> (xq - z as float32 integers in [-255, 255], z, si):
    the values the GEMM multiplies, the zero points and the row scales."""
    z, si, m = qd8_params(x)
    zc = z.unsqueeze(-1)
    r = torch.round(x * m.unsqueeze(-1))
    xd = torch.minimum(torch.maximum(r, -128.0 - zc), 127.0 - zc)
    return xd, z, si


class Int8Linear:
    """A Linear as the runtime executes it with an int8 weight (docs/int8.md):
    float32 input, per-row dynamic int8 input, exact int32 GEMM, float32 output."""

    def __init__(self, weight, bias, fused_relu=False):
        assert weight.is_int8
        self.out_features = weight.shape[0]
        self.gemm = ExactIntMatmul(torch.from_numpy(weight.data.astype(np.float32)))
        self.s = torch.from_numpy(np.asarray(weight.scales, F32).copy())
        self.b = None if bias is None else torch.from_numpy(np.asarray(bias, F32).copy())
        self.fused_relu = fused_relu

    def __call__(self, x):
        xd, _, si = quantize_input(x)
        return self.product(xd, si)

    def product(self, xd, si):
        """The GEMM and its float32 epilogue on quantized rows: xd = xq - z
        [..., in] (float32 integers), si the row scales [...]."""
        acc = self.gemm(xd)                               # float32(acc)
        y = (acc * si.unsqueeze(-1)) * self.s
        if self.b is not None:
            y = y + self.b
        return torch.clamp(y, min=0.0) if self.fused_relu else y
