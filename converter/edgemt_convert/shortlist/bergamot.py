"""Bergamot's binary lexical shortlist (lex.*.bin; marian-dev's
BinaryShortlistGenerator, src/data/shortlist.h and shortlist.cpp of
browsermt/marian-dev), all little-endian:

    header, 6 x uint64    magic 0xF11A48D5013417F5, checksum, firstNum,
                          bestNum, wordToOffsetSize, shortListsSize
    wordToOffset          uint64 x wordToOffsetSize: source id i's targets are
                          shortLists[wordToOffset[i] .. wordToOffset[i + 1])
    shortLists            uint32 x shortListsSize: target ids, ascending per source id

The checksum is marian's util::hashMem over the file from firstNum on, taken
as (size - 16) / 8 uint64 words (a last half word is left out): seed = 0,
then for each word w, seed ^= w + 0x9e3779b9 + (seed << 6) + (seed >> 2)
modulo 2^64 (std::hash of an integer being the integer, as in libstdc++
and libc++).

Marian lets a batch use the firstNum first target ids (a Marian vocabulary
is sorted by frequency), every target id in the lists of its source ids
(</s> ends every source, so its list is always in), and, when source and
target share one vocabulary, the source ids themselves; it then pads the
set to a multiple of eight (for its int8 GEMM) with the lowest ids from
firstNum up that it lacks; the file keeps that rule (format 2.9), so that
a translation may use the ids Bergamot's may.
Its ids are the Marian vocabulary's: those of a Hugging Face Marian model's
vocab.json (the conversion to Hugging Face appends <pad> as a last id,
which no list then covers), or SentencePiece's
for a model whose vocabulary is its .spm. A file whose sizes or ids do not
fit the model is refused.
"""
import os

import numpy as np

from ..errors import ConversionError, file_bytes
from .table import from_pairs

MAGIC = 0xF11A48D5013417F5
HEADER_WORDS = 6
_MASK = (1 << 64) - 1
MARIAN_PADDING = 8  # Marian pads each set to a multiple of 8 ids (src/data/shortlist.cpp)


