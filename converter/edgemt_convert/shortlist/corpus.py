"""A parallel corpus (two UTF-8 text files, one sentence per line, line i of
one the translation of line i of the other) as model ids: each side
tokenized by the model's own tokenizer (vocab.Vocabularies), special and
control tokens left out, all sentences in one flat array per side."""
import os
from dataclasses import dataclass

import numpy as np

from ..errors import ConversionError, read_bytes


@dataclass
class Corpus:
    source: np.ndarray          # int64: every sentence's source ids, one after the other
    source_lengths: np.ndarray  # int64 per sentence pair
    target: np.ndarray
    target_lengths: np.ndarray
    pairs: int                  # sentence pairs used (both sides non-empty)
    skipped: int                # pairs left out: a side empty (or only special tokens)
    names: tuple                # the two files' base names


def _lines(path):
    data = read_bytes(path, what="cannot read the shortlist corpus")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise ConversionError("%s: line %d is not UTF-8 (the shortlist corpus must be UTF-8 text)" % (path, line))
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [l[:-1] if l.endswith("\r") else l for l in lines]


def _flat(sentences, ordinary):
    ids = np.fromiter((i for s in sentences for i in s), dtype=np.int64, count=sum(len(s) for s in sentences))
    lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
    keep = ordinary[ids]
    sentence = np.repeat(np.arange(len(sentences)), lengths)
    return ids[keep], np.bincount(sentence[keep], minlength=len(sentences)).astype(np.int64)


def read_corpus(source_path, target_path, vocab):
    """The Corpus of two aligned files, tokenized into the model's ids."""
    src_lines, tgt_lines = _lines(source_path), _lines(target_path)
    if len(src_lines) != len(tgt_lines):
        raise ConversionError("the shortlist corpus is not aligned: %s has %d lines, %s has %d"
                              % (source_path, len(src_lines), target_path, len(tgt_lines)))
    if not src_lines:
        raise ConversionError("the shortlist corpus %s is empty" % source_path)
    src, src_len = _flat([vocab.encode_source(l) for l in src_lines], vocab.source_ordinary)
    tgt, tgt_len = _flat([vocab.encode_target(l) for l in tgt_lines], vocab.target_ordinary)
    used = (src_len > 0) & (tgt_len > 0)
    if not used.any():
        raise ConversionError("the shortlist corpus %s / %s has no pair of non-empty lines"
                              % (source_path, target_path))
    src = src[np.repeat(used, src_len)]
    tgt = tgt[np.repeat(used, tgt_len)]
    return Corpus(source=src, source_lengths=src_len[used], target=tgt, target_lengths=tgt_len[used],
                  pairs=int(used.sum()), skipped=int((~used).sum()),
                  names=(os.path.basename(source_path), os.path.basename(target_path)))
