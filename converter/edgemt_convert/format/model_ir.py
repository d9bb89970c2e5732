"""The in-memory model: exactly what a .edgemt file holds, as numpy arrays.

The builder produces it from a checkpoint, quantization turns its weights to
int8 (activations are quantized by the runtime, per row, from the values at
hand: docs/int8.md), the writer serializes it and the reader
gives it back. The reference model runs it, so a file read back runs the same
code path as the model it was written from. Names follow schema/edgemt.fbs.
"""
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np

# Enum values of schema/edgemt.fbs.
NORM_POST, NORM_PRE = 0, 1
# Format 2.4: the NormPlacement a file states when a stack has an embedding_norm
# (model_ir keeps NORM_POST / NORM_PRE in Config.norm; the writer and reader map).
NORM_WITH_EMBEDDING_NORM = {NORM_POST: 2, NORM_PRE: 3}
ACT_RELU, ACT_GELU, ACT_SILU, ACT_GELU_TANH, ACT_GELU_SIGMOID = 0, 1, 2, 3, 4
POS_INTERLEAVED, POS_HALVES, POS_LEARNED, POS_OPENNMT, POS_MARIAN = 0, 1, 2, 3, 4
TYPE_FLOAT32, TYPE_INT8, TYPE_INT4 = 0, 1, 2

NORM_NAMES = {NORM_POST: "post", NORM_PRE: "pre"}
ACT_NAMES = {ACT_RELU: "relu", ACT_GELU: "gelu", ACT_SILU: "silu", ACT_GELU_TANH: "gelu-tanh",
             ACT_GELU_SIGMOID: "gelu-sigmoid"}
POS_NAMES = {POS_INTERLEAVED: "interleaved", POS_HALVES: "halves", POS_LEARNED: "learned", POS_OPENNMT: "opennmt",
             POS_MARIAN: "marian"}


@dataclass
class Tensor:
    """Float32 (scales None), symmetric per-row Int8 (value = q * scales[row]),
    or Int4 (block_size > 0): q in [-8, 7] held as int8, scales [rows, cols /
    block_size] bfloat16 values as float32, value = q * scales[row, col / block_size]."""
    data: np.ndarray
    scales: Optional[np.ndarray] = None
    block_size: int = 0

    @property
    def is_int8(self):
        return self.data.dtype == np.int8 and self.block_size == 0

    @property
    def is_int4(self):
        return self.block_size > 0

    @property
    def is_quantized(self):
        return self.data.dtype == np.int8

    @property
    def shape(self):
        return tuple(self.data.shape)

    def dequantize(self):
        """float32 values; int8 rows are q * s in float32, as the runtime computes
        (exact for int4: a 4-bit q times a bfloat16 scale)."""
        if self.is_int8:
            return self.data.astype(np.float32) * self.scales[:, None]
        if self.is_int4:
            return self.data.astype(np.float32) * np.repeat(self.scales, self.block_size, axis=1)
        return self.data


@dataclass
class Linear:
    weight: Optional[Tensor]              # [out, in]; None: tied output projection
    bias: Optional[np.ndarray] = None     # float32 [out]


@dataclass
class LayerNorm:
    gamma: np.ndarray
    beta: np.ndarray


@dataclass
class Attention:
    query: Linear
    key: Linear
    value: Linear
    output: Linear


@dataclass
class FeedForward:
    up: Linear
    down: Linear


@dataclass
class EncoderLayer:
    self_attention: Attention
    self_attention_norm: LayerNorm
    feed_forward: FeedForward
    feed_forward_norm: LayerNorm


@dataclass
class SSRU:
    """Format 2.8: Marian's simpler simple recurrent unit, a decoder layer's first
    block in place of self-attention: f = sigmoid(forget_gate(x)),
    c = f * c_prev + (1 - f) * transform(x) (c_prev = 0 at the first step),
    output relu(c), then the residual and self_attention_norm as after attention."""
    transform: Linear                     # [d, d], no bias
    forget_gate: Linear                   # [d, d] with a bias


@dataclass
class DecoderLayer:
    self_attention: Optional[Attention]   # None when ssru
    self_attention_norm: LayerNorm        # the first block's norm (self-attention or SSRU)
    cross_attention: Attention
    cross_attention_norm: LayerNorm
    feed_forward: FeedForward
    feed_forward_norm: LayerNorm
    ssru: Optional[SSRU] = None           # format 2.8


