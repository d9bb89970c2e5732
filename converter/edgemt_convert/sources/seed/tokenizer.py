"""The seed layout's SentencePiece model: read it and check it against
config.json. One joint model for both languages, stored once
(Tokenizer.source_model); its ids are the model's."""
import os

from ...errors import ConversionError
from ..reading import read_sentencepiece


def load_tokenizer(checkpoint_dir, cfg):
    """The spm.model bytes named by config "tokenizer", or None without one."""
    if cfg.tokenizer is None:
        return None
    name = cfg.tokenizer
    data, sp = read_sentencepiece(os.path.join(checkpoint_dir, name), name,
                                  "%s: not found in %s (config.json names it as tokenizer)" % (name, checkpoint_dir))
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
