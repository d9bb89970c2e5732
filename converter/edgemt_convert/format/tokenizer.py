"""The file's Tokenizer table in use (schema/edgemt.fbs): SentencePiece
processors from the model bytes it carries, and TextCodec, text <-> model
ids as the runtime's Tokenizer computes them.

The seed layout has one joint model for both languages, stored once
(Tokenizer.source_model, no target_model), and its ids are the model's.
Marian models map pieces through their own vocabularies
(Tokenizer.source_vocabulary / target_vocabulary). A model with
vocabularies and no SentencePiece model (CTranslate2's, format 2.3) takes
tokens separated by spaces.
"""
from ..errors import ConversionError


def load_processor(model_bytes):
    import sentencepiece as spm
    return spm.SentencePieceProcessor(model_proto=model_bytes)


def split_language_token(text):
    """(">>xx<<" or None, the rest): a multilingual Marian model's target
    language token at the start of the text is one piece of its own."""
    end = text.find("<<") if text.startswith(">>") else -1
    if end < 0:
        return None, text
    return text[:end + 2], text[end + 2:]


class TextCodec:
    """Text to source ids (without </s>) and target ids to text, for a model_ir.Model
    (and target text to target ids: encode_target)."""

    def __init__(self, model):
        tok = model.tokenizer
        if tok is None:
            raise ConversionError("the model has no tokenizer: use token ids")
        self.plain = tok.source_model is None
        if self.plain and tok.source_vocabulary is None:
            raise ConversionError("the tokenizer has neither a SentencePiece model nor a vocabulary")
        self.source = None if self.plain else load_processor(tok.source_model)
        self.target = load_processor(tok.target_model) if tok.target_model is not None else self.source
        self.source_pieces = tok.source_vocabulary
        self.target_pieces = tok.target_vocabulary or tok.source_vocabulary
        self.source_ids = None
        if self.source_pieces is not None:
            self.source_ids = {}
            for i, p in enumerate(self.source_pieces):
                self.source_ids.setdefault(p, i)      # a repeated token keeps its first id
        self.unk_id = model.config.unk_id
        self.target_unk_id = model.config.unk_id
        self.target_ids = None
        if self.target_pieces is not None:
            self.target_ids = {}
            for i, p in enumerate(self.target_pieces):
                self.target_ids.setdefault(p, i)
        if self.source_ids is not None:
            # The source side's own <unk>: the vocabularies may differ in size.
            self.unk_id = self.source_ids.get(self.target_pieces[model.config.unk_id], self.unk_id)

    def encode(self, text):
        if self.plain:
            return [self.source_ids.get(t, self.unk_id) for t in text.split()]
        if self.source_ids is None:
            return self.source.encode(text)
        code, rest = split_language_token(text)
        pieces = ([code] if code is not None else []) + self.source.encode(rest, out_type=str)
        return [self.source_ids.get(p, self.unk_id) for p in pieces]

    def encode_target(self, text):
        """Target-language text to target ids (without </s>), as decode's inverse
        would split it: the target SentencePiece model (the joint one when there
        is no other) and the target vocabulary when the model has one. For
        training data (a shortlist), not for translation."""
        if self.plain:
            return [self.target_ids.get(t, self.target_unk_id) for t in text.split()]
        if self.target_ids is None:
            return self.target.encode(text)
        return [self.target_ids.get(p, self.target_unk_id) for p in self.target.encode(text, out_type=str)]

    def decode(self, ids):
        if self.plain:
            return " ".join(self.target_pieces[i] for i in ids)
        if self.target_pieces is None:
            return self.target.decode(list(ids))
        # As MarianTokenizer: a piece the target model lacks (a shared vocabulary
        # holds both languages' pieces) keeps its "\u2581", which becomes a space.
        text = self.target.decode_pieces([self.target_pieces[i] for i in ids])
        return text.replace("\u2581", " ").strip(" ")