@dataclass
class Encoder:
    token_embedding: Optional[Tensor]     # None when Config.shared_embeddings
    positions: Optional[np.ndarray]       # [max_positions, d] only for POS_LEARNED
    layers: List[EncoderLayer]
    final_norm: Optional[LayerNorm] = None
    embedding_norm: Optional[LayerNorm] = None    # format 2.4: on the embeddings, before the first layer


@dataclass
class Decoder:
    token_embedding: Tensor
    positions: Optional[np.ndarray]
    layers: List[DecoderLayer]
    final_norm: Optional[LayerNorm]
    output_projection: Linear
    embedding_norm: Optional[LayerNorm] = None    # format 2.4


@dataclass
class Config:
    d_model: int
    num_heads: int
    d_ff: int
    encoder_layers: int
    decoder_layers: int
    source_vocab_size: int
    target_vocab_size: int
    max_positions: int
    norm: int = NORM_POST
    layer_norm_epsilon: float = 1e-5
    activation: int = ACT_RELU
    embedding_scale: float = 1.0
    position_encoding: int = POS_INTERLEAVED
    shared_embeddings: bool = False
    tied_output: bool = False
    pad_id: int = 0
    unk_id: int = 1
    bos_id: int = 2
    eos_id: int = 3
    decoder_start_id: int = 2
    banned_ids: Optional[List[int]] = None    # None: not stated (format 2.2 field)
    default_beam_size: int = 0                # 0: not stated
    default_max_length: int = 0
    source_bos: bool = False                  # format 2.3: bos_id before a source's tokens
    source_eos: bool = True                   # format 2.3: eos_id after them
    default_length_penalty: float = 1.0       # format 2.3: 1: not stated (the runtime's default)
    # Format 2.8 (Marian): the first decoder input is a zero embedding (plus position 0's)
    # rather than decoder_start_id's row.
    decoder_starts_from_zero: bool = False
    # Format 2.8: the checkpoint's length limit, at most ceil(factor x source ids, </s>
    # included) decoder steps (Marian's max-length-factor); 0: not stated (the runtime's rule).
    default_max_length_factor: float = 0.0
    # Format 2.8: Marian's beam search (a finished hypothesis leaves the beam, which shrinks).
    shrinking_beam: bool = False


@dataclass
class Tokenizer:
    source_model: Optional[bytes]             # None (format 2.3): text is tokens separated by spaces
    target_model: Optional[bytes] = None
    # The piece of each model id when the model's ids are not SentencePiece's
    # (Marian); target_vocabulary None: the source one serves both sides.
    source_vocabulary: Optional[List[str]] = None
    target_vocabulary: Optional[List[str]] = None


@dataclass
class Metadata:
    source_language: str = ""
    target_language: str = ""
    converter_version: str = ""
    source_checkpoint: str = ""
    dtype: str = "float32"
    quantization_summary: str = ""
    source_language_name: str = ""            # format 2.3
    target_language_name: str = ""


FORMAT_MAJOR = 2
FORMAT_MINOR = 0          # a file states the oldest minor version that reads it fully
FORMAT_MINOR_INT4 = 1     # Int4 tensors
FORMAT_MINOR_VOCABULARY = 2  # vocabularies, banned ids, default decoding settings
FORMAT_MINOR_CTRANSLATE2 = 3  # GELU approximations, OpenNMT's sinusoid, source bos/eos, plain-token vocabularies
FORMAT_MINOR_EMBEDDING_NORM = 4  # embedding norms (NORM_WITH_EMBEDDING_NORM)
FORMAT_MINOR_SHORTLIST = 5   # a vocabulary shortlist (Model.shortlist)
FORMAT_MINOR_INT4_EMBEDDINGS = 6  # Int4 token embeddings (and a projection tied to one)
FORMAT_MINOR_SHORTLIST_SUMS = 7  # Shortlist.output_row_sum / output_bias_sum (written with every shortlist)
FORMAT_MINOR_MARIAN = 8      # SSRU decoder layers, Marian's sinusoid, the zero start, the length factor
FORMAT_MINOR_SHORTLIST_PADDING = 9  # Shortlist.pad_multiple / pad_from / pad_uncounted (Marian's padding)