def checksum(data):
    """marian's util::hashMem<uint64_t, uint64_t> over the bytes after magic and checksum."""
    words = np.frombuffer(data, dtype="<u8", count=(len(data) - 16) // 8, offset=16).tolist()
    seed = 0
    for w in words:
        seed ^= (w + 0x9e3779b9 + (seed << 6) + (seed >> 2)) & _MASK
    return seed


def parse(data, name):
    """(firstNum, bestNum, wordToOffset, shortLists) of a binary shortlist's
    bytes, after checking its magic, size, checksum and offsets."""
    if len(data) < 8 * HEADER_WORDS:
        raise ConversionError("%s: %d bytes, too short for a binary shortlist's header (48 bytes)" % (name, len(data)))
    magic, stored, first, best, n_offsets, n_lists = np.frombuffer(data, dtype="<u8", count=HEADER_WORDS).tolist()
    if magic != MAGIC:
        raise ConversionError("%s: not a Bergamot binary shortlist (no magic number 0x%X); a text lexical table "
                              "must be converted to a binary one first (marian-conv --shortlist)" % (name, MAGIC))
    expected = 8 * HEADER_WORDS + 8 * n_offsets + 4 * n_lists
    if expected != len(data):
        raise ConversionError("%s: its header says %d bytes (%d offsets, %d targets) but the file has %d"
                              % (name, expected, n_offsets, n_lists, len(data)))
    actual = checksum(data)
    if actual != stored:
        raise ConversionError("%s: checksum mismatch (the header says 0x%016X, the content gives 0x%016X): the file is "
                              "damaged" % (name, stored, actual))
    offsets = np.frombuffer(data, dtype="<u8", count=n_offsets, offset=8 * HEADER_WORDS)
    lists = np.frombuffer(data, dtype="<u4", count=n_lists, offset=8 * (HEADER_WORDS + n_offsets))
    if n_offsets < 1 or offsets[0] != 0 or offsets[-1] != n_lists or np.any(np.diff(offsets.astype(np.int64)) < 0):
        raise ConversionError("%s: its offsets do not run from 0 to the %d targets without decreasing"
                              % (name, n_lists))
    return first, best, offsets.astype(np.int64), lists.astype(np.int64)


def _sources(n_offsets, model, vocab, name):
    """The source vocabulary size the file is for, after checking it fits the model."""
    size = n_offsets - 1
    if size == vocab.source_size:
        return size
    c = model.config
    if size == vocab.source_size - 1 and c.pad_id == vocab.source_size - 1:
        return size          # a Hugging Face Marian model: <pad> appended after Marian's ids
    raise ConversionError("%s: a shortlist for %d source ids, the model has %d: a Bergamot shortlist's ids are the "
                          "Marian vocabulary's, which must be the model's (a Hugging Face Marian model's vocab.json)"
                          % (name, size, vocab.source_size))


def read_bergamot(path, model, vocab, shared=None, shipped=False):
    """(model_ir.Shortlist, notes) of a Bergamot binary shortlist (gzip'd or
    not) for the model of `vocab` (vocab.Vocabularies), with the selection
    Bergamot makes for a source (BinaryShortlistGenerator::generate): the
    first firstNum target ids, the lists of its ids, </s>'s included (Marian
    and Hugging Face's Marian end every source with it), and with one
    vocabulary for both sides the source ids themselves. shared: whether
    there is one vocabulary (default: both sides' tokens are the same);
    shipped: found beside the model (else given with --shortlist-bergamot)."""
    name = os.path.basename(path)
    data, _ = file_bytes(path, name, what="cannot read the shortlist")
    first, best, offsets, lists = parse(data, name)
    size = _sources(offsets.size, model, vocab, name)
    if lists.size and lists.max() >= vocab.target_size:
        raise ConversionError("%s: target id %d is beyond the model's target vocabulary of %d: the shortlist was made "
                              "for another vocabulary" % (name, lists.max(), vocab.target_size))
    shared = vocab.shared if shared is None else shared
    counts = np.diff(offsets)
    src, tgt = np.repeat(np.arange(size), counts), lists
    eos = vocab.eos_id
    frequent = np.arange(min(first, vocab.target_size))
    if eos < size:
        frequent = np.union1d(frequent, lists[offsets[eos]:offsets[eos + 1]])
    notes = []
    if shared:
        ids = np.arange(min(vocab.source_size, vocab.target_size))
        src, tgt = np.concatenate([src, ids]), np.concatenate([tgt, ids])
        notes.append("%s: one vocabulary for both sides, so each source id is also its own candidate (as Bergamot)"
                     % name)
    keep = ~np.isin(tgt, frequent)  # the frequent ids are every source's already
    description = ("Bergamot binary shortlist %s (Bergamot's selection): the first %d target ids, at most %d per "
                   "source id, </s>'s list%s" % (name, first, best, ", each source id itself (one vocabulary)"
                                                 if shared else ""))
    notes.append("%s: %s, imported with Bergamot's selection, each set padded to a multiple of %d ids as Marian's; "
                 "pad, <s> and <unk> are never candidates"
                 % (name, "the shortlist beside the model (--no-shortlist leaves it out)" if shipped
                    else "a Bergamot shortlist", MARIAN_PADDING))
    shortlist = from_pairs(src[keep], tgt[keep], frequent, vocab, description, every_source=True)
    _pad_as_marian(shortlist, first, vocab)
    return shortlist, notes


def _pad_as_marian(shortlist, first, vocab):
    """Marian completes each set with the lowest ids from firstNum up that it lacks until it has a multiple
    of 8 (for intgemm's columns). Its set has every id below firstNum; ours leaves out the ones that are never
    candidates (<unk>), which still count toward Marian's multiple."""
    first = min(first, vocab.target_size)
    shortlist.pad_multiple = MARIAN_PADDING
    shortlist.pad_from = first
    shortlist.pad_uncounted = first - int(np.count_nonzero(shortlist.frequent < first))
