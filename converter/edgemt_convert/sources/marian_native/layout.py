"""Which files of a folder make the model: the model file, its
vocabularies, the shortlist, decoder.yml and the languages.

Firefox Translations ships, gzip'd, model.xxyy.intgemm.alphas.bin,
lex.50.50.xxyy.s2t.bin and vocab.xxyy.spm (or srcvocab.xxyy.spm and
trgvocab.xxyy.spm), xx and yy the languages. An OPUS-MT release has its
model (opus.spm32k-spm32k.transformer-align.model1.npz.best-perplexity.npz),
decoder.yml (the model, the vocabularies, beam-size, normalize),
opus.spm32k-spm32k.vocab.yml (Marian's piece -> id table: the model's ids),
source.spm and target.spm, and a README.md naming the languages.

A folder with several model files (export_marian.py writes every variant)
gives, in this order: decoder.yml's model; an intgemm8 .bin with alphas
(what Firefox ships); an intgemm8 .bin; another .bin; an .npz; a plain file
before its .gz copy. A path to a file chooses it.
"""
import os
import re
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from .model_file import looks_like_model

DECODER_YML = "decoder.yml"
README = "README.md"
NOT_MODELS = ("pytorch_model.bin", "training_args.bin", "model.bin.index.json")
_PAIR = re.compile(r"^(?:model|vocab|srcvocab|trgvocab|lex\.\d+\.\d+)\.([a-z]{4}|[a-z]{6})\.")
_README_LANG = re.compile(r"^\s*[*-]?\s*(source|target) language\(s\)\s*:\s*(.+?)\s*$", re.IGNORECASE)


@dataclass
class Layout:
    folder: str
    model: Optional[str] = None                 # the model file's path
    decoder: Optional[dict] = None              # decoder.yml, when there is one
    vocabs: List[str] = field(default_factory=list)     # 1 (shared) or 2 paths: .spm or .yml
    spm: Tuple[Optional[str], Optional[str]] = (None, None)   # source.spm, target.spm for .yml vocabularies
    shortlist: Optional[str] = None
    languages: Tuple[str, str] = ("", "")
    notes: List[str] = field(default_factory=list)


def pair_of(name):
    """("en", "de") of Firefox's names (model.ende.*, vocab.ende.spm, lex.50.50.ende.s2t.bin), else None."""
    m = _PAIR.match(name)
    if not m:
        return None
    code = m.group(1)
    half = len(code) // 2
    return code[:half], code[half:]


def _plain(name):
    return name[:-3] if name.endswith(".gz") else name


def _rank(name):
    """Preference of a model file (lower first)."""
    base = _plain(name)
    if base.endswith(".bin"):
        kind = 0 if "intgemm" in base and "alphas" in base else 1 if "intgemm" in base else 2
    else:
        kind = 3
    return kind, name.endswith(".gz"), len(name), name


def model_candidates(folder):
    """Names of the Marian model files of a folder, best first (cheap checks of their headers)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    out = []
    for name in names:
        base = _plain(name)
        if not (base.endswith(".bin") or base.endswith(".npz")) or name in NOT_MODELS or base.startswith("lex.") \
                or ".optimizer." in name or ".s2t." in name:
            continue
        if os.path.isfile(os.path.join(folder, name)) and looks_like_model(os.path.join(folder, name)):
            out.append(name)
    return sorted(out, key=_rank)


def _resolve(folder, path):
    """A path decoder.yml names: as given when absolute and present, else in the folder."""
    if not isinstance(path, str) or not path:
        return None
    if os.path.isabs(path) and os.path.exists(path):
        return path
    here = os.path.join(folder, path)
    return here if os.path.exists(here) else os.path.join(folder, os.path.basename(path))


def _existing(folder, *names):
    """The first of the names (or its .gz) present in the folder, None if none."""
    for name in names:
        for candidate in (name, name + ".gz"):
            if os.path.isfile(os.path.join(folder, candidate)):
                return os.path.join(folder, candidate)
    return None


def _only(folder, pattern):
    """The one file of the folder whose plain name matches pattern (a plain one before its .gz), or None."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    found = sorted({_plain(n) for n in names if re.match(pattern, _plain(n))})
    return _existing(folder, found[0]) if len(found) == 1 else None


