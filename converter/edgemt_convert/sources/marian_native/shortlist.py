"""A Bergamot binary shortlist (lex.*.s2t.bin, gzip'd or not) for a Marian
model, with the selection Bergamot makes (marian-dev's
BinaryShortlistGenerator::generate): the target ids below firstNum, the list
of every source id of the sentence, </s>'s included (Marian ends every
source with it), and, with one vocabulary file for both sides, the source
ids themselves. The file's layout, checksum and sizes are checked by
shortlist/bergamot.py.

In EdgeMT's table (docs/shortlist.md): the frequent ids are the ids below
firstNum, </s>'s list and </s>; each source id's candidates are its list
(and itself with one vocabulary), the frequent ids and the banned <unk> left
out. Marian's padding of the set with the next unused ids to a multiple of 8
(for its int8 GEMM) is not reproduced.
"""
import os

import numpy as np

from ...errors import ConversionError
from ...format import model_ir as ir
from ...shortlist.bergamot import parse
from .model_file import file_bytes


def read_shortlist(path, model, shared, shipped=True):
    """(model_ir.Shortlist, notes) of a binary shortlist for the model; shared:
    one vocabulary file for both sides (Bergamot then adds the source ids);
    shipped: found beside the model (else given with --shortlist-bergamot)."""
    name = os.path.basename(path)
    data, _ = file_bytes(path, name)
    first, best, offsets, lists = parse(data, name)
    c = model.config
    n_src, n_trg = c.source_vocab_size, c.target_vocab_size
    if offsets.size - 1 != n_src:
        raise ConversionError("%s: a shortlist for %d source ids, the model has %d: it was made for another "
                              "vocabulary" % (name, offsets.size - 1, n_src))
    if lists.size and lists.max() >= n_trg:
        raise ConversionError("%s: target id %d is beyond the model's target vocabulary of %d: the shortlist was made "
                              "for another vocabulary" % (name, lists.max(), n_trg))
    banned = np.asarray(sorted(set(c.banned_ids or [])), dtype=np.int64)
    eos = c.eos_id
    frequent = np.union1d(np.arange(min(first, n_trg)), lists[offsets[eos]:offsets[eos + 1]])
    frequent = np.setdiff1d(np.union1d(frequent, [eos]), banned)
    counts = np.diff(offsets)
    src, tgt = np.repeat(np.arange(n_src), counts), lists
    if shared:
        ids = np.arange(min(n_src, n_trg))
        src, tgt = np.concatenate([src, ids]), np.concatenate([tgt, ids])
    keep = ~np.isin(tgt, frequent) & ~np.isin(tgt, banned)
    keys = np.unique(src[keep] * n_trg + tgt[keep])
    src, tgt = keys // n_trg, keys % n_trg
    out_offsets = np.zeros(n_src + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n_src), out=out_offsets[1:])
    description = ("Bergamot binary shortlist %s (Bergamot's selection): the first %d target ids, at most %d per "
                   "source id, </s>'s list%s" % (name, first, best, ", each source id itself (one vocabulary)"
                                                 if shared else ""))
    notes = ["%s: %s, imported with Bergamot's selection; Marian's padding of each set to a multiple of 8 ids is "
             "not reproduced" % (name, "the shortlist beside the model (--no-shortlist leaves it out)" if shipped
                                 else "a Bergamot shortlist")]
    shortlist = ir.Shortlist(frequent=frequent.astype(np.int32), offsets=out_offsets.astype(np.uint32),
                             candidates=tgt.astype(np.int32), description=description)
    return shortlist, notes
