"""The Shortlist table's rules (schema/edgemt.fbs, format 2.5), checked
before a file is written and after one is read: every id a target id,
frequent ascending and each once, source_vocab_size + 1 offsets from 0 to
the candidates' length, non-decreasing, and each source id's range of
candidates ascending with each id once."""
import numpy as np

from ..errors import ConversionError
from . import model_ir as ir

_INT32_MAX = np.iinfo(np.int32).max
_UINT32_MAX = np.iinfo(np.uint32).max
MOST_PADDING = 64  # the runtime's bound (shortlist_reader.cc)


def _integers(values, name):
    a = np.asarray(values)
    if a.ndim != 1:
        raise ConversionError("shortlist: %s must be a list of ids (got shape %s)" % (name, list(a.shape)))
    if a.size and a.dtype.kind not in "iu":
        raise ConversionError("shortlist: %s must hold integers (got %s)" % (name, a.dtype))
    return a.astype(np.int64)


def _check_ids(ids, name, vocab_size):
    bad = np.flatnonzero((ids < 0) | (ids >= vocab_size))
    if bad.size:
        raise ConversionError("shortlist: %s[%d] is %d, not a target id (the target vocabulary has %d)"
                              % (name, bad[0], ids[bad[0]], vocab_size))


def _check_offsets(offsets, n_candidates, source_vocab_size):
    if offsets.size != source_vocab_size + 1:
        raise ConversionError("shortlist: %d offsets for %d source ids (expected source_vocab_size + 1 = %d)"
                              % (offsets.size, source_vocab_size, source_vocab_size + 1))
    if offsets[0] != 0 or offsets[-1] != n_candidates:
        raise ConversionError("shortlist: the offsets must run from 0 to the %d candidates (they run from %d to %d)"
                              % (n_candidates, offsets[0], offsets[-1]))
    down = np.flatnonzero(np.diff(offsets) < 0)
    if down.size:
        i = down[0]
        raise ConversionError("shortlist: the offsets decrease at source id %d (%d, then %d)"
                              % (i, offsets[i], offsets[i + 1]))
    if n_candidates > _UINT32_MAX:
        raise ConversionError("shortlist: %d candidates do not fit uint32 offsets" % n_candidates)


def _check_ranges(candidates, offsets):
    """Ascending, each id once, within every source id's range."""
    if candidates.size < 2:
        return
    steps = np.diff(candidates) <= 0
    # a step from the last candidate of one range to the first of the next is no step
    starts = offsets[1:-1]
    starts = starts[(starts > 0) & (starts < candidates.size)]
    steps[starts - 1] = False
    bad = np.flatnonzero(steps)
    if bad.size:
        j = bad[0] + 1
        source = int(np.searchsorted(offsets, j, side="right") - 1)
        what = "repeated" if candidates[j] == candidates[j - 1] else "not ascending"
        raise ConversionError("shortlist: source id %d's candidates are %s (%d after %d)"
                              % (source, what, candidates[j], candidates[j - 1]))


def output_sums(model):
    """Format 2.7: (the output projection's rows summed over the vocabulary as
    float32 [d_model], its bias summed as a float), the rows as the runtime
    reads them (int8 and int4 dequantized). With them the runtime estimates
    the probability of the ids a shortlist leaves out (docs/shortlist.md)."""
    weight = model.output_weight()
    rows = weight.data.shape[0]
    total = np.zeros(weight.data.shape[1], dtype=np.float64)
    chunk = 4096  # a 58,101-row projection never dequantized whole
    for start in range(0, rows, chunk):
        part = ir.Tensor(data=weight.data[start:start + chunk],
                         scales=None if weight.scales is None else weight.scales[start:start + chunk],
                         block_size=weight.block_size)
        total += part.dequantize().sum(axis=0, dtype=np.float64)
    bias = model.decoder.output_projection.bias
    bias_sum = 0.0 if bias is None else float(np.asarray(bias, dtype=np.float64).sum())
    return total.astype(np.float32), bias_sum


def validate(shortlist, config):
    """ir.Shortlist with the file's types (int32, uint32, int32 arrays, str)
    after checking every rule against the model's config; ConversionError
    naming the first rule broken."""
    frequent = _integers(shortlist.frequent, "frequent")
    offsets = _integers(shortlist.offsets, "offsets")
    candidates = _integers(shortlist.candidates, "candidates")
    if not isinstance(shortlist.description, str):
        raise ConversionError("shortlist: the description must be a string")
    target_vocab_size = config.target_vocab_size
    if target_vocab_size - 1 > _INT32_MAX:
        raise ConversionError("shortlist: a target vocabulary of %d does not fit int32 ids" % target_vocab_size)
    _check_ids(frequent, "frequent", target_vocab_size)
    if frequent.size > 1 and np.any(np.diff(frequent) <= 0):
        raise ConversionError("shortlist: the frequent ids must be ascending, each once")
    _check_ids(candidates, "candidates", target_vocab_size)
    _check_offsets(offsets, candidates.size, config.source_vocab_size)
    _check_ranges(candidates, offsets)
    pad_multiple, pad_from, pad_uncounted = (int(v) for v in (shortlist.pad_multiple, shortlist.pad_from,
                                                                shortlist.pad_uncounted))
    if not 0 <= pad_multiple <= MOST_PADDING:
        raise ConversionError("shortlist: padding to a multiple of %d ids (0 to %d are read)"
                              % (pad_multiple, MOST_PADDING))
    if not 0 <= pad_from <= target_vocab_size:
        raise ConversionError("shortlist: padding from id %d, outside the target vocabulary of %d"
                              % (pad_from, target_vocab_size))
    if not 0 <= pad_uncounted < MOST_PADDING:
        raise ConversionError("shortlist: %d unlisted ids counted toward the padding (at most %d)"
                              % (pad_uncounted, MOST_PADDING - 1))
    return ir.Shortlist(frequent=frequent.astype(np.int32), offsets=offsets.astype(np.uint32),
                        candidates=candidates.astype(np.int32), description=shortlist.description,
                        pad_multiple=pad_multiple, pad_from=pad_from, pad_uncounted=pad_uncounted)
