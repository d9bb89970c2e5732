"""The inputs of every Linear while the reference model translates: what
int4 planning (quantize/int4_plan.py) measures each layer's error on,
given to it as a function so that quantization does not depend on the
reference decoder."""
import torch

from .decode import greedy
from .model import ReferenceModel


class _Recorder:
    """Wraps a Linear op and keeps its input rows."""

    def __init__(self, op):
        self.op = op
        self.rows = []

    def __call__(self, x):
        self.rows.append(x.reshape(-1, x.shape[-1]).detach().clone())
        return self.op(x)


@torch.no_grad()
def record_linear_inputs(model, sources):
    """{Linear name: its input rows [n, in], float32, in the order computed}
    while the reference model of `model` greedily translates `sources` (id
    lists, </s> included) in one batch."""
    ref = ReferenceModel(model)
    recorders = {name: _Recorder(op) for name, op in ref.ops.items()}
    ref.ops.update(recorders)
    greedy(ref, sources, batch_size=len(sources))
    return {name: torch.cat(r.rows) for name, r in recorders.items() if r.rows}
