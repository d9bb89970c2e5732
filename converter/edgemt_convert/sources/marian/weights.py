"""The weights of a Marian directory: model.safetensors or pytorch_model.bin,
checked against config.json with modeling_marian.py's names and shapes. A
tied weight may be stored once (model.shared.weight), as Hugging Face saves
them."""
import os
from dataclasses import dataclass
from typing import Dict, Optional

import numpy as np

from ...errors import ConversionError
from ..reading import load_torch, nonfinite, shape_str, to_float32

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
EMBEDDING_KEYS = ("model.shared.weight", "model.encoder.embed_tokens.weight",
                  "model.decoder.embed_tokens.weight", "lm_head.weight")
# Positions are a fixed sinusoid, and the logits bias a buffer that starts at zero: transformers may leave
# them out of a file (and then computes the sinusoid, or zeros).
OPTIONAL_KEYS = ("model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight", "final_logits_bias")


@dataclass
class MarianWeights:
    tensors: Dict[str, np.ndarray]          # every tensor of the file, float32, by name
    source_embedding: np.ndarray
    target_embedding: np.ndarray            # the same array when the embeddings are shared
    output_weight: Optional[np.ndarray]     # None: tied to the target embedding


def weights_path(checkpoint_dir):
    """The weight file this converter reads (safetensors first), or None."""
    for name in WEIGHT_FILES:
        path = os.path.join(checkpoint_dir, name)
        if os.path.exists(path):
            return path
    return None


def read_weights(checkpoint_dir, c, problems):
    """MarianWeights, or None with the problems added (also when config.json
    lacks what the shapes need)."""
    path = weights_path(checkpoint_dir)
    if path is None:
        problems.add("no weights: neither %s" % " nor ".join(WEIGHT_FILES))
        return None
    if not c.complete:
        return None
    sd = _load_tensors(path, problems)
    if sd is None:
        return None
    return _check_tensors(sd, c, problems, os.path.basename(path))


def expected_shapes(c):
    """{key: shape} of every tensor the layout has, without the embeddings (resolved separately)."""
    d, ff = c.d_model, c.d_ff
    shapes = {}
    for side, layers in (("encoder", c.encoder_layers), ("decoder", c.decoder_layers)):
        shapes["model.%s.embed_positions.weight" % side] = (c.max_positions, d)
        for i in range(layers):
            p = "model.%s.layers.%d." % (side, i)
            for block in ("self_attn",) + (("encoder_attn",) if side == "decoder" else ()):
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    shapes[p + "%s.%s.weight" % (block, proj)] = (d, d)
                    shapes[p + "%s.%s.bias" % (block, proj)] = (d,)
                shapes[p + block + "_layer_norm.weight"] = (d,)
                shapes[p + block + "_layer_norm.bias"] = (d,)
            shapes[p + "fc1.weight"], shapes[p + "fc1.bias"] = (ff, d), (ff,)
            shapes[p + "fc2.weight"], shapes[p + "fc2.bias"] = (d, ff), (d,)
            shapes[p + "final_layer_norm.weight"] = (d,)
            shapes[p + "final_layer_norm.bias"] = (d,)
    shapes["final_logits_bias"] = (1, c.decoder_vocab_size)
    return shapes


def _read_torch(path, problems):
    """{name: float32 ndarray} of pytorch_model.bin, or None."""
    import torch
    name = os.path.basename(path)
    try:
        sd = load_torch(path)
    except ConversionError as e:
        problems.add(str(e))
        return None
    if not isinstance(sd, dict) or not all(isinstance(v, torch.Tensor) for v in sd.values()):
        problems.add("%s: not a state_dict of tensors" % name)
        return None
    tensors = {}
    for k, t in sd.items():
        if not t.is_floating_point():
            problems.add("%s: %s has dtype %s, expected floating point" % (name, k, t.dtype))
            continue
        tensors[k] = to_float32(t)
    return tensors