def find_layout(path, problems, read_yaml):
    """Layout of a model folder or file; problems gets what is missing.
    read_yaml(path, problems) -> dict or None reads decoder.yml."""
    chosen = None
    if os.path.isfile(path):
        chosen = path
        folder = os.path.dirname(os.path.abspath(path))
    else:
        folder = path
    layout = Layout(folder=folder)
    decoder_path = os.path.join(folder, DECODER_YML)
    if os.path.isfile(decoder_path):
        layout.decoder = read_yaml(decoder_path, problems)
    decoder = layout.decoder or {}
    candidates = model_candidates(folder)
    if chosen is None and decoder.get("models"):
        models = decoder["models"] if isinstance(decoder["models"], list) else [decoder["models"]]
        if len(models) > 1:
            problems.add("decoder.yml: models names an ensemble of %d models; EdgeMT runs one: give the path of the "
                         "one to convert" % len(models))
        chosen = _resolve(folder, models[0])
        if chosen is None or not os.path.isfile(chosen):
            problems.add("decoder.yml: its model %s is not in the folder" % models[0])
            chosen = None
        else:
            layout.notes.append("model: %s, as decoder.yml names it" % os.path.basename(chosen))
    if chosen is None and not os.path.isfile(path):
        if not candidates:
            problems.add("no Marian model file (.bin or .npz with special:model.yml) in the folder")
        else:
            chosen = os.path.join(folder, candidates[0])
            if len(candidates) > 1:
                layout.notes.append("model: %s%s; the folder also has %s (give a file's path to convert it instead)"
                                    % (candidates[0], " (intgemm8 with alphas, what Firefox ships)"
                                       if _rank(candidates[0])[0] == 0 else "", ", ".join(candidates[1:])))
    layout.model = chosen
    pair = pair_of(os.path.basename(chosen)) if chosen else None
    _vocabularies(layout, decoder, pair, problems)
    _shortlist(layout, decoder, pair)
    layout.languages = _languages(layout, pair)
    return layout


def _vocabularies(layout, decoder, pair, problems):
    folder = layout.folder
    named = decoder.get("vocabs")
    if named:
        named = named if isinstance(named, list) else [named]
        paths = [_resolve(folder, v) for v in named[:2]]
        missing = [v for v, p in zip(named, paths) if p is None or not os.path.isfile(p)]
        if missing:
            problems.add("decoder.yml: vocabulary %s is not in the folder" % ", ".join(map(str, missing)))
            return
        vocabs = paths if len(paths) == 2 and paths[0] != paths[1] else paths[:1]
    else:
        vocabs = _firefox_vocabularies(folder, pair)
    if not vocabs:
        problems.add("no vocabulary: expected vocab.%s.spm, or srcvocab.%s.spm and trgvocab.%s.spm (.gz too), or "
                     "decoder.yml's vocabs (an OPUS-MT release: *.vocab.yml with source.spm and target.spm)"
                     % ((pair[0] + pair[1],) * 3 if pair else ("xxyy",) * 3))
        return
    layout.vocabs = vocabs
    if any(_plain(v).endswith(".yml") or _plain(v).endswith(".yaml") or _plain(v).endswith(".json")
           for v in vocabs):
        layout.spm = (_existing(folder, "source.spm"), _existing(folder, "target.spm"))


def _shared_or_split(find, shared, source, target):
    """[the shared vocabulary] or [source, target], as find() finds them (None: neither)."""
    one = find(shared)
    if one:
        return [one]
    src, trg = find(source), find(target)
    return [src, trg] if src and trg else None


def _firefox_vocabularies(folder, pair):
    codes = [pair[0] + pair[1]] if pair else []
    for code in codes:
        found = _shared_or_split(lambda name: _existing(folder, name), "vocab.%s.spm" % code,
                                 "srcvocab.%s.spm" % code, "trgvocab.%s.spm" % code)
        if found:
            return found
    patterns = ((r"^vocab(\.[^.]+)?\.spm$", r"^srcvocab(\.[^.]+)?\.spm$", r"^trgvocab(\.[^.]+)?\.spm$"),
                (r"^.*vocab\.yml$", r"^.*\.src\.vocab\.yml$", r"^.*\.trg\.vocab\.yml$"))
    for shared, source, target in patterns:
        found = _shared_or_split(lambda pattern: _only(folder, pattern), shared, source, target)
        if found:
            return found
    return []


def _shortlist(layout, decoder, pair):
    """A binary lexical shortlist beside the model (decoder.yml's shortlist first)."""
    named = decoder.get("shortlist")
    if named:
        first = named[0] if isinstance(named, list) else named
        path = _resolve(layout.folder, first)
        if path is not None and os.path.isfile(path):
            layout.shortlist = path
            return
    try:
        names = sorted(os.listdir(layout.folder))
    except OSError:
        return
    lex = sorted({_plain(n) for n in names if re.match(r"^lex\..*s2t\.bin$", _plain(n))})
    if pair:
        mine = [n for n in lex if pair_of(n) == pair]
        lex = mine or lex
    if lex:
        layout.shortlist = _existing(layout.folder, lex[0])
        if len(lex) > 1:
            layout.notes.append("shortlist: %s; the folder also has %s" % (lex[0], ", ".join(lex[1:])))


def _languages(layout, pair):
    if pair:
        return pair
    for v in layout.vocabs:
        p = pair_of(os.path.basename(v))
        if p:
            return p
    if layout.shortlist and pair_of(os.path.basename(layout.shortlist)):
        return pair_of(os.path.basename(layout.shortlist))
    return _readme_languages(os.path.join(layout.folder, README))


def _readme_languages(path):
    """An OPUS-MT README's "* source language(s): en" and "* target language(s): de" (one code each)."""
    found = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = _README_LANG.match(line)
                if m and m.group(1).lower() not in found:
                    found[m.group(1).lower()] = m.group(2).split()
    except OSError:
        return "", ""
    codes = [found.get(side, []) for side in ("source", "target")]
    if all(len(c) == 1 and re.match(r"^[A-Za-z]{2,3}([_-][A-Za-z0-9]+)?$", c[0]) for c in codes):
        return codes[0][0], codes[1][0]
    return "", ""
