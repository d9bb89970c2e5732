"""End-to-end refinement of the output ranges of the worst int8 Linears.

The per-tensor searches (calibrate.py) judge a range by its error at that
tensor. For the Linears with the largest int8 error (in a trained post-LN
model: the feed-forward down projections, whose outputs have a few outlier
channels) the best range for the *translation* clips harder than that: on
multi30k, shrinking two of them by 20-50% lowers the divergence of the
output distribution by a tenth. So for each Linear whose isolated int8 error
exceeds TUNE_ERROR, in model order, the output range is scaled by each of
FACTORS and the factor that gives the lowest mean KL divergence between the
float model's next-token distribution and the int8 model's (teacher-forced
on calibration inputs and the float model's own greedy outputs) is kept.
The int8 model's distribution uses the float output projection, so that the
divergence measures the layers being tuned.
"""
import copy

import torch

from . import model_ir as ir
from .calibrate import decoder_inputs
from .quant import qparams_for_range, respect_requant_limit
from .reference_model import FloatLinear, ReferenceModel, make_linear

TUNE_ERROR = 0.025
FACTORS = (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.1)
MAX_SENTENCES = 64
MAX_LOGIT_VALUES = 1 << 25        # positions x vocabulary kept in memory


class _KL:
    """Teacher-forced KL(float || int8) on a fixed set of inputs."""

    def __init__(self, float_model, sources, targets):
        c = float_model.config
        w = float_model.output_weight().dequantize()
        self.project = FloatLinear(w, float_model.decoder.output_projection.bias)
        self.batches = []
        per_batch = 16
        fref = ReferenceModel(float_model)
        for k in range(0, len(sources), per_batch):
            srcs = sources[k:k + per_batch]
            tin = [decoder_inputs(s, t, c.decoder_start_id, c.max_positions)
                   for s, t in zip(srcs, targets[k:k + per_batch])]
            T = max(len(t) for t in tin)
            ids = torch.zeros(len(tin), T, dtype=torch.long)
            valid = torch.zeros(len(tin), T, dtype=torch.bool)
            for r, t in enumerate(tin):
                ids[r, :len(t)] = torch.tensor(t)
                valid[r, :len(t)] = True
            self.batches.append((srcs, ids, valid, torch.log_softmax(self._hidden(fref, srcs, ids, valid), -1)))

    def _hidden(self, ref, srcs, ids, valid):
        memory, src_valid = ref.encode(srcs)
        h = ref.decode(ref.start_decoder(memory, src_valid), ids, valid)[valid]
        return self.project(h)

    @torch.no_grad()
    def __call__(self, ref):
        total, n = 0.0, 0
        for srcs, ids, valid, lf in self.batches:
            lq = torch.log_softmax(self._hidden(ref, srcs, ids, valid), -1)
            total += float((lf.exp() * (lf - lq)).sum())
            n += lf.shape[0]
        return total / max(n, 1)


def scaled_range(qp, factor, input_scale, weight_scales):
    """qp's range [lo, hi] times factor (XNNPACK's limit respected)."""
    lo = qp.scale * (-128 - qp.zero_point)
    hi = qp.scale * (127 - qp.zero_point)
    new = qparams_for_range(lo * factor, hi * factor)
    return ir.QuantParams(respect_requant_limit(input_scale, weight_scales, new.scale), new.zero_point)


@torch.no_grad()
def tune_output_ranges(qmodel, float_model, reports, sources, targets, progress=None):
    """Returns (tuned copy of qmodel, [(name, factor)], kl before, kl after)."""
    relu = qmodel.config.activation == ir.ACT_RELU
    # not the projection (its range only picks candidates) nor a fused ReLU
    # output (the down Linear reads it with the same parameters)
    names = [r.name for r in reports
             if not r.kept_float and r.error is not None and r.error > TUNE_ERROR
             and r.name != "decoder.output_projection" and not (relu and r.name.endswith("feed_forward.up"))]
    if not names:
        return qmodel, [], None, None
    per_sentence = max(1, sum(len(t) + 1 for t in targets) // max(len(targets), 1))
    n = min(MAX_SENTENCES, len(sources),
            max(1, MAX_LOGIT_VALUES // (per_sentence * qmodel.config.target_vocab_size)))
    pick = [round(i * (len(sources) - 1) / max(n - 1, 1)) for i in range(n)]
    kl = _KL(float_model, [sources[i] for i in pick], [targets[i] for i in pick])
    tuned = copy.deepcopy(qmodel)
    linears = dict(tuned.named_linears())
    ref = ReferenceModel(tuned)
    before = best = kl(ref)
    chosen = []
    for name in names:
        lin = linears[name]
        weight = tuned.linear_weight(lin)
        original = lin.output_quant
        best_factor = 1.0
        for factor in FACTORS:
            lin.output_quant = scaled_range(original, factor, lin.input_quant.scale, weight.scales)
            ref.ops[name] = make_linear(weight, lin)
            value = kl(ref)
            if value < best:
                best, best_factor = value, factor
        if best_factor == 1.0:
            lin.output_quant = original
        else:
            lin.output_quant = scaled_range(original, best_factor, lin.input_quant.scale, weight.scales)
        ref.ops[name] = make_linear(weight, lin)
        chosen.append((name, best_factor))
        if progress:
            progress(1)
    return tuned, chosen, before, best
