"""CTranslate2 model directories: model.bin (binary versions 1-6), config.json
and the vocabularies, as CTranslate2 4.x loads them (OpenNMT-py/-tf, fairseq,
Marian and OPUS-MT models all convert to this format).

  model_bin    the binary file -> numpy arrays, aliases
  spec         the TransformerSpec it holds; what EdgeMT cannot run
  directory    config.json (special tokens, source bos/eos) and vocabularies
  weights      float16/bfloat16/int16 -> float32; int8 kept as stored
  build        all of it -> float model_ir, plus the stored int8 weights

Tokens: the vocabularies are the model's ids, and the file keeps them. A
directory has no tokenizer of its own: its text is tokens separated by
spaces (the file translates such text), or pieces of a SentencePiece model
given with it (an Argos Translate package brings one).
"""
import os

from ...errors import read_bytes
from ...format import model_ir as ir
from ..importer import Imported
from ..problems import Problems
from .build import build_model
from .directory import read_config, read_vocabularies, token_id
from .model_bin import read_model_bin
from .spec import read_spec

NAME = "ctranslate2"
MODEL_FILE = "model.bin"


def detect(checkpoint_dir):
    """True when the directory has a model.bin (CTranslate2's file name)."""
    return os.path.isfile(os.path.join(checkpoint_dir, MODEL_FILE))


def load(checkpoint_dir):
    """Imported, the int8 weights as CTranslate2 stored them in Imported.quantized;
    one ConversionError lists every problem."""
    problems = Problems(checkpoint_dir, "CTranslate2 model")
    path = os.path.join(checkpoint_dir, MODEL_FILE)
    model_bin = read_model_bin(read_bytes(path, MODEL_FILE), MODEL_FILE)
    raw, tokens = read_config(checkpoint_dir, model_bin, problems)
    spec = read_spec(model_bin, raw, problems)
    vocabs = read_vocabularies(checkpoint_dir, tokens.unk, problems)
    problems.raise_if_any()
    ids = special_ids(spec, vocabs, tokens, problems)
    model, stored = build_model(model_bin, spec, ids, tokens.layer_norm_epsilon or 1e-5, problems) \
        if ids is not None else (None, None)
    problems.raise_if_any()
    model.tokenizer = ir.Tokenizer(source_model=None, source_vocabulary=vocabs.source,
                                   target_vocabulary=None if vocabs.shared else vocabs.target)
    model.format_minor = ir.FORMAT_MINOR_EMBEDDING_NORM if model.has_embedding_norm() else ir.FORMAT_MINOR_CTRANSLATE2
    notes = ["CTranslate2 binary version %d, %s revision %d" % (model_bin.version, model_bin.spec or "(unnamed spec)",
                                                               model_bin.revision)]
    if stored:
        notes.append("%d int8 weights kept as CTranslate2 quantized them (an int8 file stores them unchanged)"
                     % len(stored))
    return Imported(model=model, weights=path, notes=notes, quantized=stored)


def special_ids(spec, vocabs, tokens, problems):
    """The Config id fields from the vocabularies and tokens, or None with problems added."""
    for side, vocab, rows in (("source", vocabs.source, spec.source_vocab_rows),
                              ("target", vocabs.target, spec.target_vocab_rows)):
        if len(vocab) != rows:
            problems.add("the %s vocabulary has %d tokens (with %s), the embeddings %d rows"
                         % (side, len(vocab), tokens.unk, rows))
    target = {}
    for key, token in (("unk", tokens.unk), ("bos", tokens.bos), ("eos", tokens.eos),
                       ("decoder_start", tokens.decoder_start)):
        if token is None:
            problems.add("config.json: decoder_start_token is null (the caller must give the first target tokens); "
                         "EdgeMT needs a start token")
            continue
        target[key] = token_id(vocabs.target, token)
        if target[key] is None:
            problems.add("the target vocabulary has no %s token %r" % (key, token))
    for flag, key in ((tokens.add_source_bos, "bos"), (tokens.add_source_eos, "eos")):
        token = getattr(tokens, key)
        if flag and token_id(vocabs.source, token) != target.get(key):
            problems.add("sources get %s %r, whose source id differs from its target id: EdgeMT needs one id"
                         % (key, token))
    if problems.items:
        return None
    # Padding only fills batch rows that attention masks; any id does, a named one reads better.
    pad = next((i for i in (token_id(vocabs.source, t) for t in ("<blank>", "<pad>")) if i is not None), 0)
    return dict(pad_id=pad, unk_id=target["unk"], bos_id=target["bos"], eos_id=target["eos"],
                decoder_start_id=target["decoder_start"], banned_ids=[],
                source_bos=tokens.add_source_bos, source_eos=tokens.add_source_eos)
