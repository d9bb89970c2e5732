"""Float model_ir + calibration statistics -> int8 model_ir.

Weights: symmetric per row (embeddings too). Activations: one QuantParams per
tensor, chosen by calibrate.search_range, with these rules:
- Linears that read the same tensor share their input_quant (self-attention
  query/key/value; every decoder layer's cross-attention key/value read the
  encoder output), so the runtime can quantize that tensor once; the search
  weighs each input channel by the squared norm of the weight columns it
  feeds, i.e. by how much its error moves the outputs.
- ReLU models: the feed-forward up output has zero point -128 on [0, max]
  (the fused ReLU) and the down Linear's input_quant is the same, so the
  runtime can hand the int8 output straight to the next GEMM and re-quantizing
  adds no error.
- Post-LN: the attention output and feed-forward down Linears feed
  LN(residual + y); their output range minimises the error after that
  LayerNorm (calibrate.search_range_residual).
- The output projection's output range only has to resolve the top of each
  row (docs/int8.md: candidates within one level of the max are rescored in
  float), so it spans the per-position maxima seen in calibration.
- si * s[r] / so < 256 is enforced by raising so.
Linears named in keep_float keep their float32 weight and get no QuantParams.
"""
import copy
from dataclasses import dataclass
from typing import Optional

import numpy as np
import torch

from . import model_ir as ir
from .calibrate import RangeChoice, search_range, search_range_residual
from .quant import (Int8Linear, quantize_tensor, qparams_for_range, qparams_for_relu,
                    respect_bias_limit, respect_requant_limit)
from .reference_model import FloatLinear

# Logits range: from the lowest per-position maximum minus this fraction of
# the spread of maxima, up to the highest maximum.
LOGITS_LOW_MARGIN = 0.25


@dataclass
class LinearReport:
    name: str
    kept_float: bool
    input_range: Optional[RangeChoice] = None
    output_range: Optional[RangeChoice] = None
    error: Optional[float] = None          # relative RMS error of the output, isolated layer
    note: str = ""


def input_group(name, relu):
    """Linears with the same group read the same tensor."""
    parts = name.split(".")
    if name.startswith("decoder.layers.") and parts[3] == "cross_attention" and parts[4] in ("key", "value"):
        return "encoder_output"
    if parts[-2] == "self_attention" and parts[-1] in ("query", "key", "value"):
        return ".".join(parts[:-1]) + ".input"
    return name


def residual_of(model, name):
    """Post-LN only: for a Linear whose output is added to the residual and
    layer-normed, (name of a Linear whose input is that residual, LayerNorm)."""
    if model.config.norm != ir.NORM_POST:
        return None
    parts = name.split(".")
    if len(parts) != 5 or (parts[3], parts[4]) not in (
            ("self_attention", "output"), ("cross_attention", "output"), ("feed_forward", "down")):
        return None
    layer = (model.encoder if parts[0] == "encoder" else model.decoder).layers[int(parts[2])]
    prefix = ".".join(parts[:4])
    if parts[3] == "feed_forward":
        return prefix + ".up", layer.feed_forward_norm
    return prefix + ".query", getattr(layer, parts[3] + "_norm")


class _Norm:
    def __init__(self, ln, eps):
        self.gamma = torch.from_numpy(np.asarray(ln.gamma, np.float32))
        self.beta = torch.from_numpy(np.asarray(ln.beta, np.float32))
        self.eps = eps


def _float_weight(model, lin):
    return model.linear_weight(lin).data


