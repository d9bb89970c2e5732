"""What a CTranslate2 TransformerSpec file describes, read from its variables
as CTranslate2 4.x's loader reads them (old revisions upgraded the same way),
and every part of it EdgeMT cannot run, as problems.

Older files: revision 1 keeps OpenNMT-tf's variable names (renamed here as
CTranslate2's map_v1_variable_name does); before revision 3 the head count
comes from the spec's name (TransformerBase 8, TransformerBig 16); before
revision 5 the attributes sit at the root instead of under encoder/ and
decoder/; before revision 4 the encoder's embedding is embeddings/, not
embeddings_0/.
"""
import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...format import model_ir as ir

# CTranslate2's activation ids (ops::ActivationType) -> EdgeMT's, None where EdgeMT has none.
ACTIVATIONS = {0: ("ReLU", ir.ACT_RELU), 1: ("GELUTanh", ir.ACT_GELU_TANH), 2: ("Swish", ir.ACT_SILU),
               3: ("GELU", ir.ACT_GELU), 4: ("GELUSigmoid", ir.ACT_GELU_SIGMOID), 5: ("Tanh", None),
               6: ("Sigmoid", None)}
SPEC_HEADS = {"": 8, "TransformerBase": 8, "TransformerBig": 16}
SEQ2SEQ_SPECS = ("", "TransformerBase", "TransformerBig", "TransformerSpec")

# Parts of a layer EdgeMT has no operation for: (variable name suffix, what it is).
UNSUPPORTED_LAYER_PARTS = (
    ("relative_position_keys", "relative position representations"),
    ("relative_attention_bias", "relative attention bias (T5)"),
    ("rotary_dim", "rotary position embeddings"),
    ("num_heads_kv", "multi-query / grouped-query attention"),
    ("linear_0_noact/weight", "a gated (GLU) feed-forward"),
    ("q_norm/gamma", "query/key normalization"),
    ("queries_scale", "a query scale other than 1/sqrt(head size)"),
    ("head_dim", "a head size other than d_model / heads"),
    ("sliding_window", "sliding-window attention"),
    ("layer_scalar", "scaled layer outputs"),
    ("input_layer_norm/gamma", "pre- and post-sublayer norms"),
)


@dataclass
class Spec:
    d_model: int
    d_ff: int
    heads: int
    encoder_layers: int
    decoder_layers: int
    pre_norm: bool
    activation: Optional[int]          # EdgeMT's id
    embedding_scale: float
    source_vocab_rows: int
    target_vocab_rows: int
    stored_positions: bool             # a position table in the file (else CTranslate2's sinusoid)
    projection_bias: bool


def v1_name(name):
    """A revision-1 (OpenNMT-tf) variable name as CTranslate2 renames it: each
    replacement applies once, to the first occurrence."""
    def once(s, a, b):
        i = s.find(a)
        return s if i < 0 else s[:i] + b + s[i + len(a):]
    for a, b in (("transformer/", ""), (":0", ""), ("w_embs", "embeddings/weight"), ("kernel", "weight"),
                 ("LayerNorm", "layer_norm"), ("dense", "projection"), ("conv1d_", "linear_"),
                 ("conv1d", "linear_0")):
        name = once(name, a, b)
    if "encoder" in name:
        return once(name, "multi_head", "self_attention")
    return once(once(name, "masked_multi_head", "self_attention"), "multi_head", "attention")


def upgrade(model_bin):
    """Gives an old revision's variables the current names (in place)."""
    if model_bin.revision == 1:
        model_bin.variables = {v1_name(n): v for n, v in model_bin.variables.items()}
        model_bin.types = {v1_name(n): t for n, t in model_bin.types.items()}
    if model_bin.revision < 3 and "num_heads" not in model_bin.variables:
        model_bin.variables["num_heads"] = np.array(SPEC_HEADS.get(model_bin.spec, 8), np.int8)
    if model_bin.revision < 5:
        for side, names in (("encoder", ("num_heads", "pre_norm", "activation", "embeddings_merge")),
                            ("decoder", ("num_heads", "pre_norm", "activation"))):
            for n in names:
                if n in model_bin.variables:
                    model_bin.aliases.setdefault("%s/%s" % (side, n), n)


def encoder_embedding_name(model_bin):
    """encoder/embeddings/weight (before revision 4) or encoder/embeddings_0/weight."""
    return "encoder/embeddings/weight" if model_bin.get("encoder/embeddings/weight") is not None \
        else "encoder/embeddings_0/weight"


def attribute(model_bin, name, default):
    value = model_bin.get(name)
    return default if value is None else value


