"""The tokenizer files of a Marian directory: tokenizer_config.json (the
language codes, separate_vocabs), vocab.json (and target_vocab.json with
separate vocabularies), source.spm and target.spm.

Token ids are vocab.json's, not the SentencePiece models': the file keeps
the piece of every id (Tokenizer.source_vocabulary / target_vocabulary) for
the runtime's tokenizer."""
import os
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ...errors import ConversionError
from ...format import model_ir as ir
from ..reading import read_sentencepiece
from ..problems import read_json


@dataclass
class MarianTokenizer:
    source_vocabulary: Optional[List[str]]      # the piece of each source id
    target_vocabulary: Optional[List[str]]      # the same list object without separate vocabularies
    source_spm: Optional[bytes]
    target_spm: Optional[bytes]
    languages: Tuple[str, str]                  # tokenizer_config.json's source_lang, target_lang ("" unknown)
    unk_id: Optional[int] = None                # <unk> in the source vocabulary

    def pad_id(self, configured):
        """<pad>'s id in the source vocabulary, else config.json's pad_token_id."""
        return self.source_vocabulary.index("<pad>") if "<pad>" in self.source_vocabulary else configured

    def to_ir(self):
        return ir.Tokenizer(
            source_model=self.source_spm,
            target_model=None if self.target_spm == self.source_spm else self.target_spm,
            source_vocabulary=self.source_vocabulary,
            target_vocabulary=None if self.target_vocabulary is self.source_vocabulary else self.target_vocabulary)


def read_tokenizer(checkpoint_dir, c, problems):
    """MarianTokenizer with its problems added (its fields None where unreadable)."""
    tok_config = read_json(os.path.join(checkpoint_dir, "tokenizer_config.json"), problems, required=False) or {}
    if not isinstance(tok_config, dict):
        tok_config = {}
    separate = bool(tok_config.get("separate_vocabs", False))
    languages = tuple(v if isinstance(v, str) else "" for v in (tok_config.get("source_lang"),
                                                                tok_config.get("target_lang")))
    if separate and c.share_embeddings:
        problems.add("tokenizer_config.json says separate_vocabs, config.json share_encoder_decoder_embeddings")
    src_vocab, tgt_vocab = _vocabularies(checkpoint_dir, c, separate, problems)
    unk_id = _check_special_ids(src_vocab, tgt_vocab, c, problems)
    source_spm = _spm(os.path.join(checkpoint_dir, "source.spm"), problems)
    target_spm = _spm(os.path.join(checkpoint_dir, "target.spm"), problems)
    return MarianTokenizer(src_vocab, tgt_vocab, source_spm, target_spm, languages, unk_id)


def _vocabularies(checkpoint_dir, c, separate, problems):
    """(source pieces, target pieces): vocab.json, and target_vocab.json when separate."""
    src_vocab = _vocabulary(os.path.join(checkpoint_dir, "vocab.json"), c.vocab_size, problems, "vocab_size")
    tgt_vocab = src_vocab
    if separate:
        tgt_vocab = _vocabulary(os.path.join(checkpoint_dir, "target_vocab.json"), c.decoder_vocab_size, problems,
                                "decoder_vocab_size")
    elif src_vocab is not None and c.decoder_vocab_size is not None and len(src_vocab) != c.decoder_vocab_size:
        problems.add("vocab.json: %d pieces, config.json decoder_vocab_size is %d (and there is no "
                     "target_vocab.json)" % (len(src_vocab), c.decoder_vocab_size))
    return src_vocab, tgt_vocab


def _check_special_ids(src_vocab, tgt_vocab, c, problems):
    """</s> and <unk> have one id on both sides, </s> config.json's; returns <unk>'s id."""
    if src_vocab is None or tgt_vocab is None:
        return None
    for piece in ("</s>", "<unk>"):
        if piece in src_vocab and piece in tgt_vocab and src_vocab.index(piece) != tgt_vocab.index(piece):
            problems.add("%s has id %d in vocab.json and %d in target_vocab.json (EdgeMT models give it one id)"
                         % (piece, src_vocab.index(piece), tgt_vocab.index(piece)))
    if "</s>" in tgt_vocab:
        eos = tgt_vocab.index("</s>")
        if c.eos_id is not None and eos != c.eos_id:
            problems.add("config.json: eos_token_id %d, but </s> is id %d in the vocabulary" % (c.eos_id, eos))
    return src_vocab.index("<unk>") if "<unk>" in src_vocab else None


def _vocabulary(path, size, problems, where):
    """The piece of each id of a vocab.json ({piece: id}), checked to be 0..size-1 once each."""
    raw = read_json(path, problems)
    if raw is None:
        return None
    name = os.path.basename(path)
    if not isinstance(raw, dict) or not all(isinstance(k, str) for k in raw):
        problems.add("%s: expected a JSON object {piece: id}" % name)
        return None
    pieces = [None] * len(raw)
    for piece, i in raw.items():
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(raw) or pieces[i] is not None:
            problems.add("%s: the ids are not 0..%d, each once (%r: %r)" % (name, len(raw) - 1, piece, i))
            return None
        pieces[i] = piece
    if size is not None and len(pieces) != size:
        problems.add("%s: %d pieces, config.json %s is %d" % (name, len(pieces), where, size))
    for special in ("</s>", "<unk>"):
        if special not in raw:
            problems.add("%s: has no %s" % (name, special))
    return pieces


def _spm(path, problems):
    """The bytes of a SentencePiece model, or None with a problem added."""
    name = os.path.basename(path)
    try:
        return read_sentencepiece(path, name, "%s: not found" % name)[0]
    except ConversionError as e:
        problems.add(str(e))
        return None
