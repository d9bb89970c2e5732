"""Comparing translations: identical lines, token agreement, output tokens, BLEU."""
import os
import re

from .paths import DEV_DE, MULTI30K, PYTHON
from .processes import run_child


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def same_lines(tested, reference):
    """(lines of `tested` identical to the same line of `reference`, lines of `tested`)."""
    x, y = read_lines(tested), read_lines(reference)
    return sum(1 for a, b in zip(x, y) if a == b), len(x)


def count_tokens(path):
    """Space-separated tokens (ids or pieces) in a file."""
    return sum(len(line.split()) for line in read_lines(path))


def _common_prefix(a, b):
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k


def token_agreement(a, b, limit):
    """Agreement of two files of greedy outputs (ids) on their first `limit` lines: identical sentences, the
    share of positions with the same token, and the mean common prefix (what greedy decoding shares)."""
    x = [line.split() for line in read_lines(a)][:limit]
    y = [line.split() for line in read_lines(b)][:limit]
    n = min(len(x), len(y))
    total = sum(max(len(x[i]), len(y[i])) for i in range(n))
    equal = sum(sum(1 for p, q in zip(x[i], y[i]) if p == q) for i in range(n))
    prefix = [_common_prefix(x[i], y[i]) for i in range(n)]
    return dict(sentences=n, identical_sentences=sum(1 for i in range(n) if x[i] == y[i]),
                position_agreement=round(equal / total, 4) if total else None,
                mean_common_prefix=round(sum(prefix) / n, 2) if n else None)


def bleu(hypothesis, reference=DEV_DE):
    """The Multi30k model's bleu.py on a file of translations: dict(bleu, line)."""
    r = run_child([PYTHON, os.path.join(MULTI30K, "bleu.py"), hypothesis, reference])
    line = r["out"].strip().splitlines()[-1] if r["out"].strip() else ""
    m = re.search(r"BLEU = ([0-9.]+)", line)
    return dict(bleu=float(m.group(1)) if m else None, line=line)
