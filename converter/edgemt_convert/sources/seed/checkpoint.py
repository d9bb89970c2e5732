"""model.pt: load the seed-layout state_dict and validate it against config.json.

Every check fails with a one-line ConversionError naming the file and the
first offending key, so that a user sees what is wrong without a traceback.
"""
import os

from ...errors import ConversionError
from ..reading import load_torch, nonfinite, shape_str, to_float32


def expected_shapes(cfg):
    """{key: shape} of a seed-layout state_dict for this config, in file order."""
    d, ff, L = cfg.d_model, cfg.d_ff, cfg.max_seq_len
    shapes = {}

    def attention(prefix):
        shapes[prefix + ".in_proj_weight"] = (3 * d, d)
        shapes[prefix + ".in_proj_bias"] = (3 * d,)
        shapes[prefix + ".out_proj.weight"] = (d, d)
        shapes[prefix + ".out_proj.bias"] = (d,)

    def feed_forward(prefix):
        shapes[prefix + ".0.weight"] = (ff, d)
        shapes[prefix + ".0.bias"] = (ff,)
        shapes[prefix + ".3.weight"] = (d, ff)
        shapes[prefix + ".3.bias"] = (d,)

    def norm(prefix):
        shapes[prefix + ".weight"] = (d,)
        shapes[prefix + ".bias"] = (d,)

    # Per side: its vocabulary, its attention blocks (a decoder layer adds cross_attn) and norms 1..3.
    for side, vocab, layers, blocks in (("encoder", cfg.src_vocab_size, cfg.n_encoder_layers, ("self_attn",)),
                                        ("decoder", cfg.tgt_vocab_size, cfg.n_decoder_layers,
                                         ("self_attn", "cross_attn"))):
        shapes[side + ".token_embedding.weight"] = (vocab, d)
        shapes[side + ".positional_encoding"] = (1, L, d)
        for i in range(layers):
            p = "%s.layers.%d." % (side, i)
            for block in blocks:
                attention(p + block)
            feed_forward(p + "feed_forward")
            for n in range(len(blocks) + 1):
                norm(p + "norm%d" % (n + 1))
    if cfg.norm == "pre":
        norm("encoder.final_norm")
        norm("decoder.final_norm")
    if not cfg.tie_output:
        shapes["decoder.output_projection.weight"] = (cfg.tgt_vocab_size, d)
    shapes["decoder.output_projection.bias"] = (cfg.tgt_vocab_size,)
    return shapes


def _fail(msg):
    raise ConversionError("model.pt: " + msg)


def _first_and_count(keys):
    keys = list(keys)
    more = " (and %d more)" % (len(keys) - 1) if len(keys) > 1 else ""
    return keys[0] + more


def _read(path):
    if not os.path.exists(path):
        _fail("not found in " + os.path.dirname(path))
    return load_torch(path)


def validate_state_dict(sd, cfg):
    """Checks keys, shapes, dtypes and values; returns {key: float32 ndarray}."""
    import torch
    if not isinstance(sd, dict):
        _fail("not a state_dict (found %s)" % type(sd).__name__)
    want = expected_shapes(cfg)
    # A checkpoint saved with {"model": state_dict} or similar wrappers.
    bad = [k for k, v in sd.items() if not isinstance(k, str) or not isinstance(v, torch.Tensor)]
    if bad:
        _fail("not a state_dict of tensors (entry %r is a %s)" % (bad[0], type(sd[bad[0]]).__name__))
    missing = [k for k in want if k not in sd]
    if missing:
        _fail("missing key " + _first_and_count(missing))
    extra = [k for k in sd if k not in want]
    if extra:
        hint = ""
        if "decoder.output_projection.weight" in extra and cfg.tie_output:
            hint = " (config.json says tie_output: true)"
        elif any(k.endswith("final_norm.weight") for k in extra) and cfg.norm == "post":
            hint = " (config.json says norm: post)"
        _fail("unexpected key " + _first_and_count(extra) + hint)
    out = {}
    for key, shape in want.items():
        t = sd[key]
        if tuple(t.shape) != shape:
            _fail("%s has shape %s, expected %s from config.json" % (key, shape_str(t.shape), shape_str(shape)))
        if not t.is_floating_point():
            _fail("%s has dtype %s, expected a floating-point tensor" % (key, str(t.dtype).replace("torch.", "")))
        a = to_float32(t)
        what = nonfinite(a)
        if what:
            _fail("%s contains %s" % (key, what))
        out[key] = a
    return out


def load_state_dict(checkpoint_dir, cfg):
    return validate_state_dict(_read(os.path.join(checkpoint_dir, "model.pt")), cfg)
