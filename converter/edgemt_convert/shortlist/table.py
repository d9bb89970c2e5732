"""A shortlist as the file holds it (model_ir.Shortlist): made from
(source id, target id) pairs, measured, and applied to a source (the target
ids its translation may use)."""
from dataclasses import dataclass

import numpy as np

from ..format import model_ir as ir


def from_pairs(source, target, frequent, vocab, description, every_source=False):
    """ir.Shortlist from candidate pairs (repeats allowed, any order) and the
    frequent ids. Only ordinary target ids stay (vocab.Vocabularies: never pad,
    bos, unk or eos, which the runtime adds itself), candidates only for
    ordinary source ids unless every_source (Bergamot's lists: a source's <unk>
    brings its own); eos joins the frequent ids."""
    source = np.asarray(source, dtype=np.int64).reshape(-1)
    target = np.asarray(target, dtype=np.int64).reshape(-1)
    keep = vocab.target_ordinary[target]
    if not every_source:
        keep &= vocab.source_ordinary[source]
    keys = np.unique(source[keep] * vocab.target_size + target[keep])
    src, tgt = keys // vocab.target_size, keys % vocab.target_size
    offsets = np.zeros(vocab.source_size + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=vocab.source_size), out=offsets[1:])
    frequent = np.asarray(frequent, dtype=np.int64).reshape(-1)
    frequent = frequent[vocab.target_ordinary[frequent]]
    frequent = np.union1d(frequent, [vocab.eos_id])
    return ir.Shortlist(frequent=frequent.astype(np.int32), offsets=offsets.astype(np.uint32),
                        candidates=tgt.astype(np.int32), description=description)


def pairs(shortlist):
    """(source ids, target ids) of every candidate."""
    offsets = np.asarray(shortlist.offsets, dtype=np.int64)
    counts = np.diff(offsets)
    return np.repeat(np.arange(counts.size), counts), np.asarray(shortlist.candidates, dtype=np.int64)


def allowed(shortlist, source_ids, eos_id, target_size=None):
    """The target ids a translation of source_ids may use, ascending: the
    union of the candidates of its ids, the frequent ids and eos, padded as
    the shortlist says (format 2.9, up to target_size) as the runtime does."""
    offsets = shortlist.offsets
    parts = [np.asarray(shortlist.frequent, dtype=np.int64), np.array([eos_id], dtype=np.int64)]
    for i in set(int(i) for i in source_ids):
        if 0 <= i < len(offsets) - 1:
            parts.append(np.asarray(shortlist.candidates[offsets[i]:offsets[i + 1]], dtype=np.int64))
    ids = np.unique(np.concatenate(parts))
    if shortlist.pad_multiple > 1:
        present = set(ids.tolist())
        next_id, end = shortlist.pad_from, target_size if target_size is not None else np.iinfo(np.int32).max
        while (len(present) + shortlist.pad_uncounted) % shortlist.pad_multiple and next_id < end:
            present.add(next_id)
            next_id += 1
        ids = np.array(sorted(present), dtype=np.int64)
    return ids


@dataclass
class Stats:
    sources: int            # source ids with candidates
    source_vocab_size: int
    mean: float             # candidates per such source id
    max: int
    candidates: int
    frequent: int
    nbytes: int             # the table's arrays and description (the file adds a few dozen bytes)


def stats(shortlist):
    counts = np.diff(np.asarray(shortlist.offsets, dtype=np.int64))
    having = counts[counts > 0]
    nbytes = 4 * (len(shortlist.frequent) + len(shortlist.offsets) + len(shortlist.candidates)) \
        + len(shortlist.description.encode("utf-8"))
    return Stats(sources=int(having.size), source_vocab_size=int(counts.size),
                 mean=float(having.mean()) if having.size else 0.0, max=int(counts.max(initial=0)),
                 candidates=int(counts.sum()), frequent=len(shortlist.frequent), nbytes=nbytes)


def describe(shortlist):
    """The summary's lines about a shortlist."""
    s = stats(shortlist)
    return ["shortlist (format 2.7, docs/shortlist.md): %s" % shortlist.description,
            "shortlist: %d frequent ids; candidates per source id: mean %.1f, max %d (%s of %s source ids have "
            "any, %s candidates); %s bytes"
            % (s.frequent, s.mean, s.max, format(s.sources, ","), format(s.source_vocab_size, ","),
               format(s.candidates, ","), format(s.nbytes, ","))]
