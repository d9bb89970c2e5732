"""One Linear as the runtime computes it, chosen by its weight's type:
float32 (FloatLinear), int8 (int8.Int8Linear, docs/int8.md) or int4
(int4.Int4Linear, docs/int4.md). Each op maps x [..., in] to y [..., out]."""
import numpy as np
import torch

from .int4 import Int4Linear
from .int8 import Int8Linear
from .linalg import Matmul


class FloatLinear:
    def __init__(self, weight, bias):
        self.mm = Matmul(torch.from_numpy(np.ascontiguousarray(weight, dtype=np.float32)))
        self.b = None if bias is None else torch.from_numpy(np.asarray(bias, dtype=np.float32))
        self.out_features = self.mm.out_features

    def __call__(self, x):
        y = self.mm(x)
        return y if self.b is None else y + self.b


def make_linear(weight, linear, fused_relu=False):
    """The op for one Linear: int8 or int4 as its weight, float otherwise
    (a float op leaves a fused ReLU to its caller)."""
    if weight.is_int8:
        return Int8Linear(weight, linear.bias, fused_relu)
    if weight.is_int4:
        return Int4Linear(weight, linear.bias, fused_relu)
    return FloatLinear(weight.data, linear.bias)