def _load_tensors(path, problems):
    """{name: float32 ndarray} from model.safetensors or pytorch_model.bin, or None."""
    name = os.path.basename(path)
    if name.endswith(".safetensors"):
        from ..safetensors import read
        try:
            tensors = read(path)
        except ConversionError as e:
            problems.add(str(e))
            return None
    else:
        tensors = _read_torch(path, problems)
        if tensors is None:
            return None
    out = {}
    for k, a in tensors.items():
        a = np.asarray(a)
        if a.dtype.kind != "f":
            problems.add("%s: %s has dtype %s, expected floating point" % (name, k, a.dtype))
            continue
        out[k] = np.ascontiguousarray(a, dtype=np.float32)
    return out


def _check_keys(sd, c, problems, weights_name):
    """Missing, unexpected, misshapen and non-finite tensors (the embeddings' shapes aside)."""
    want = expected_shapes(c)
    for key in want:
        if key not in sd and key not in OPTIONAL_KEYS:
            problems.add("%s: missing %s" % (weights_name, key))
    for key in sorted(set(sd) - set(want) - set(EMBEDDING_KEYS)):
        what = ""
        if "layernorm_embedding" in key:
            what = " (a LayerNorm after the embeddings, which the Marian layout does not have)"
        elif key.endswith("layer_norm.weight") or key.endswith("layer_norm.bias"):
            what = " (a final LayerNorm, which the Marian layout does not have)"
        problems.add("%s: unexpected key %s%s" % (weights_name, key, what))
    for key, shape in want.items():
        if key in sd and tuple(sd[key].shape) != shape:
            problems.add("%s: %s has shape %s, config.json implies %s"
                         % (weights_name, key, shape_str(sd[key].shape), shape_str(shape)))
    for key, a in sd.items():
        what = nonfinite(a)
        if what:
            problems.add("%s: %s contains %s" % (weights_name, key, what))


def _embedding_keys(sd, c):
    """(source, target, output) keys: the shared table, or the encoder's and
    decoder's own; output None when tied (or missing)."""
    def first(*keys):
        return next((k for k in keys if k in sd), None)

    if c.share_embeddings:
        src_key = first("model.shared.weight", "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight")
        tgt_key = src_key
    else:
        src_key = first("model.encoder.embed_tokens.weight", "model.shared.weight")
        tgt_key = first("model.decoder.embed_tokens.weight")
    return src_key, tgt_key, None if c.tie_output else first("lm_head.weight")


def _check_embeddings(sd, c, problems, weights_name, src_key, tgt_key, out_key):
    for what, key, rows in (("encoder embeddings", src_key, c.vocab_size),
                            ("decoder embeddings", tgt_key, c.decoder_vocab_size)):
        if key is None:
            problems.add("%s: missing the %s (model.shared.weight or model.%s.embed_tokens.weight)"
                         % (weights_name, what, what.split()[0]))
        elif tuple(sd[key].shape) != (rows, c.d_model):
            problems.add("%s: %s has shape %s, config.json implies %s (%s)"
                         % (weights_name, key, shape_str(sd[key].shape), shape_str((rows, c.d_model)), what))
    if not c.tie_output:
        if out_key is None:
            problems.add("%s: missing lm_head.weight (config.json says tie_word_embeddings: false)" % weights_name)
        elif tuple(sd[out_key].shape) != (c.decoder_vocab_size, c.d_model):
            problems.add("%s: lm_head.weight has shape %s, config.json implies %s"
                         % (weights_name, shape_str(sd[out_key].shape), shape_str((c.decoder_vocab_size, c.d_model))))


def _check_tensors(sd, c, problems, weights_name):
    """MarianWeights of a file's tensors, or None when anything is wrong."""
    _check_keys(sd, c, problems, weights_name)
    src_key, tgt_key, out_key = _embedding_keys(sd, c)
    _check_embeddings(sd, c, problems, weights_name, src_key, tgt_key, out_key)
    if problems.items:
        return None
    return MarianWeights(tensors=sd, source_embedding=sd[src_key], target_embedding=sd[tgt_key],
                         output_weight=sd[out_key] if out_key else None)
