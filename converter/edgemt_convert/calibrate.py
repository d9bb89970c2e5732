"""Activation statistics from the float model and the choice of int8 ranges.

1. The float model greedy-decodes the calibration sources (decoder inputs at
   inference are the model's own outputs, so that is what the decoder is
   calibrated on).
2. A teacher-forced pass over (source, <s> + own output) records, for every
   Linear, the exact min/max of its input and output and a uniform random
   sample of its input rows (reservoir with seeded keys, so runs repeat).
3. Ranges are chosen per tensor by searching clipping points that minimise
   the quantization error on the sample (see search_range); raw min/max is
   kept where it is as good.
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np
import torch

from .decode import max_steps


SAMPLE_ROWS = 1024           # rows (positions) kept per Linear


def _row_keys(index):
    """Reservoir keys from a row's position in its stream (a multiplicative
    hash): every Linear of a stream sees the same rows in the same order, so
    they all keep the same sample and samples of different Linears align
    (the residual-aware search needs the residual rows of the same positions)."""
    return ((index * 2654435761) % (1 << 32)).to(torch.float64) / float(1 << 32)


@dataclass
class LinearStats:
    in_min: float = float("inf")
    in_max: float = float("-inf")
    out_min: float = float("inf")
    out_max: float = float("-inf")
    rows: Optional[torch.Tensor] = None       # sampled input rows [n, in], by stream position
    index: Optional[torch.Tensor] = None      # their stream positions
    count: int = 0                            # rows seen
    row_max: List[torch.Tensor] = field(default_factory=list)   # projection only: max logit per row


class Recorder:
    """ReferenceModel recorder: exact ranges + a row sample per Linear."""

    def __init__(self, sample_rows=SAMPLE_ROWS):
        self.stats: Dict[str, LinearStats] = {}
        self.sample_rows = sample_rows

    def __call__(self, name, x, y, valid):
        x = x[valid]
        y = y[valid]
        if x.shape[0] == 0:
            return
        st = self.stats.setdefault(name, LinearStats())
        st.in_min = min(st.in_min, float(x.min()))
        st.in_max = max(st.in_max, float(x.max()))
        st.out_min = min(st.out_min, float(y.min()))
        st.out_max = max(st.out_max, float(y.max()))
        if name == "decoder.output_projection":
            st.row_max.append(y.max(dim=-1).values)
        index = torch.arange(st.count, st.count + x.shape[0])
        st.count += x.shape[0]
        if st.rows is not None:
            x = torch.cat([st.rows, x])
            index = torch.cat([st.index, index])
        if x.shape[0] > self.sample_rows:
            keep = torch.topk(_row_keys(index), self.sample_rows, largest=False).indices.sort().values
            x, index = x[keep], index[keep]
        st.rows, st.index = x.clone(), index


def decoder_inputs(source, output, bos, max_positions):
    """What the decoder was fed while greedy decoding produced `output`:
    <s> + output, without the last token when decoding stopped at the step
    limit instead of at </s> (that token was never fed back)."""
    steps = len(output) + 1 if len(output) < max_steps(len(source), max_positions) else len(output)
    return ([bos] + output)[:steps]


def teacher_forced_batches(sources, targets, bos, batch_size, max_positions):
    """Batches of (sources, decoder inputs [B, T], valid [B, T])."""
    order = sorted(range(len(sources)), key=lambda i: (len(sources[i]), len(targets[i])))
    for k in range(0, len(order), batch_size):
        idx = order[k:k + batch_size]
        tin = [decoder_inputs(sources[i], targets[i], bos, max_positions) for i in idx]
        T = max(len(t) for t in tin)
        ids = torch.zeros(len(idx), T, dtype=torch.long)
        valid = torch.zeros(len(idx), T, dtype=torch.bool)
        for r, t in enumerate(tin):
            ids[r, :len(t)] = torch.tensor(t)
            valid[r, :len(t)] = True
        yield [sources[i] for i in idx], ids, valid


@torch.no_grad()
def record(ref_factory, sources, targets, bos, batch_size=32, progress=None):
    """Runs the teacher-forced pass; returns {linear name: LinearStats}."""
    rec = Recorder()
    ref = ref_factory(rec)
    batches = teacher_forced_batches(sources, targets, bos, batch_size, ref.config.max_positions)
    for srcs, ids, valid in batches:
        memory, src_valid = ref.encode(srcs)
        state = ref.start_decoder(memory, src_valid)
        h = ref.decode(state, ids, valid)
        ref.project(h, valid)
        if progress is not None:
            progress(len(srcs))
    return rec.stats


# ---------------------------------------------------------------- range search
#
# The error of a candidate range is computed from a weighted histogram of
# the sampled values (HIST_BINS bins over the exact [min, max]): each bin's
# weight sits at its centre, so one candidate costs O(bins) instead of a pass
# over the sample.

HIST_BINS = 2048
_QUANTILES = (0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9995, 0.9999, 0.99999, 1.0)
_FRACTIONS = tuple(np.linspace(0.2, 1.0, 17))


@dataclass
class RangeChoice:
    lo: float
    hi: float
    method: str           # "minmax", "search" (clipped) or "row-max" (logits)
    error: float          # estimated weighted MSE of the chosen range
    minmax_error: float   # the same for the raw [min, max]


def _histogram(values, lo, hi, weights):
    """(bin centres, bin weights) of values [n, C]; per-channel weights [C]."""
    v = values.reshape(-1, values.shape[-1]).to(torch.float64)
    width = (hi - lo) / HIST_BINS
    idx = ((v - lo) / width).floor().clamp_(0, HIST_BINS - 1).long()
    w = torch.ones_like(v) if weights is None else weights.to(torch.float64).expand_as(v)
    hist = torch.zeros(HIST_BINS, dtype=torch.float64).scatter_add_(0, idx.flatten(), w.flatten())
    centres = lo + (torch.arange(HIST_BINS, dtype=torch.float64) + 0.5) * width
    return centres, hist


def _clip_points(centres, hist, extreme, upper):
    """Candidate clip points for one end: quantiles of that side's mass
    and fractions of its exact extreme."""
    if extreme == 0.0:
        return [0.0]
    side = centres > 0 if upper else centres < 0
    mass = hist[side]
    pos = centres[side].abs()
    if not upper:
        mass, pos = mass.flip(0), pos.flip(0)
    pts = [extreme * f for f in _FRACTIONS]
    total = float(mass.sum())
    if total > 0:
        cdf = torch.cumsum(mass, 0) / total
        for q in _QUANTILES:
            k = int(torch.searchsorted(cdf, torch.tensor([q], dtype=torch.float64)).clamp(max=len(pos) - 1))
            pts.append(float(pos[k]))
        # between the bulk and a far extreme, a geometric grid
        start = pts[len(_FRACTIONS) + _QUANTILES.index(0.999)]
        if 0 < start < extreme:
            pts += list(np.geomspace(start, extreme, 24))
    pts = sorted({min(p, extreme) for p in pts if p > 0})
    return pts or [extreme]


def _errors(centres, hist, ranges, relu):
    """Estimated weighted MSE of each (lo, hi) in `ranges`: tensor [len(ranges)]."""
    r = torch.tensor(ranges, dtype=torch.float64)
    lo, hi = r[:, :1], r[:, 1:]
    scale = ((hi - lo) / 255.0).clamp_min(1e-12)
    zp = torch.full_like(lo, -128.0) if relu else torch.round(-128.0 - lo / scale).clamp(-128, 127)
    c = centres[None, :]
    q = torch.clamp(torch.round(c / scale) + zp, -128, 127)
    err = (c - (q - zp) * scale).pow_(2)
    return torch.mv(err, hist) / hist.sum().clamp_min(1e-300)


def search_range(values, exact_lo, exact_hi, weights=None, relu=False):
    """Chooses [lo, hi] for the values [n, C] (a sample of one tensor):
    coordinate search over candidate clip points (upper end, lower end, upper
    end again), keeping the lowest (channel-weighted) quantization MSE.
    relu: the tensor is a fused ReLU output, lo = 0 and zero point -128."""
    lo0 = 0.0 if relu else min(float(exact_lo), 0.0)
    hi0 = max(float(exact_hi), 0.0)
    if hi0 - lo0 <= 0:
        return RangeChoice(lo=lo0, hi=hi0, method="minmax", error=0.0, minmax_error=0.0)
    centres, hist = _histogram(values, lo0, hi0, weights)
    his = _clip_points(centres, hist, hi0, upper=True)
    los = [0.0] if relu or lo0 == 0.0 else [-p for p in _clip_points(centres, hist, -lo0, upper=False)]
    base = float(_errors(centres, hist, [(lo0, hi0)], relu)[0])
    lo, hi, best = lo0, hi0, base
    for end in ("hi", "lo", "hi"):
        trials = [(lo, h) for h in his] if end == "hi" else [(l, hi) for l in los]
        errs = _errors(centres, hist, trials, relu)
        k = int(torch.argmin(errs))
        if float(errs[k]) < best:
            best, (lo, hi) = float(errs[k]), trials[k]
    if best < base:
        return RangeChoice(lo=lo, hi=hi, method="search", error=best, minmax_error=base)
    return RangeChoice(lo=lo0, hi=hi0, method="minmax", error=base, minmax_error=base)


def search_range_residual(y, residual, norm, exact_lo, exact_hi):
    """Output range of a Linear whose output y [n, d] is added to the residual
    [n, d] of the same positions and layer-normed (post-LN): minimises the
    error of LN(residual + y) instead of the error of y. LayerNorm divides by
    each row's spread, so positions with outlier channels tolerate more
    clipping, and a finer step helps everything else."""
    import torch.nn.functional as F
    from .quant import fake_quantize, qparams_for_range
    gamma = torch.as_tensor(norm.gamma)
    beta = torch.as_tensor(norm.beta)

    def ln(x):
        return F.layer_norm(x, (x.shape[-1],), gamma, beta, norm_eps)

    norm_eps = norm.eps
    target = ln(residual + y)

    def err(lo, hi):
        return float((ln(residual + fake_quantize(y, qparams_for_range(lo, hi))) - target).pow(2).mean())

    lo0, hi0 = min(float(exact_lo), 0.0), max(float(exact_hi), 0.0)
    if hi0 - lo0 <= 0:
        return RangeChoice(lo=lo0, hi=hi0, method="minmax", error=0.0, minmax_error=0.0)
    centres, hist = _histogram(y, lo0, hi0, None)
    his = _clip_points(centres, hist, hi0, upper=True)
    los = [0.0] if lo0 == 0.0 else [-p for p in _clip_points(centres, hist, -lo0, upper=False)]
    base = err(lo0, hi0)
    lo, hi, best = lo0, hi0, base
    for end in ("hi", "lo", "hi"):
        for trial in ([(lo, h) for h in his] if end == "hi" else [(l, hi) for l in los]):
            e = err(*trial)
            if e < best:
                best, (lo, hi) = e, trial
    if best < base:
        return RangeChoice(lo=lo, hi=hi, method="search-ln", error=best, minmax_error=base)
    return RangeChoice(lo=lo0, hi=hi0, method="minmax", error=base, minmax_error=base)
