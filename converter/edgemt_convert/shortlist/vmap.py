"""CTranslate2's vocabulary map (the vmap.txt of `--vocab_mapping` and
`use_vmap`), read as CTranslate2 4.x's src/vocabulary_map.cc reads it:
one rule per line,

    src_1 src_2 ... src_N<TAB>tgt_1 tgt_2 ... tgt_K

an N-gram of source tokens and its target tokens, separated by spaces; the
empty N-gram (a line starting with the tab) gives the tokens every
translation may use. A later line for the same N-gram replaces the earlier
one. CTranslate2 always adds <unk>, <s> and </s>, and restricts a batch to
the union of the rules of every N-gram in its sources.

An EdgeMT shortlist maps single source ids, so the import keeps what maps
onto that: the one-token rules whose token is an ordinary source token, the
empty rule as the frequent ids, and the target tokens of the target
vocabulary. It drops (and reports) rules of two or more tokens, the rule of
"<unk>" (in CTranslate2 it only matches a literal "<unk>" in the input,
while the unk id stands for every unknown piece), rules of tokens the
source vocabulary lacks or that are special, and target tokens the target
vocabulary lacks (CTranslate2 turns them into <unk>) or that are special
(pad, <s>, <unk>; </s> is always allowed).

The export writes a shortlist as such a file: the empty rule with the
frequent tokens, then one rule per source id with candidates, in id order.
"""
import numpy as np

from ..errors import ConversionError, read_bytes
from ..outfile import write_atomic
from .table import from_pairs

UNK = "<unk>"


def parse_rules(path):
    """{source N-gram: [target tokens]} of a vmap file, the later line winning."""
    data = read_bytes(path, what="cannot read the vocabulary map")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConversionError("%s: line %d is not UTF-8" % (path, data[:e.start].count(b"\n") + 1))
    rules = {}
    for number, line in enumerate(text.split("\n"), 1):
        if line.endswith("\r"):
            line = line[:-1]
        if not line.strip(" "):
            continue
        if line.count("\t") != 1:
            raise ConversionError("%s: line %d: expected 'source tokens<TAB>target tokens' (one tab), found %d tabs"
                                  % (path, number, line.count("\t")))
        key, values = line.split("\t")
        rules[key] = [t for t in values.split(" ") if t]
    return rules


def _count(n, what):
    return "%d %s%s" % (n, what, "" if n == 1 else "s")


def read_vmap(path, vocab):
    """(model_ir.Shortlist, notes) of a CTranslate2 vocabulary map for the
    model of `vocab` (vocab.Vocabularies)."""
    rules = parse_rules(path)
    frequent_tokens = rules.pop("", [])
    dropped = {"ngram": 0, "unk": 0, "source": 0, "special": 0}
    missing = set()

    def target_ids(tokens):
        out = []
        for t in tokens:
            i = vocab.target_id(t)
            if i is None:
                missing.add(t)
            else:
                out.append(i)
        return out

    src, tgt = [], []
    for key, tokens in rules.items():
        if " " in key:
            dropped["ngram"] += 1
            continue
        if key == UNK:
            dropped["unk"] += 1
            continue
        s = vocab.source_id(key)
        if s is None or not vocab.source_ordinary[s]:
            dropped["source" if s is None else "special"] += 1
            continue
        ids = target_ids(tokens)
        src.extend([s] * len(ids))
        tgt.extend(ids)
    frequent = target_ids(frequent_tokens)
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    shortlist = from_pairs(src, tgt, frequent, vocab, "CTranslate2 vocabulary map %s: %d rules, %d frequent tokens"
                           % (name, len(rules), len(frequent_tokens)))
    notes = []
    parts = [_count(dropped["ngram"], "rule") + " of two or more source tokens"] if dropped["ngram"] else []
    if dropped["unk"]:
        parts.append("the <unk> rule")
    if dropped["source"]:
        parts.append(_count(dropped["source"], "rule") + " whose token the source vocabulary lacks")
    if dropped["special"]:
        parts.append(_count(dropped["special"], "rule") + " of special source tokens")
    if missing:
        parts.append(_count(len(missing), "target token") + " the target vocabulary lacks (e.g. %r)"
                     % sorted(missing)[0])
    if parts:
        notes.append("%s: dropped %s (docs/shortlist.md)" % (name, "; ".join(parts)))
    return shortlist, notes


def _writable(token):
    return token != "" and not any(c in token for c in " \t\n\r")


def vmap_text(shortlist, vocab):
    """(the vmap text of a shortlist, notes on what it cannot hold)."""
    skipped = set()

    def tokens(ids):
        out = []
        for i in ids:
            t = vocab.target_pieces[i]
            if _writable(t):
                out.append(t)
            else:
                skipped.add(t)
        return out

    lines = ["\t" + " ".join(tokens(shortlist.frequent))]
    rules = {}       # a token two source ids share (a vocabulary table may repeat one) gets one rule
    offsets, candidates = np.asarray(shortlist.offsets, dtype=np.int64), np.asarray(shortlist.candidates)
    for s in np.flatnonzero(np.diff(offsets)):
        key = vocab.source_pieces[s]
        if not _writable(key):
            skipped.add(key)
            continue
        rules.setdefault(key, set()).update(candidates[offsets[s]:offsets[s + 1]].tolist())
    for key, ids in rules.items():
        lines.append(key + "\t" + " ".join(tokens(sorted(ids))))
    notes = []
    if skipped:
        notes.append("vmap: %s with a space, tab or line break cannot be written and were left out"
                     % _count(len(skipped), "token"))
    return "\n".join(lines) + "\n", notes


def write_vmap(path, shortlist, vocab):
    """Writes the shortlist as a CTranslate2 vmap.txt (atomically); returns notes."""
    text, notes = vmap_text(shortlist, vocab)
    write_atomic(path, text.encode("utf-8"))
    return notes
