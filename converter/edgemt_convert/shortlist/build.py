"""A shortlist learned from a parallel corpus (docs/shortlist.md):

  candidates of a source id   its k most probable target ids under IBM
                              Model 1 (ibm1.py), those with t(e | f) >=
                              min_prob, plus the target id of the same
                              string when the source token is an ordinary
                              token of both vocabularies (names, numbers)
  frequent                    the corpus's n most frequent target ids, and eos

A source id the corpus never has gets no IBM candidates (its copy only):
the frequent ids cover it.
"""
import time
from dataclasses import dataclass

import numpy as np

from ..errors import ConversionError
from . import ibm1
from .corpus import read_corpus
from .table import from_pairs

DEFAULT_K = 50
DEFAULT_FREQUENT = 100
DEFAULT_ITERATIONS = 5
DEFAULT_MIN_PROB = 1e-4


@dataclass
class Built:
    shortlist: object       # model_ir.Shortlist
    seconds: float          # reading, tokenizing, training and selecting
    notes: list


def most_frequent(target, target_size, n, ordinary):
    """The n most frequent ordinary target ids of the corpus (ties: the lower id)."""
    counts = np.bincount(target, minlength=target_size)
    counts[~ordinary] = 0
    order = np.lexsort((np.arange(target_size), -counts))[:n]
    return order[counts[order] > 0]


def check_settings(k, frequent, iterations, min_prob):
    for name, value, least in (("--shortlist-k", k, 1), ("--shortlist-frequent", frequent, 0),
                               ("--shortlist-iterations", iterations, 1)):
        if not isinstance(value, int) or value < least:
            raise ConversionError("%s must be an integer >= %d (got %r)" % (name, least, value))
    if not 0 <= min_prob < 1:
        raise ConversionError("the shortlist's probability floor must be in [0, 1) (got %r)" % min_prob)


def build_from_corpus(vocab, source_path, target_path, k=DEFAULT_K, frequent=DEFAULT_FREQUENT,
                      iterations=DEFAULT_ITERATIONS, min_prob=DEFAULT_MIN_PROB):
    """Built: the shortlist of a parallel corpus for the model of `vocab`."""
    check_settings(k, frequent, iterations, min_prob)
    t0 = time.perf_counter()
    corpus = read_corpus(source_path, target_path, vocab)
    table = ibm1.train(corpus, vocab.source_size, vocab.target_size, iterations)
    src, tgt = ibm1.best(table, k, min_prob)
    copy_src, copy_tgt = vocab.copies()
    common = most_frequent(corpus.target, vocab.target_size, frequent, vocab.target_ordinary)
    description = ("IBM model 1 on %s/%s (%s sentence pairs), %d iterations, at most %d per source id with "
                   "t(e|f) >= %g, %d frequent, %s copies"
                   % (corpus.names[0], corpus.names[1], format(corpus.pairs, ","), iterations, k, min_prob,
                      frequent, format(copy_src.size, ",")))
    shortlist = from_pairs(np.concatenate([src, copy_src]), np.concatenate([tgt, copy_tgt]), common, vocab,
                           description)
    notes = []
    if corpus.skipped:
        notes.append("shortlist corpus: %d line pairs left out (a side empty)" % corpus.skipped)
    seen = np.zeros(vocab.source_size, dtype=bool)
    seen[corpus.source] = True
    notes.append("shortlist corpus: %s of %s source ids and %s target ids occur"
                 % (format(int(seen.sum()), ","), format(vocab.source_size, ","),
                    format(int(np.unique(corpus.target).size), ",")))
    return Built(shortlist=shortlist, seconds=time.perf_counter() - t0, notes=notes)
