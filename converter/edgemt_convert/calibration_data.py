"""Where calibration inputs come from: text, id files or random ids.

  --calibration FILE       source sentences, one per line (needs the tokenizer)
  --calibration-ids FILE   encoder inputs as space-separated ids, one per line
                           (used verbatim, like --input-ids of edgemt-reference)
  neither                  deterministic random id sequences (for random
                           checkpoints; a trained model should get real text)

--calibration-size N picks N lines spread evenly over the file (a file is
often sorted or grouped, so its head is not a fair sample).
"""
import numpy as np

from .decode import source_ids
from .errors import ConversionError

DEFAULT_TEXT_LINES = 256
DEFAULT_RANDOM_SEQUENCES = 64
RANDOM_SEED = 20240601
RANDOM_LENGTHS = (3, 30)          # spm ids per random sequence, before eos


def _read_lines(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            lines = [l.rstrip("\n") for l in f]
    except OSError as e:
        raise ConversionError("%s: cannot read %s (%s)" % (path, what, e.strerror or e))
    except UnicodeDecodeError:
        raise ConversionError("%s: %s is not UTF-8 text" % (path, what))
    lines = [l for l in lines if l.strip()]
    if not lines:
        raise ConversionError("%s: %s has no non-empty lines" % (path, what))
    return lines


def _spread(lines, n):
    if n >= len(lines):
        return lines
    idx = np.linspace(0, len(lines) - 1, n).round().astype(int)
    return [lines[i] for i in idx]


def parse_id_line(line, vocab_size, where):
    try:
        ids = [int(t) for t in line.split()]
    except ValueError:
        raise ConversionError("%s: not a list of integer ids" % where)
    bad = [i for i in ids if not 0 <= i < vocab_size]
    if bad:
        raise ConversionError("%s: id %d is outside the source vocabulary (size %d)" % (where, bad[0], vocab_size))
    return ids


def random_sources(config, n, seed=RANDOM_SEED):
    """n deterministic random encoder inputs: ids drawn uniformly from the
    vocabulary minus pad/unk/bos/eos, lengths uniform in RANDOM_LENGTHS, + eos."""
    rng = np.random.default_rng(seed)
    special = {config.pad_id, config.unk_id, config.bos_id, config.eos_id}
    pool = np.array([i for i in range(config.source_vocab_size) if i not in special])
    hi = min(RANDOM_LENGTHS[1], config.max_positions - 1)
    out = []
    for _ in range(n):
        length = int(rng.integers(min(RANDOM_LENGTHS[0], hi), hi + 1))
        out.append([int(i) for i in rng.choice(pool, size=length)] + [config.eos_id])
    return out


def calibration_sources(model, text_path=None, ids_path=None, size=None, sp=None):
    """(list of encoder inputs, one-line description for the summary)."""
    c = model.config
    if text_path and ids_path:
        raise ConversionError("give --calibration or --calibration-ids, not both")
    if text_path:
        if sp is None:
            raise ConversionError("--calibration needs a tokenizer (config.json has none); use --calibration-ids")
        lines = _read_lines(text_path, "calibration text")
        picked = _spread(lines, size or DEFAULT_TEXT_LINES)
        srcs = [source_ids(sp, l, c.max_positions, c.eos_id) for l in picked]
        return srcs, "%d of %d lines of %s" % (len(srcs), len(lines), text_path)
    if ids_path:
        lines = _read_lines(ids_path, "calibration ids")
        picked = _spread(list(enumerate(lines, 1)), size or DEFAULT_TEXT_LINES)
        srcs = [parse_id_line(l, c.source_vocab_size, "%s:%d" % (ids_path, n))[: c.max_positions]
                for n, l in picked]
        return srcs, "%d of %d id lines of %s" % (len(srcs), len(lines), ids_path)
    n = size or DEFAULT_RANDOM_SEQUENCES
    return random_sources(c, n), "%d random token-id sequences (seed %d, %d-%d ids + eos)" % (
        n, RANDOM_SEED, RANDOM_LENGTHS[0], RANDOM_LENGTHS[1])
