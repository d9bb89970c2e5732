"""Float model_ir -> int8 model_ir (format 2.0, docs/int8.md).

Every Linear weight and the token embeddings become symmetric per-row int8
(the tied output projection is the decoder embedding); biases, LayerNorms
and position tables stay float32. No activation parameters exist: the
runtime quantizes every input row of an int8 Linear from its own values, so
nothing depends on data and the result is a function of the checkpoint.
Linears named in keep_float keep their float32 weight.

The report gives, per quantized tensor, the relative RMS error of its int8
weight, ||W - q*s|| / ||W||, over the whole tensor and for its worst row.
"""
import copy
from dataclasses import dataclass
from typing import Optional, Tuple

from .quant import quantize_tensor, weight_error


@dataclass
class TensorReport:
    name: str                      # as in the summary and --keep-float
    shape: Tuple[int, ...]
    kept_float: bool
    error: Optional[float] = None          # relative RMS error of the int8 tensor
    worst_row: Optional[float] = None      # the same for its worst row


def linear_names(model):
    """Names of the Linears that own a weight (the tied projection does not)."""
    return [n for n, lin in model.named_linears() if lin.weight is not None]


def quantize_model(model, keep_float=(), progress=None):
    """Returns (int8 model_ir.Model, [TensorReport]) for a float model.
    keep_float: names of Linears whose weight stays float32."""
    q = copy.deepcopy(model)
    linears = dict(q.named_linears())
    names = linear_names(q)
    for n in keep_float:
        if n not in names:
            raise ValueError("no Linear named %r with a weight of its own" % n)
    reports = []

    def quantize(name, tensor):
        t = quantize_tensor(tensor)
        err, worst = weight_error(tensor.data, t)
        reports.append(TensorReport(name, tensor.shape, kept_float=False, error=err, worst_row=worst))
        if progress:
            progress(1)
        return t

    if q.encoder.token_embedding is not None:
        q.encoder.token_embedding = quantize("encoder.token_embedding", q.encoder.token_embedding)
    q.decoder.token_embedding = quantize("decoder.token_embedding", q.decoder.token_embedding)
    for name, lin in linears.items():
        if lin.weight is None:
            continue                          # tied: the decoder embedding above
        if name in keep_float:
            reports.append(TensorReport(name, lin.weight.shape, kept_float=True))
            continue
        lin.weight = quantize(name, lin.weight)
    q.metadata.dtype = "int8"
    return q, reports
