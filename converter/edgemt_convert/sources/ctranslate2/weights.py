"""CTranslate2's stored weights as float32, and its int8 weights as it
quantized them.

CTranslate2 stores a quantized weight W as q with a scale such that
W ~= q / scale: int8 per row (scale [rows]), int16 with one scale per
tensor (the global 1000 in old files). It dequantizes as q * (1 / scale) in
float32, which is EdgeMT's q * s with s = 1 / scale: an int8 weight keeps
its q bit for bit and takes the float32 reciprocal of each row's scale. An
int16 weight has no per-row scale; its float values are quantized again, per
row, like any float checkpoint. float16 and bfloat16 widen to float32.
"""
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...format import model_ir as ir
from ..reading import nonfinite, shape_str


@dataclass
class Weight:
    values: np.ndarray                  # float32, what CTranslate2 computes with in float
    stored: Optional[ir.Tensor] = None  # int8 as stored (q, 1 / scale per row); None otherwise

    def rows(self, start, stop):
        """The rows [start, stop) of a fused weight (q, k and v stacked)."""
        stored = None if self.stored is None else ir.Tensor(self.stored.data[start:stop].copy(),
                                                            self.stored.scales[start:stop].copy())
        return Weight(self.values[start:stop].copy(), stored)


def read_weight(model_bin, name, shape, problems):
    """Weight of a variable of the given shape, or None with a problem added."""
    raw = model_bin.get(name)
    if raw is None:
        problems.add("%s: missing" % name)
        return None
    if tuple(raw.shape) != tuple(shape):
        problems.add("%s: shape %s, expected %s" % (name, shape_str(raw.shape), shape_str(shape)))
        return None
    kind = model_bin.type_of(name)
    if kind in ("int8", "int16"):
        return _dequantized(model_bin, name, raw, kind, problems)
    if kind == "bfloat16":
        values = (raw.astype(np.uint32) << 16).view(np.float32)
    elif kind in ("float32", "float16"):
        values = raw.astype(np.float32)
    else:
        problems.add("%s: stored as %s, not a float or quantized weight" % (name, kind))
        return None
    bad = nonfinite(values)
    if bad:
        problems.add("%s: has %s" % (name, bad))
        return None
    return Weight(np.ascontiguousarray(values))


def read_vector(model_bin, name, size, problems, required=True):
    """A float32 vector (bias, LayerNorm gamma or beta) of `size`, or None."""
    if model_bin.get(name) is None and not required:
        return None
    w = read_weight(model_bin, name, (size,), problems)
    return None if w is None else w.values


def _dequantized(model_bin, name, q, kind, problems):
    scale = model_bin.get(name + "_scale")
    if scale is None and kind == "int16":
        scale = np.array(1000.0, np.float32)      # CTranslate2's global int16 scale, assumed when none is stored
    if scale is None:
        problems.add("%s: an int8 weight without %s_scale" % (name, name))
        return None
    scale = np.asarray(scale, np.float32)
    per_row = scale.ndim == 1 and q.ndim == 2 and scale.shape[0] == q.shape[0]
    if not (per_row or scale.ndim == 0):
        problems.add("%s_scale: shape %s, expected [%d] or a scalar" % (name, shape_str(scale.shape), q.shape[0]))
        return None
    if not np.all(np.isfinite(scale)) or np.any(scale <= 0):
        problems.add("%s_scale: scales must be positive and finite" % name)
        return None
    inverse = np.float32(1.0) / scale                      # float32, as CTranslate2's dequantize computes it
    rows = np.broadcast_to(inverse, (q.shape[0],)).astype(np.float32) if q.ndim == 2 else None
    values = q.astype(np.float32) * (rows[:, None] if rows is not None else inverse)
    stored = ir.Tensor(q.astype(np.int8, copy=True), rows.copy()) if kind == "int8" and rows is not None else None
    return Weight(np.ascontiguousarray(values, np.float32), stored)
