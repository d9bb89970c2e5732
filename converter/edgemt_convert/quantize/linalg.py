"""x @ W^T for a fixed weight, fast on Debian's torch.

Debian's python3-torch does its float GEMMs with whatever libblas.so.3 is
installed: the reference BLAS by default, ~5 GFLOPS on 2 cores. oneDNN
(built into torch) is ~20x faster, so the weights are kept in its layout.
Falls back to F.linear where torch has no oneDNN.
"""
import torch
import torch.nn.functional as F

_MKLDNN = torch.backends.mkldnn.is_available()

# An integer GEMM done in float32 is exact while every partial sum stays
# below 2^24: with |x| <= 255 and |w| <= 127, 512 terms give at most
# 16,581,120 < 16,777,216. Longer rows are split into chunks of this size.
EXACT_CHUNK = 512


class Matmul:
    """y = x @ W^T (float32) for W [out, in]."""

    def __init__(self, w):
        w = w.to(torch.float32).contiguous()
        self.out_features, self.in_features = w.shape
        self.w = w.to_mkldnn() if _MKLDNN else w

    def __call__(self, x):
        lead = x.shape[:-1]
        x2 = x.reshape(-1, self.in_features).contiguous()
        if x2.shape[0] == 0:
            return x.new_zeros(*lead, self.out_features)
        if _MKLDNN:
            y = torch._C._nn.mkldnn_linear(x2.to_mkldnn(), self.w, None).to_dense()
        else:
            y = F.linear(x2, self.w)
        return y.reshape(*lead, self.out_features)


class ExactIntMatmul:
    """acc = x @ Q^T for integer-valued x in [-255, 255] and int8 weights
    Q [out, in]: the exact integer, returned as float32 (rounded to nearest,
    like XNNPACK's (float) int32 conversion)."""

    def __init__(self, q):
        q = torch.as_tensor(q).to(torch.float32)
        self.in_features = q.shape[1]
        self.parts = [(k, min(k + EXACT_CHUNK, self.in_features), Matmul(q[:, k:k + EXACT_CHUNK]))
                      for k in range(0, self.in_features, EXACT_CHUNK)]
        # One chunk keeps every partial sum below 2^24: float32 is exact throughout.
        self.float32_exact = len(self.parts) == 1

    def __call__(self, x):
        if self.float32_exact:
            return self.parts[0][2](x)
        acc = None
        for lo, hi, mm in self.parts:
            part = mm(x[..., lo:hi]).to(torch.float64)      # exact integers, summed exactly (< 2^53)
            acc = part if acc is None else acc + part
        return acc.to(torch.float32)
