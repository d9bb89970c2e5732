"""SentencePiece model: read it and check it against config.json; and
TextCodec, text <-> model ids as the runtime's Tokenizer computes them.

The seed layout has one joint model for both languages, so the file stores
it once (Tokenizer.source_model, no target_model), and its ids are the
model's. Marian models map pieces through their own vocabularies
(Tokenizer.source_vocabulary / target_vocabulary, schema/edgemt.fbs).
"""
import os

from .errors import ConversionError


def load_processor(model_bytes):
    import sentencepiece as spm
    return spm.SentencePieceProcessor(model_proto=model_bytes)


def load_tokenizer(checkpoint_dir, cfg):
    """The spm.model bytes named by config "tokenizer", or None without one."""
    if cfg.tokenizer is None:
        return None
    name = cfg.tokenizer
    path = os.path.join(checkpoint_dir, name)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise ConversionError("%s: not found in %s (config.json names it as tokenizer)" % (name, checkpoint_dir))
    except OSError as e:
        raise ConversionError("%s: cannot read (%s)" % (name, e.strerror or e))
    try:
        sp = load_processor(data)
    except Exception as e:  # sentencepiece raises RuntimeError/OSError variants
        raise ConversionError("%s: not a SentencePiece model (%s)" % (name, str(e).splitlines()[0][:120] if str(e) else type(e).__name__))
    check_against_config(sp, cfg, name)
    return data


def check_against_config(sp, cfg, name):
    size = sp.get_piece_size()
    for key in ("src_vocab_size", "tgt_vocab_size"):
        if size != getattr(cfg, key):
            raise ConversionError("%s: vocabulary size %d does not match config.json %s %d"
                                  % (name, size, key, getattr(cfg, key)))
    for key in ("pad_id", "unk_id", "bos_id", "eos_id"):
        got = getattr(sp, key)()
        if got != getattr(cfg, key):
            shown = "disabled" if got < 0 else str(got)
            raise ConversionError("%s: %s is %s, config.json says %d" % (name, key, shown, getattr(cfg, key)))


def split_language_token(text):
    """(">>xx<<" or None, the rest): a multilingual Marian model's target
    language token at the start of the text is one piece of its own."""
    end = text.find("<<") if text.startswith(">>") else -1
    if end < 0:
        return None, text
    return text[:end + 2], text[end + 2:]


class TextCodec:
    """Text to source ids (without </s>) and target ids to text, for a model_ir.Model."""

    def __init__(self, model):
        tok = model.tokenizer
        if tok is None:
            raise ConversionError("the model has no tokenizer: use token ids")
        self.source = load_processor(tok.source_model)
        self.target = load_processor(tok.target_model) if tok.target_model is not None else self.source
        self.source_pieces = tok.source_vocabulary
        self.target_pieces = tok.target_vocabulary or tok.source_vocabulary
        self.source_ids = None
        if self.source_pieces is not None:
            self.source_ids = {p: i for i, p in enumerate(self.source_pieces)}
        self.unk_id = model.config.unk_id

    def encode(self, text):
        if self.source_ids is None:
            return self.source.encode(text)
        code, rest = split_language_token(text)
        pieces = ([code] if code is not None else []) + self.source.encode(rest, out_type=str)
        return [self.source_ids.get(p, self.unk_id) for p in pieces]

    def decode(self, ids):
        if self.target_pieces is None:
            return self.target.decode(list(ids))
        # As MarianTokenizer: a piece the target model lacks (a shared vocabulary
        # holds both languages' pieces) keeps its "\u2581", which becomes a space.
        text = self.target.decode_pieces([self.target_pieces[i] for i in ids])
        return text.replace("\u2581", " ").strip(" ")
