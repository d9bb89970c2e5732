"""The seed layout's SentencePiece model: read it and check it against
config.json. One joint model for both languages, stored once
(Tokenizer.source_model); its ids are the model's."""
import os

from .errors import ConversionError
from .format.tokenizer import load_processor


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
