"""The int4 arithmetic of docs/int4.md (format 2.1): weights in 4 bits with a
bfloat16 scale per row and block of inputs (numpy), and the simulation of an
int4 Linear as XNNPACK's qd8-f32-qb4w kernels compute it (torch).

Weights: q in [-8, 7], value = q * s[row, block]; s is a bfloat16 chosen per
block to minimize the block's squared error (a search: quantize_blocks).
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

# The scales tried first per block, as fractions of max|w| / 7: 21 from 0.5
# to 1 (step 0.025). 7/8 among them gives max|w| / 8, where a block whose
# largest magnitude is negative takes the code -8; below 1 the largest
# positive values clip at 7, which may pay off for the many small ones.
SCALE_FRACTIONS = np.linspace(0.5, 1.0, 21)


class _BlockSearch:
    """The best scale so far per block of wb [rows, blocks, block] (float32)
    and its squared error, measured with the scale as written (bfloat16)."""

    def __init__(self, wb):
        self.wb = wb
        self.s = np.ones(wb.shape[:2], dtype=F32)         # a block no candidate fits keeps s = 1
        self.err = np.full(wb.shape[:2], np.inf)
        self.usable = np.abs(wb).max(axis=2) > 0          # a block of zeros keeps s = 1 (q = 0)

    def codes(self, s):
        return np.clip(np.round(self.wb / s[..., None]), -8, 7)       # np.round: half to even

    def consider(self, scales):
        """Tries float32 candidate scales [rows, blocks], rounded to bfloat16
        first; keeps each block's candidate where its error is smaller (on a
        tie the earlier one). XNNPACK takes positive, finite, normal scales only."""
        s = from_bfloat16(to_bfloat16(scales))
        ok = self.usable & np.isfinite(s) & (s >= np.finfo(F32).tiny)
        s = np.where(ok, s, F32(1.0))
        # q * s is exact in float32 (a 4-bit integer times a bfloat16)
        d = self.wb - self.codes(s) * s[..., None]
        err = np.where(ok, np.einsum("rbi,rbi->rb", d, d, dtype=np.float64), np.inf)
        better = err < self.err
        self.err = np.where(better, err, self.err)
        self.s = np.where(better, s, self.s)


def quantize_blocks(w, block):
    """(q int8 [out, in] in [-8, 7], s float32 [out, in / block] holding
    bfloat16 values) with q = round_half_even(w / s) clamped and, per block,
    the s of smallest squared error sum (w - q * s)^2 found by:
      1. s = max|w| * f / 7 for f in SCALE_FRACTIONS;
      2. the least-squares scale of the best codes so far, sum(w q) / sum(q q);
      3. the bfloat16 values just below and above the best scale.
    Each candidate is rounded to bfloat16 before its error is measured, so the
    error compared is the one written; f = 1 makes the result never worse than
    s = max|w| / 7. A block of zeros (or too small for a normal bfloat16
    scale) gets s = 1 and q = 0. Deterministic: numpy, no randomness."""
    w = np.asarray(w, dtype=F32)
    rows, cols = w.shape
    assert valid_block_size(block, cols), (block, cols)
    wb = w.reshape(rows, cols // block, block)
    amax = np.abs(wb).max(axis=2)
    search = _BlockSearch(wb)
    for f in SCALE_FRACTIONS:
        search.consider(amax * F32(f / 7.0))
    q = search.codes(search.s)
    qq = (q * q).sum(axis=2, dtype=np.float64)
    wq = np.einsum("rbi,rbi->rb", wb, q, dtype=np.float64)
    search.consider((wq / np.maximum(qq, 1.0)).astype(F32))
    bits = to_bfloat16(search.s).astype(np.int32)
    for step in (-1, 1):
        search.consider(from_bfloat16(np.clip(bits + step, 0, 0x7F80).astype(np.uint16)))
    return search.codes(search.s).astype(np.int8).reshape(rows, cols), search.s


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