def read_spec(model_bin, config, problems):
    """Spec, or None with every problem added."""
    if model_bin.spec not in SEQ2SEQ_SPECS:
        problems.add("spec %r: EdgeMT runs encoder-decoder Transformers (TransformerSpec) only%s"
                     % (model_bin.spec, "; decoder-only models are not supported"
                        if "Decoder" in model_bin.spec else ""))
        return None
    upgrade(model_bin)
    emb = model_bin.get(encoder_embedding_name(model_bin))
    dec_emb = model_bin.get("decoder/embeddings/weight")
    if emb is None or dec_emb is None or emb.ndim != 2 or dec_emb.ndim != 2:
        problems.add("no encoder and decoder embeddings (encoder/embeddings_0/weight, decoder/embeddings/weight)")
        return None
    layers = [_count_layers(model_bin, side) for side in ("encoder", "decoder")]
    if min(layers) == 0:
        problems.add("no encoder or decoder layers")
        return None
    d = int(dec_emb.shape[1])
    up = model_bin.get("encoder/layer_0/ffn/linear_0/weight")
    heads = {int(attribute(model_bin, side + "/num_heads", 8)) for side in ("encoder", "decoder")}
    pre_norm = {bool(attribute(model_bin, side + "/pre_norm", True)) for side in ("encoder", "decoder")}
    acts = {int(attribute(model_bin, side + "/activation", 0)) for side in ("encoder", "decoder")}
    scales = {_embedding_scale(model_bin, side, d) for side in ("encoder", "decoder")}
    _check_supported(model_bin, config, layers, problems)
    for what, values in (("head counts", heads), ("norm placements", pre_norm), ("activations", acts),
                         ("embedding scales", scales)):
        if len(values) > 1:
            problems.add("the encoder and decoder differ in their %s (%s): EdgeMT has one for both"
                         % (what, sorted(values)))
    act = next(iter(acts))
    name, ours = ACTIVATIONS.get(act, ("id %d" % act, None))
    if ours is None:
        problems.add("activation %s: EdgeMT's feed-forward blocks use ReLU, GELU (erf, tanh or sigmoid) or SiLU" % name)
    h = next(iter(heads))
    if h <= 0 or d % h:
        problems.add("d_model %d is not a multiple of %d heads" % (d, h))
    stored = [model_bin.get(s + "/position_encodings/encodings") is not None for s in ("encoder", "decoder")]
    if stored[0] != stored[1]:
        problems.add("one side stores its position table and the other computes it: EdgeMT needs the same on both")
    if int(emb.shape[1]) != d or up is None:
        problems.add("the encoder's embeddings or feed-forward are missing or not %d wide" % d)
        return None
    return Spec(d_model=d, d_ff=int(up.shape[0]), heads=h, encoder_layers=layers[0], decoder_layers=layers[1],
                pre_norm=next(iter(pre_norm)), activation=ours, embedding_scale=next(iter(scales)),
                source_vocab_rows=int(emb.shape[0]), target_vocab_rows=int(dec_emb.shape[0]),
                stored_positions=stored[0], projection_bias=model_bin.get("decoder/projection/bias") is not None)


def _count_layers(model_bin, side):
    n = 0
    while model_bin.has_scope("%s/layer_%d" % (side, n)):
        n += 1
    return n


def _embedding_scale(model_bin, side, d):
    """CTranslate2's build_embeddings_scale: sqrt(d) unless scale_embeddings (or
    the older embeddings/multiply_by_sqrt_depth) is false, or a float value."""
    value = model_bin.get(side + "/scale_embeddings")
    if value is None:
        value = model_bin.get(side + "/embeddings/multiply_by_sqrt_depth")
    if value is None:
        return float(np.float32(math.sqrt(d)))
    if value.dtype == np.int8:
        return float(np.float32(math.sqrt(d))) if int(value) else 1.0
    return float(np.float32(value))


def _check_supported(model_bin, config, layers, problems):
    """Adds a problem for every part EdgeMT cannot run."""
    found = []
    names = list(model_bin.variables) + list(model_bin.aliases)
    for suffix, what in UNSUPPORTED_LAYER_PARTS:
        if any(n.endswith("/" + suffix) for n in names) and what not in found:
            found.append(what)
    if any(n.endswith("layer_norm/gamma") and model_bin.get(n[: -len("gamma")] + "beta") is None for n in names):
        found.append("RMS normalization (layer norms without beta)")
    if model_bin.get("encoder/embeddings_1/weight") is not None:
        found.append("several source features (encoder/embeddings_1)")
    for flag, what in (("decoder/alibi", "ALiBi attention biases"),
                       ("decoder/start_from_zero_embedding", "a zero embedding for the first decoder step")):
        if int(attribute(model_bin, flag, 0)):
            found.append(what)
    for opt, what in (("decoder/scale_outputs", "scaled decoder outputs"),
                      ("decoder/final_logit_softcapping", "logit soft-capping")):
        if model_bin.get(opt) is not None:
            found.append(what)
    if model_bin.has_scope("decoder/project_in"):
        found.append("decoder input/output projections (project_in/project_out)")
    if not model_bin.has_scope("decoder/layer_0/attention"):
        found.append("a decoder without cross-attention")
    if config.get("multi_query_attention"):
        found.append("multi-query attention")
    for what in found:
        problems.add("unsupported: " + what)
