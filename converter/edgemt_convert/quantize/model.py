"""Float model_ir -> int8 model_ir (format 2.0, docs/int8.md), or int4
(format 2.1, docs/int4.md) for the Linears and token embeddings named in
`int4` (format 2.6 when an embedding is int4).

Every Linear weight and the token embeddings become symmetric per-row int8
(the tied output projection is the decoder embedding), or, for a tensor in
`int4`, 4-bit with a bfloat16 scale per block of inputs; biases, LayerNorms
and position tables stay float32. No activation parameters exist: the
runtime quantizes every input row of an int8 Linear from its own values, so
nothing depends on data and the result is a function of the checkpoint.
Linears named in keep_float keep their float32 weight.

The report gives, per quantized tensor, the relative RMS error of its
weight, ||W - q*s|| / ||W||, over the whole tensor and for its worst row.
"""
import copy
from dataclasses import dataclass
from typing import Optional, Tuple

from ..format import model_ir as ir
from .int8 import quantize_tensor, weight_error


@dataclass
class TensorReport:
    name: str                      # as in the summary and --keep-float
    shape: Tuple[int, ...]
    kept_float: bool
    dtype: str = "int8"                    # of the tensor written: int8, int4 or float32
    error: Optional[float] = None          # relative RMS error of the quantized tensor
    worst_row: Optional[float] = None      # the same for its worst row


def linear_names(model):
    """Names of the Linears that own a weight (the tied projection does not)."""
    return [n for n, lin in model.named_linears() if lin.weight is not None]


def quantize_model(model, keep_float=(), int4=None, progress=None, stored=None):
    """Returns (quantized model_ir.Model, [TensorReport]) for a float model.
    keep_float: names of Linears whose weight stays float32; int4: {name:
    int4 ir.Tensor} of Linears and token embeddings ("encoder.token_embedding",
    "decoder.token_embedding") that are that tensor (int4_plan's plan; the
    file is then int4); stored: {name: int8 ir.Tensor} that the
    source format quantized (importer.Imported.quantized), kept as they are
    where no int4 tensor replaces them."""
    int4 = int4 or {}
    stored = stored or {}
    q = copy.deepcopy(model)
    linears = dict(q.named_linears())
    names = linear_names(q)
    for n in keep_float:
        if n not in names:
            raise ValueError("no Linear named %r with a weight of its own" % n)
    reports = []

    def quantize(name, tensor):
        t = int4[name] if name in int4 else stored[name] if name in stored else quantize_tensor(tensor)
        err, worst = weight_error(tensor.data, t)
        reports.append(TensorReport(name, tensor.shape, kept_float=False, dtype="int4" if t.is_int4 else "int8",
                                    error=err, worst_row=worst))
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
            reports.append(TensorReport(name, lin.weight.shape, kept_float=True, dtype="float32"))
            continue
        lin.weight = quantize(name, lin.weight)
    q.metadata.dtype = "int4" if int4 else "int8"
    if int4:
        q.format_minor = max(q.format_minor, ir.FORMAT_MINOR_INT4)
    if q.has_int4_embedding():
        q.format_minor = max(q.format_minor, ir.FORMAT_MINOR_INT4_EMBEDDINGS)
    return q, reports