def quantize_model(model, stats, keep_float=(), progress=None):
    """Returns (int8 model_ir.Model, [LinearReport])."""
    relu = model.config.activation == ir.ACT_RELU
    q = copy.deepcopy(model)
    linears = dict(q.named_linears())
    float_linears = dict(model.named_linears())
    unknown = [n for n in keep_float if n not in linears]
    if unknown:
        raise ValueError("unknown Linear %s" % unknown[0])

    # weights: per-row int8 (the tied projection shares the decoder embedding)
    if q.encoder.token_embedding is not None:
        q.encoder.token_embedding = quantize_tensor(q.encoder.token_embedding)
    q.decoder.token_embedding = quantize_tensor(q.decoder.token_embedding)
    if q.config.tied_output and "decoder.output_projection" in keep_float:
        raise ValueError("a tied output projection cannot stay float in an int8 file")
    for name, lin in linears.items():
        if lin.weight is not None and name not in keep_float:
            lin.weight = quantize_tensor(lin.weight)

    # input ranges, one per group of Linears reading the same tensor
    def reads_fused_relu(name):
        return relu and name.endswith("feed_forward.down") and name.replace(".down", ".up") not in keep_float

    groups = {}
    for name in linears:
        if name in keep_float or reads_fused_relu(name):
            continue                        # fused: = the up Linear's output, below
        groups.setdefault(input_group(name, relu), []).append(name)
    input_choice = {}
    for gname, names in groups.items():
        st = stats[names[0]]
        w = sum(torch.from_numpy(_float_weight(model, float_linears[n])).pow(2).sum(dim=0) for n in names)
        lo = min(stats[n].in_min for n in names)
        hi = max(stats[n].in_max for n in names)
        choice = search_range(st.rows, lo, hi, weights=w)
        qp = qparams_for_range(choice.lo, choice.hi)
        for n in names:
            qp = respect_bias_limit(qp, linears[n].bias, q.linear_weight(linears[n]).scales)
        for n in names:
            input_choice[n] = (choice, qp)
        if progress:
            progress(1)

    reports = []
    for name, lin in linears.items():
        if name in keep_float:
            reports.append(LinearReport(name, kept_float=True))
            continue
        st = stats[name]
        float_op = FloatLinear(_float_weight(model, float_linears[name]), float_linears[name].bias)
        y = float_op(st.rows)
        weight = q.linear_weight(lin)
        if reads_fused_relu(name):
            up_name = name.replace(".down", ".up")
            lin.input_quant = linears[up_name].output_quant
            in_choice = next(r.output_range for r in reports if r.name == up_name)
        else:
            in_choice, lin.input_quant = input_choice[name]
        si = lin.input_quant.scale

        if name == "decoder.output_projection":
            out_choice = _logits_range(st)
            oq = qparams_for_range(out_choice.lo, out_choice.hi)
        elif relu and name.endswith("feed_forward.up"):
            down_name = name.replace(".up", ".down")
            # errors here are errors of the down Linear's input: weigh channels by its columns
            w = torch.from_numpy(float_linears[down_name].weight.data).pow(2).sum(dim=0)
            out_choice = search_range(torch.relu(y), 0.0, st.out_max, weights=w, relu=True)
            oq = qparams_for_relu(out_choice.hi)
            if down_name not in keep_float:
                oq = respect_bias_limit(oq, linears[down_name].bias, linears[down_name].weight.scales)
        elif residual_of(model, name) is not None:
            res_name, ln = residual_of(model, name)
            res = stats[res_name]
            assert torch.equal(res.index, st.index), "calibration samples of %s and %s differ" % (name, res_name)
            out_choice = search_range_residual(y, res.rows, _Norm(ln, model.config.layer_norm_epsilon),
                                               st.out_min, st.out_max)
            oq = qparams_for_range(out_choice.lo, out_choice.hi)
        else:
            out_choice = search_range(y, st.out_min, st.out_max)
            oq = qparams_for_range(out_choice.lo, out_choice.hi)
        so = respect_requant_limit(si, weight.scales, oq.scale)
        note = ""
        if so != oq.scale:
            note = "output scale raised for XNNPACK (si*s/so < 256)"
            oq = ir.QuantParams(scale=so, zero_point=oq.zero_point)
        lin.output_quant = oq
        rep = LinearReport(name, kept_float=False, input_range=in_choice, output_range=out_choice, note=note)
        rep.error = _isolated_error(name, lin, weight, st.rows, y, relu)
        reports.append(rep)
        if progress:
            progress(1)
    return q, reports


def _logits_range(st):
    row_max = torch.cat(st.row_max)
    top, bottom = float(row_max.max()), float(row_max.min())
    lo = bottom - LOGITS_LOW_MARGIN * (top - bottom)
    return RangeChoice(lo=lo, hi=top, method="row-max", error=float("nan"), minmax_error=float("nan"))


def _isolated_error(name, lin, weight, rows, y_float, relu):
    """Relative RMS error of this Linear alone in int8, on the calibration sample."""
    fused = relu and name.endswith("feed_forward.up")
    op = Int8Linear(weight, lin.bias, lin.input_quant, lin.output_quant, fused_relu=fused)
    y = op(rows)
    ref = torch.relu(y_float) if fused else y_float
    if name == "decoder.output_projection":
        # what matters is the chosen token: compare after candidate rescoring
        levels = op.output_levels(rows)
        cand = levels >= levels.max(dim=-1, keepdim=True).values - 1
        resc = torch.where(cand, op.rescore(rows), torch.full_like(ref, float("-inf")))
        agree = (resc.argmax(dim=-1) == ref.argmax(dim=-1)).double().mean()
        return 1.0 - float(agree)
    return float((y - ref).norm() / ref.norm().clamp_min(1e-30))
