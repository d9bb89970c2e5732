"""The model's tokens on both sides, as a shortlist sees them: the string
of every source and target id, each string's id, which ids are ordinary
tokens (a shortlist never holds pad, bos, unk, control pieces or a
">>xx<<" language token), and text to model ids with the model's own
tokenizer (format/tokenizer.py's TextCodec: SentencePiece, Marian-style
vocabularies, or tokens separated by spaces)."""
import numpy as np

from ..errors import ConversionError
from ..format.tokenizer import TextCodec, split_language_token


def _spm_pieces(processor):
    return [processor.id_to_piece(i) for i in range(processor.get_piece_size())]


def _first_ids(pieces):
    ids = {}
    for i, p in enumerate(pieces):
        ids.setdefault(p, i)      # a repeated token keeps its first id, as TextCodec
    return ids


def _ordinary(pieces, processor, special_ids):
    """Boolean mask: the ids that are ordinary tokens (not special ids, not
    the SentencePiece model's control, unknown or unused pieces, not a
    language token)."""
    mask = np.ones(len(pieces), dtype=bool)
    for i in special_ids:
        if 0 <= i < len(pieces):
            mask[i] = False
    for i, p in enumerate(pieces):
        if split_language_token(p) == (p, ""):
            mask[i] = False
        elif processor is not None:
            j = processor.piece_to_id(p)
            if processor.id_to_piece(j) == p and (processor.is_control(j) or processor.is_unknown(j)
                                                   or processor.is_unused(j)):
                mask[i] = False
    return mask


class Vocabularies:
    """A model's source and target tokens (model_ir.Model with a tokenizer)."""

    def __init__(self, model):
        if model.tokenizer is None:
            raise ConversionError("a shortlist needs the model's tokenizer, and this model has none (token ids only)")
        c = model.config
        self.codec = codec = TextCodec(model)
        self.source_pieces = codec.source_pieces or _spm_pieces(codec.source)
        self.target_pieces = codec.target_pieces or _spm_pieces(codec.target)
        for side, pieces, size in (("source", self.source_pieces, c.source_vocab_size),
                                   ("target", self.target_pieces, c.target_vocab_size)):
            if len(pieces) != size:
                raise ConversionError("the model's %s tokenizer has %d tokens for a %s vocabulary of %d"
                                      % (side, len(pieces), side, size))
        self.source_ids, self.target_ids = _first_ids(self.source_pieces), _first_ids(self.target_pieces)
        # One vocabulary for both sides (Marian's "shared" vocabulary, the seed layout's joint model).
        self.shared = self.source_pieces == self.target_pieces
        self.eos_id = c.eos_id
        self.target_specials = sorted({c.pad_id, c.bos_id, c.unk_id, c.eos_id})
        # the source side's own special ids: those of the target's special tokens
        source_specials = {codec.unk_id}
        for i in self.target_specials:
            source_specials.add(self.source_ids.get(self.target_pieces[i], -1))
        self.source_specials = sorted(s for s in source_specials if s >= 0)
        self.source_ordinary = _ordinary(self.source_pieces, codec.source, self.source_specials)
        self.target_ordinary = _ordinary(self.target_pieces, codec.target, self.target_specials)

    @property
    def source_size(self):
        return len(self.source_pieces)

    @property
    def target_size(self):
        return len(self.target_pieces)

    def encode_source(self, text):
        return self.codec.encode(text)

    def encode_target(self, text):
        return self.codec.encode_target(text)

    def source_id(self, token):
        """The source id of a token string, None when the vocabulary lacks it."""
        return self.source_ids.get(token)

    def target_id(self, token):
        return self.target_ids.get(token)

    def copies(self):
        """(source ids, target ids): every ordinary source token that is an
        ordinary target token with the same string (names and numbers a
        translation copies)."""
        src, tgt = [], []
        for i in np.flatnonzero(self.source_ordinary):
            j = self.target_ids.get(self.source_pieces[i])
            if j is not None and self.target_ordinary[j]:
                src.append(i)
                tgt.append(j)
        return np.asarray(src, dtype=np.int64), np.asarray(tgt, dtype=np.int64)
