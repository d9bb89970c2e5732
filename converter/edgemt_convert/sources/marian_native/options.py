"""special:model.yml: the options Marian saved with the model
(EncoderDecoder::getModelParameters), checked against what EdgeMT runs.

Marian's transformer as EdgeMT reproduces it (transformer.h at browsermt
marian-dev e88c1aa5): type transformer; post-norm sub-blocks
(transformer-preprocess "", transformer-postprocess "dan"); nothing but
dropout on the embeddings (transformer-postprocess-emb "d") and no final
norm (transformer-postprocess-top ""); a two-layer feed-forward block
(transformer-ffn-depth 2) with relu, swish (SiLU) or Marian's gelu (x *
sigmoid(1.702 x)); a self-attention decoder or, with
transformer-decoder-autoreg rnn and dec-cell ssru, one SSRU per decoder
layer; Marian's sinusoid. Every other value of those options is reported
together with the rest. Options that only matter in training (dropout,
guided alignment, label smoothing, ...) are accepted.
"""
from dataclasses import dataclass, field
from typing import List, Optional

from ...format import model_ir as ir

# Marian's names -> EdgeMT's (layers/generic.h: swish = x sigmoid(x), gelu = x sigmoid(1.702 x)).
ACTIVATIONS = {"relu": ir.ACT_RELU, "swish": ir.ACT_SILU, "gelu": ir.ACT_GELU_SIGMOID}
# (option, value EdgeMT needs, Marian's default, what another value is)
REQUIRED_VALUES = (
    ("transformer-preprocess", "", "", "operations before each sub-block (pre-norm)"),
    ("transformer-postprocess", "dan", "dan", "post-processing other than dropout-add-norm"),
    ("transformer-postprocess-emb", "d", "d", "processing of the embeddings other than dropout"),
    ("transformer-postprocess-top", "", "", "a final operation on the encoder and decoder outputs"),
    ("transformer-ffn-depth", 2, 2, "a feed-forward block with other than two layers"),
    ("right-left", False, False, "a right-to-left decoder"),
    ("transformer-train-position-embeddings", False, False, "learned positions"),
    ("transformer-train-positions", False, False, "learned positions"),
    ("transformer-no-projection", False, False, "attention without an output projection"),
    ("transformer-pool", False, False, "pooled encoder outputs"),
    ("ulr", False, False, "universal lexical representations (ULR)"),
    ("lemma-dim-emb", 0, 0, "factored vocabularies (lemma embeddings)"),
)


@dataclass
class Options:
    """The model.yml values the conversion uses (None: missing or invalid)."""
    raw: dict
    d_model: Optional[int] = None
    heads: Optional[int] = None
    d_ff: Optional[int] = None
    encoder_layers: Optional[int] = None
    decoder_layers: Optional[int] = None
    vocab_sizes: Optional[List[int]] = None
    activation: Optional[int] = None
    ssru: bool = False                      # transformer-decoder-autoreg rnn (dec-cell ssru)
    omit_output_bias: bool = False
    tied_all: bool = False
    tied_src: bool = False
    tied: bool = False
    version: str = ""
    unsupported: List[str] = field(default_factory=list)

    @property
    def complete(self):
        return None not in (self.d_model, self.heads, self.d_ff, self.encoder_layers, self.decoder_layers,
                            self.vocab_sizes, self.activation)


def _text(v):
    return '""' if v == "" else str(v).lower() if isinstance(v, bool) else str(v)