@dataclass
class Shortlist:
    """Format 2.5: the target ids a translation may use (docs/shortlist.md):
    the union of its source ids' candidates and the frequent ids.
    format/shortlist.py states the rules (validate) and the writer checks them."""
    frequent: np.ndarray            # int32: ids every translation may use, ascending, each once
    # source id i's candidates are candidates[offsets[i]:offsets[i + 1]]
    offsets: np.ndarray             # uint32 [source_vocab_size + 1], non-decreasing, from 0 to len(candidates)
    candidates: np.ndarray          # int32 target ids, ascending and each once within a source id's range
    description: str = ""           # how it was made, for people
    # Format 2.9, Marian's padding: a source's set is completed with the lowest ids >= pad_from it lacks
    # until its size + pad_uncounted (ids Marian's set has that this one never lists) is a multiple of
    # pad_multiple. 0: none.
    pad_multiple: int = 0
    pad_from: int = 0
    pad_uncounted: int = 0


@dataclass
class Model:
    config: Config
    encoder: Encoder
    decoder: Decoder
    tokenizer: Optional[Tokenizer] = None
    metadata: Metadata = field(default_factory=Metadata)
    format_major: int = FORMAT_MAJOR
    format_minor: int = FORMAT_MINOR
    shortlist: Optional[Shortlist] = None     # format 2.5 (the schema's last Model field)

    def set_shortlist(self, shortlist):
        """Gives the model a shortlist (None: none); a file with one is format 2.7
        (the writer adds 2.7's sums of the output projection)."""
        self.shortlist = shortlist
        if shortlist is not None:
            self.format_minor = max(self.format_minor, FORMAT_MINOR_SHORTLIST_SUMS)

    def token_embeddings(self):
        """(name, Tensor) of the token embeddings the file holds (the encoder's
        is absent when Config.shared_embeddings)."""
        out = [] if self.encoder.token_embedding is None else [("encoder.token_embedding", self.encoder.token_embedding)]
        return out + [("decoder.token_embedding", self.decoder.token_embedding)]

    def has_int4_embedding(self):
        """Whether a token embedding is Int4: the file is then format 2.6."""
        return any(t.is_int4 for _, t in self.token_embeddings())

    def uses_marian_features(self):
        """Whether the file needs format 2.8 (model_ir.FORMAT_MINOR_MARIAN)."""
        c = self.config
        return (any(layer.ssru is not None for layer in self.decoder.layers) or c.position_encoding == POS_MARIAN
                or c.decoder_starts_from_zero or c.default_max_length_factor != 0.0
                or c.shrinking_beam)

    def has_embedding_norm(self):
        return self.encoder.embedding_norm is not None or self.decoder.embedding_norm is not None

    def source_embedding(self):
        return self.decoder.token_embedding if self.config.shared_embeddings else self.encoder.token_embedding

    def output_weight(self):
        """The output projection's weight Tensor (the decoder embedding when tied)."""
        if self.config.tied_output:
            return self.decoder.token_embedding
        return self.decoder.output_projection.weight

    def named_linears(self):
        """(name, Linear) for every Linear, in a fixed order; names are stable
        and used in summaries and by --keep-float, e.g. "decoder.layers.0.cross_attention.key"."""
        out = []
        for i, layer in enumerate(self.encoder.layers):
            p = "encoder.layers.%d." % i
            for part in ("query", "key", "value", "output"):
                out.append((p + "self_attention." + part, getattr(layer.self_attention, part)))
            out.append((p + "feed_forward.up", layer.feed_forward.up))
            out.append((p + "feed_forward.down", layer.feed_forward.down))
        for i, layer in enumerate(self.decoder.layers):
            p = "decoder.layers.%d." % i
            if layer.ssru is not None:
                out.append((p + "ssru.transform", layer.ssru.transform))
                out.append((p + "ssru.forget_gate", layer.ssru.forget_gate))
            for block in ("self_attention", "cross_attention"):
                if getattr(layer, block) is None:
                    continue
                for part in ("query", "key", "value", "output"):
                    out.append((p + block + "." + part, getattr(getattr(layer, block), part)))
            out.append((p + "feed_forward.up", layer.feed_forward.up))
            out.append((p + "feed_forward.down", layer.feed_forward.down))
        out.append(("decoder.output_projection", self.decoder.output_projection))
        return out

    def is_int8(self):
        return any(self.linear_weight(l).is_quantized for _, l in self.named_linears())

    def linear_weight(self, linear):
        if linear is self.decoder.output_projection and self.config.tied_output:
            return self.decoder.token_embedding
        return linear.weight
