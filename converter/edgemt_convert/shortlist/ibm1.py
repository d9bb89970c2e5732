"""IBM Model 1 (Brown et al. 1993): the translation probabilities t(e | f)
of target ids e given source ids f, with a NULL source word in every
sentence, estimated by EM from a parallel corpus.

Only pairs that occur together in some sentence pair have a probability,
so the model is a sparse table over those pairs (never a dense
vocabulary x vocabulary matrix). Every occurrence pair (a source position
and a target position of one sentence pair) points at its table entry;
one EM iteration is then a sum over each target occurrence's pairs (which
are consecutive) and two weighted bincounts:

    denominator(j) = sum over the sentence's source positions i (NULL too) of t(e_j | f_i)
    count(f, e)   += t(e_j | f_i) / denominator(j)     for every occurrence pair
    t(e | f)       = count(f, e) / sum over e' of count(f, e')

The first iteration starts from uniform probabilities, so it counts
co-occurrences. The occurrence pairs (about the sum over sentence pairs of
(source length + 1) x target length: 7.6 million for the Multi30k training
set) are made chunk by chunk of sentences; what stays between iterations is
each pair's table entry (4 bytes), so memory grows by 4 bytes per pair
plus the table (about 1.1 million entries for Multi30k).
"""
from dataclasses import dataclass

import numpy as np

CHUNK_PAIRS = 1 << 22        # occurrence pairs made at a time


@dataclass
class Table:
    """t(e | f) of the co-occurring pairs, sorted by (source, target);
    source == null_id is the NULL word."""
    source: np.ndarray      # int64
    target: np.ndarray      # int64
    prob: np.ndarray        # float64
    null_id: int


def _chunks(corpus, max_pairs):
    """(source, source lengths, target, target lengths) of consecutive
    sentence ranges with about max_pairs occurrence pairs each (a longer
    sentence pair is a chunk of its own)."""
    n = corpus.source_lengths.size
    pairs = np.cumsum((corpus.source_lengths + 1) * corpus.target_lengths)
    cuts = np.searchsorted(pairs, np.arange(max_pairs, pairs[-1], max_pairs), side="left") + 1
    edges = np.unique(np.concatenate([[0], np.minimum(cuts, n), [n]]))
    src_at = np.concatenate([[0], np.cumsum(corpus.source_lengths)])
    tgt_at = np.concatenate([[0], np.cumsum(corpus.target_lengths)])
    for a, b in zip(edges[:-1], edges[1:]):
        yield (corpus.source[src_at[a]:src_at[b]], corpus.source_lengths[a:b],
               corpus.target[tgt_at[a]:tgt_at[b]], corpus.target_lengths[a:b])


def _occurrence_pairs(chunk, null_id, target_size):
    """(table key f * target_size + e of every occurrence pair, pairs per
    target occurrence): the pairs of one target occurrence are consecutive,
    NULL first."""
    source_words, source_lengths, target, target_lengths = chunk
    with_null = source_lengths + 1
    starts = np.cumsum(with_null) - with_null               # where each sentence's NULL sits
    source = np.full(int(with_null.sum()), null_id, dtype=np.int64)
    words = np.ones(source.size, dtype=bool)
    words[starts] = False
    source[words] = source_words
    sentence = np.repeat(np.arange(source_lengths.size), target_lengths)   # of each target occurrence
    per_target = with_null[sentence]
    occurrence = np.repeat(np.arange(sentence.size), per_target)
    first = np.cumsum(per_target) - per_target
    position = np.arange(occurrence.size) - first[occurrence] + starts[sentence][occurrence]
    return source[position] * target_size + target[occurrence], per_target


def _entries(corpus, null_id, target_size):
    """(the table's keys, ascending; per chunk: (each pair's entry, where each
    target occurrence's pairs start, how many))."""
    keys = np.unique(np.concatenate([np.unique(_occurrence_pairs(c, null_id, target_size)[0])
                                     for c in _chunks(corpus, CHUNK_PAIRS)]))
    dtype = np.int32 if keys.size < 2 ** 31 else np.int64
    chunks = []
    for c in _chunks(corpus, CHUNK_PAIRS):
        pair_keys, per_target = _occurrence_pairs(c, null_id, target_size)
        first = np.cumsum(per_target) - per_target
        chunks.append((np.searchsorted(keys, pair_keys).astype(dtype), first, per_target))
    return keys, chunks


def train(corpus, source_size, target_size, iterations=5):
    """The Table after `iterations` EM iterations (source ids < source_size,
    target ids < target_size; NULL is source_size)."""
    null_id = source_size
    keys, chunks = _entries(corpus, null_id, target_size)
    source, target = keys // target_size, keys % target_size
    prob = np.full(keys.size, 1.0 / target_size)
    for _ in range(iterations):
        counts = np.zeros(keys.size)
        for entry, first, per_target in chunks:
            p = prob[entry]
            p /= np.repeat(np.add.reduceat(p, first), per_target)     # over the sentence's source words
            counts += np.bincount(entry, weights=p, minlength=keys.size)
        totals = np.bincount(source, weights=counts, minlength=null_id + 1)
        prob = counts / totals[source]
    return Table(source=source, target=target, prob=prob, null_id=null_id)


def best(table, k, min_prob):
    """(source ids, target ids): for every source id (NULL aside), its k most
    probable target ids (ties: the lower id) with t(e | f) >= min_prob."""
    order = np.lexsort((table.target, -table.prob, table.source))
    source, target, prob = table.source[order], table.target[order], table.prob[order]
    group_start = np.flatnonzero(np.r_[True, source[1:] != source[:-1]])
    sizes = np.diff(np.r_[group_start, source.size])
    rank = np.arange(source.size) - np.repeat(group_start, sizes)
    keep = (rank < k) & (prob >= min_prob) & (source != table.null_id)
    return source[keep], target[keep]