def read_options(raw, problems, where="model.yml"):
    """Options of the decoded special:model.yml; every problem added to `problems`."""
    o = Options(raw=raw)
    add = problems.add

    def integer(key, default=None, minimum=1):
        v = raw.get(key, default)
        if v is None:
            add("%s: missing %s" % (where, key))
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
            add("%s: %s must be an integer >= %d, got %r" % (where, key, minimum, v))
            return None
        return v

    def flag(key):
        v = raw.get(key, False)
        if not isinstance(v, bool):
            add("%s: %s must be true or false, got %r" % (where, key, v))
            return False
        return v

    kind = raw.get("type")
    if kind != "transformer":
        add("%s: type %s: EdgeMT runs Marian's transformer only" % (where, _text(kind) if kind is not None
                                                                    else "missing"))
    o.d_model = integer("dim-emb")
    o.heads = integer("transformer-heads", 8)
    o.d_ff = integer("transformer-dim-ffn", 2048)
    o.encoder_layers = integer("enc-depth")
    o.decoder_layers = integer("dec-depth")
    vocabs = raw.get("dim-vocabs")
    if isinstance(vocabs, list) and len(vocabs) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                             and v > 0 for v in vocabs):
        o.vocab_sizes = list(vocabs)
    elif isinstance(vocabs, list) and len(vocabs) > 2:
        add("%s: dim-vocabs has %d entries: a model with several source streams (EdgeMT has one source)"
            % (where, len(vocabs)))
    else:
        add("%s: dim-vocabs must be two positive sizes (source, target), got %r" % (where, vocabs))
    o.version = str(raw.get("version", ""))
    o.omit_output_bias = flag("output-omit-bias")
    o.tied_all, o.tied_src, o.tied = flag("tied-embeddings-all"), flag("tied-embeddings-src"), flag("tied-embeddings")
    if None not in (o.d_model, o.heads) and o.d_model % o.heads:
        add("%s: dim-emb %d is not a multiple of transformer-heads %d" % (where, o.d_model, o.heads))
    if o.d_model is not None and o.d_model % 2:
        add("%s: dim-emb %d must be even (sinusoidal positions)" % (where, o.d_model))
    _check_structure(o, raw, add, where)
    return o


def _unsupported(o, add, where, what):
    o.unsupported.append(what)
    add("%s: unsupported: %s" % (where, what))


def _check_structure(o, raw, add, where):
    act = raw.get("transformer-ffn-activation", "swish")
    o.activation = ACTIVATIONS.get(act) if isinstance(act, str) else None
    if o.activation is None:
        _unsupported(o, add, where, "transformer-ffn-activation %s (EdgeMT runs %s)"
                     % (_text(act), ", ".join(sorted(ACTIVATIONS))))
    autoreg = raw.get("transformer-decoder-autoreg", "self-attention")
    if autoreg == "rnn":
        cell = raw.get("dec-cell", "gru")
        if cell != "ssru":
            _unsupported(o, add, where, "transformer-decoder-autoreg rnn with dec-cell %s (EdgeMT runs the ssru cell)"
                         % _text(cell))
        if raw.get("layer-normalization", False) is True:
            _unsupported(o, add, where, "layer-normalization true (an SSRU with layer norms inside)")
        o.ssru = True
    elif autoreg == "average-attention":
        _unsupported(o, add, where, "transformer-decoder-autoreg average-attention (average attention networks)")
    elif autoreg != "self-attention":
        _unsupported(o, add, where, "transformer-decoder-autoreg %s" % _text(autoreg))
    for key, want, default, what in REQUIRED_VALUES:
        v = raw.get(key, default)
        if v is None and want == "":
            v = ""                          # an empty YAML value
        if v != want or isinstance(v, bool) != isinstance(want, bool):
            _unsupported(o, add, where, "%s %s: %s (EdgeMT needs %s)" % (key, _text(v), what, _text(want)))
    tied_layers = raw.get("transformer-tied-layers", [])
    if tied_layers not in ([], None, ""):
        _unsupported(o, add, where, "transformer-tied-layers %s (layers sharing weights)" % _text(tied_layers))
    for key in ("transformer-decoder-dim-ffn", "transformer-decoder-ffn-depth"):
        v = raw.get(key, 0)
        base = raw.get("transformer-dim-ffn" if key.endswith("dim-ffn") else "transformer-ffn-depth",
                       2048 if key.endswith("dim-ffn") else 2)
        if v not in (0, None) and v != base:
            _unsupported(o, add, where, "%s %s differs from the encoder's %s (EdgeMT models have one feed-forward "
                         "shape)" % (key, _text(v), _text(base)))
    if raw.get("factors-dim-emb", 0) not in (0, None):
        _unsupported(o, add, where, "factors-dim-emb %s (factored vocabularies)" % _text(raw["factors-dim-emb"]))
