"""The int4 arithmetic of docs/int4.md (format 2.1): weights in 4 bits with a
bfloat16 scale per row and block of inputs (numpy), and the simulation of an
int4 Linear as XNNPACK's qd8-f32-qb4w kernels compute it (torch).

Weights: q in [-8, 7], value = q * s[row, block]; s is a bfloat16 chosen per
block to minimize the block's squared error (see quantize_blocks).
Inputs: quantized per row at run time exactly as for int8 (int8.py).
GEMM, all in float32, in this order:
  acc_b = sum_{c in block b} xq[c] * q[r, c]       (exact integer; xq holds the zero point)
  k     = -sum_b s[r, b] * sum_{c in block b} q[r, c]  (summed over b in order when packing)
  v     = k * z;  v = v + float(acc_b) * s[r, b] for each block b in order
  y     = v * si + b[r]
"""
import numpy as np
import torch

from ..format.int4_encoding import from_bfloat16, to_bfloat16, valid_block_size
from .int8 import quantize_input
from .linalg import Matmul

F32 = np.float32

# Candidate scales per block, as fractions of max|w| / 7; 8/7 lets a block
# whose largest magnitude is negative use -8.
_SCALE_FRACTIONS = np.concatenate([np.linspace(0.6, 1.0, 17), [8.0 / 7.0]]).astype(F32)


def quantize_blocks(w, block):
    """(q int8 [out, in] in [-8, 7], s float32 [out, in / block] holding
    bfloat16 values) minimizing sum (w - q * s)^2 per block over a grid of
    candidate scales. A block of zeros gets s = 1."""
    w = np.asarray(w, dtype=F32)
    rows, cols = w.shape
    assert valid_block_size(block, cols), (block, cols)
    wb = w.reshape(rows, cols // block, block)
    amax = np.abs(wb).max(axis=2)
    best_s = np.ones_like(amax)
    best_err = np.full(amax.shape, np.inf, dtype=np.float64)
    nonzero = amax > 0
    for f in _SCALE_FRACTIONS:
        s = from_bfloat16(to_bfloat16(amax * (f / F32(7.0))))
        s = np.where(nonzero & (s > 0), s, F32(1.0))
        q = np.clip(np.round(wb / s[..., None]), -8, 7)
        err = ((wb - q * s[..., None]).astype(np.float64) ** 2).sum(axis=2)
        better = err < best_err
        best_err = np.where(better, err, best_err)
        best_s = np.where(better, s, best_s)
    # XNNPACK refuses subnormal scales: a block this small is all but zero anyway.
    best_s = np.where(best_s >= np.finfo(F32).tiny, best_s, F32(1.0)).astype(F32)
    q = np.clip(np.round(wb / best_s[..., None]), -8, 7).astype(np.int8).reshape(rows, cols)
    return q, best_s


class Int4Linear:
    """A Linear as the runtime executes it with an int4 weight (docs/int4.md)."""

    def __init__(self, weight, bias, fused_relu=False):
        assert weight.is_int4
        q = np.asarray(weight.data, dtype=F32)
        block = weight.block_size
        self.out_features, cols = q.shape
        self.block = block
        # Each block's product is exact in float32: |xq| <= 128, |q| <= 8,
        # so a block of up to 16,384 inputs stays below 2^24.
        self.mms = [Matmul(torch.from_numpy(np.ascontiguousarray(q[:, k:k + block])))
                    for k in range(0, cols, block)]
        self.s = torch.from_numpy(np.asarray(weight.scales, F32).copy())        # [out, blocks]
        ksum = torch.from_numpy(q.reshape(self.out_features, -1, block).sum(axis=2))
        k = torch.zeros(self.out_features, dtype=torch.float32)
        for b in range(ksum.shape[1]):
            k = k - ksum[:, b] * self.s[:, b]
        self.k = k
        self.b = None if bias is None else torch.from_numpy(np.asarray(bias, F32).copy())
        self.fused_relu = fused_relu

    def __call__(self, x):
        xd, z, si = quantize_input(x)
        xq = xd + z.unsqueeze(-1)                        # the int8 values the kernel reads
        v = self.k * z.unsqueeze(-1)
        for b, mm in enumerate(self.mms):
            acc = mm(xq[..., b * self.block:(b + 1) * self.block])
            v = v + acc * self.s[:, b]
        y = v * si.unsqueeze(-1)
        if self.b is not None:
            y = y + self.b
        return torch.clamp(y, min=0.0) if self.fused_relu else y
