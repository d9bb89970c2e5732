"""config.json of a seed-layout checkpoint: required keys, variant keys, defaults.

The keys are the ones make_random_checkpoint.py writes. Checkpoints made before
the variant keys existed lack them; they take the seed layout's values
(SEED_DEFAULTS), which is what those models were trained with.
"""
import json
import math
import os
from dataclasses import dataclass
from typing import Optional

from ...errors import ConversionError

# Sizes and token ids: every checkpoint must state them.
REQUIRED_INT_KEYS = (
    "d_model", "n_heads", "d_ff", "n_encoder_layers", "n_decoder_layers",
    "src_vocab_size", "tgt_vocab_size", "max_seq_len",
    "pad_id", "unk_id", "bos_id", "eos_id",
)

# Variant keys and the seed layout's value for each.
SEED_DEFAULTS = {
    "norm": "post",
    "activation": "relu",
    "position_layout": "interleaved",
    "tie_output": False,
    "layer_norm_eps": 1e-5,
}

CHOICES = {
    "norm": ("post", "pre"),
    "activation": ("relu", "gelu", "silu"),
    "position_layout": ("interleaved", "halves"),
}

SUPPORTED_ARCH = "seed-transformer"


@dataclass(frozen=True)
class CheckpointConfig:
    d_model: int
    n_heads: int
    d_ff: int
    n_encoder_layers: int
    n_decoder_layers: int
    src_vocab_size: int
    tgt_vocab_size: int
    max_seq_len: int
    pad_id: int
    unk_id: int
    bos_id: int
    eos_id: int
    norm: str = "post"
    activation: str = "relu"
    position_layout: str = "interleaved"
    tie_output: bool = False
    layer_norm_eps: float = 1e-5
    tokenizer: Optional[str] = None          # file name in the checkpoint dir
    source_language: str = ""
    target_language: str = ""


def _fail(msg):
    raise ConversionError("config.json: " + msg)


def _int(raw, key, minimum):
    v = raw[key]
    # bool is an int in Python; a true/false size is a mistake, not a 1/0
    if isinstance(v, bool) or not isinstance(v, int):
        _fail("%s must be an integer, got %r" % (key, v))
    if v < minimum:
        _fail("%s must be >= %d, got %d" % (key, minimum, v))
    return v


def parse_config(raw):
    """Validates a decoded config.json object and fills in the defaults."""
    if not isinstance(raw, dict):
        _fail("expected a JSON object")
    arch = raw.get("arch", SUPPORTED_ARCH)
    if arch != SUPPORTED_ARCH:
        _fail("unsupported arch %r (expected %r)" % (arch, SUPPORTED_ARCH))
    for key in REQUIRED_INT_KEYS:
        if key not in raw:
            _fail("missing key " + key)
    vals = {}
    for key in REQUIRED_INT_KEYS:
        vals[key] = _int(raw, key, 0 if key.endswith("_id") else 1)

    for key, default in SEED_DEFAULTS.items():
        vals[key] = raw.get(key, default)
    for key, allowed in CHOICES.items():
        if vals[key] not in allowed:
            _fail("unknown %s %r (expected %s)" % (key, vals[key], " or ".join(allowed)))
    if not isinstance(vals["tie_output"], bool):
        _fail("tie_output must be true or false, got %r" % (vals["tie_output"],))
    eps = vals["layer_norm_eps"]
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not (eps > 0 and math.isfinite(eps)):
        _fail("layer_norm_eps must be a positive number, got %r" % (eps,))
    vals["layer_norm_eps"] = float(eps)

    if vals["d_model"] % vals["n_heads"]:
        _fail("d_model %d is not a multiple of n_heads %d" % (vals["d_model"], vals["n_heads"]))
    if vals["d_model"] % 2:
        _fail("d_model %d must be even (sinusoidal positions)" % vals["d_model"])
    if vals["max_seq_len"] < 2:
        _fail("max_seq_len must be >= 2, got %d" % vals["max_seq_len"])
    smallest_vocab = min(vals["src_vocab_size"], vals["tgt_vocab_size"])
    for key in ("pad_id", "unk_id", "bos_id", "eos_id"):
        if vals[key] >= smallest_vocab:
            _fail("%s %d is outside the vocabulary (size %d)" % (key, vals[key], smallest_vocab))

    tok = raw.get("tokenizer")
    if tok is not None and (not isinstance(tok, str) or not tok):
        _fail("tokenizer must be a file name, got %r" % (tok,))
    vals["tokenizer"] = tok
    for key in ("source_language", "target_language"):
        v = raw.get(key, "")
        if not isinstance(v, str):
            _fail("%s must be a string, got %r" % (key, v))
        vals[key] = v
    return CheckpointConfig(**vals)


def load_config(checkpoint_dir):
    path = os.path.join(checkpoint_dir, "config.json")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        _fail("not found in " + checkpoint_dir)
    except OSError as e:
        _fail("cannot read (%s)" % (e.strerror or e))
    try:
        raw = json.loads(text)
    except ValueError as e:
        _fail("not valid JSON (%s)" % e)
    return parse_config(raw)
