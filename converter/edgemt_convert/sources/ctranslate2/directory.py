"""The files beside model.bin: config.json (special tokens, source bos/eos,
the decoder's first token, the layer-norm epsilon) and the vocabularies,
as CTranslate2 4.x reads them.

Vocabularies: shared_vocabulary, else source_vocabulary and
target_vocabulary; each as .json (an array of tokens) before .txt (one token
a line, a final "\\r" dropped only when every line has one). The line or
array index is the id; a vocabulary without the unknown token gets it as
its last id. Files of binary version 5 and older have no config.json: their
tokens and flags are model.bin attributes (with_source_bos, ...) or
CTranslate2's defaults.
"""
import os
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from ..problems import read_json


@dataclass
class Tokens:
    unk: str = "<unk>"
    bos: str = "<s>"
    eos: str = "</s>"
    decoder_start: Optional[str] = "<s>"     # None: CTranslate2 needs a target prefix from the caller
    add_source_bos: bool = False
    add_source_eos: bool = False
    layer_norm_epsilon: Optional[float] = None


@dataclass
class Vocabularies:
    source: List[str]
    target: List[str]
    shared: bool                              # one file for both sides


def read_config(model_dir, model_bin, problems):
    """(raw config dict, Tokens): config.json for binary version 6; before it,
    the root attributes CTranslate2's SequenceToSequenceModel::initialize reads."""
    path = os.path.join(model_dir, "config.json")
    raw = {}
    if os.path.exists(path) or model_bin.version >= 6:
        raw = read_json(path, problems) or {}
        if not isinstance(raw, dict):
            problems.add("config.json: not a JSON object")
            raw = {}
    if model_bin.version >= 6:
        t = Tokens(unk=raw.get("unk_token", "<unk>"), bos=raw.get("bos_token", "<s>"),
                   eos=raw.get("eos_token", "</s>"), decoder_start=raw.get("decoder_start_token", "<s>"),
                   add_source_bos=bool(raw.get("add_source_bos", False)),
                   add_source_eos=bool(raw.get("add_source_eos", False)))
    else:
        def text(name, default):
            v = model_bin.get(name)
            return default if v is None else bytes(np.asarray(v, np.int8).tobytes()).decode("utf-8", "replace")

        def flag(name, default):
            v = model_bin.get(name)
            return default if v is None else bool(int(v))
        t = Tokens(unk=text("unk_token", "<unk>"), bos=text("bos_token", "<s>"), eos=text("eos_token", "</s>"),
                   add_source_bos=flag("with_source_bos", False), add_source_eos=flag("with_source_eos", False))
        t.decoder_start = None if flag("user_decoder_start_tokens", False) else (
            t.bos if flag("with_target_bos", True) else t.eos)
    eps = raw.get("layer_norm_epsilon")
    if eps is not None:
        if not isinstance(eps, (int, float)) or not 0 < eps < 1:
            problems.add("config.json: layer_norm_epsilon %r is not a small positive number" % (eps,))
        else:
            t.layer_norm_epsilon = float(eps)
    for key in ("unk", "bos", "eos"):
        if not isinstance(getattr(t, key), str) or not getattr(t, key):
            problems.add("config.json: %s_token must be a token" % key)
    return raw, t


def read_vocabularies(model_dir, unk, problems):
    """Vocabularies with the unknown token appended where missing, or None."""
    shared = _read_vocabulary(model_dir, "shared_vocabulary", problems, required=False)
    if shared is not None:
        vocab = _with_unk(shared, unk)
        return Vocabularies(source=vocab, target=vocab, shared=True)
    source = _read_vocabulary(model_dir, "source_vocabulary", problems)
    target = _read_vocabulary(model_dir, "target_vocabulary", problems)
    if source is None or target is None:
        return None
    return Vocabularies(source=_with_unk(source, unk), target=_with_unk(target, unk), shared=False)


def _with_unk(tokens, unk):
    return tokens if unk in tokens else tokens + [unk]


def _read_vocabulary(model_dir, name, problems, required=True):
    json_path = os.path.join(model_dir, name + ".json")
    txt_path = os.path.join(model_dir, name + ".txt")
    if os.path.exists(json_path):
        tokens = read_json(json_path, problems)
        if tokens is None:
            return None
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            problems.add("%s.json: not a JSON array of tokens" % name)
            return None
        return tokens
    if not os.path.exists(txt_path):
        if required:
            problems.add("%s.txt (or .json): not found" % name)
        return None
    try:
        with open(txt_path, "rb") as f:
            text = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        problems.add("%s.txt: cannot read (%s)" % (name, e))
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()                  # the newline that ends the last line
    if lines and all(line.endswith("\r") for line in lines):
        lines = [line[:-1] for line in lines]
    return lines


def token_id(vocab, token):
    """The first id of a token (CTranslate2 keeps the first of duplicates), or None."""
    try:
        return vocab.index(token)
    except ValueError:
        return None

