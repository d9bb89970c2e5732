"""Which Linears and token embeddings of an int4 file are int4 (docs/int4.md).

Each Linear's int4 error is measured on the model's own activations: the
float model greedily translates a fixed set of synthetic sources (random
token ids, the same for every conversion), every Linear's inputs along the
way are kept (by the function the caller hands in: the reference decoder's
reference.record.record_linear_inputs), and the int4 and int8 simulations
of the layer are compared with its float output on them. A layer whose int4
output error exceeds OUTPUT_ERROR_LIMIT stays int8, together with the layers
the runtime fuses with it (an attention's query, key and value;
cross-attention's key and value), since a fused product runs in one type.
So does a layer whose input width no block size divides.

The token embeddings are int4 (format 2.6) with a block of their own
(DEFAULT_EMBEDDING_BLOCK) unless the caller keeps them int8; an output
projection tied to the decoder embedding runs on it, so that embedding
takes the Linears' block (their speed) and their error rule.
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np
import torch

from ..format import model_ir as ir
from ..format.int4_encoding import BLOCK_MULTIPLE
from .int4 import Int4Linear, quantize_blocks
from .int8 import Int8Linear, quantize_tensor
from .linear import FloatLinear
from .model import linear_names

# Inputs per scale. Chosen by measurement (docs/int4.md, "Block size"): on
# Multi30k, BLEU and identical sentences do not change measurably from 32
# to 256 (a layer's error grows from 6.8% to 7.9%), while XNNPACK's x86
# kernel is fastest at 256 and slower than int8 at 32.
DEFAULT_BLOCK = 256

# Inputs per scale of the token embeddings (not tied to the output
# projection). Chosen by measurement (docs/int4.md, "Token embeddings"): on
# Multi30k (3,000 training sentences), embeddings at 256 lose 0.4 BLEU in
# beam 4 against int8 ones, at 32 nothing measurable, for 1.8% of the int8
# file's size; a lookup reads one row, so the block costs no speed.
DEFAULT_EMBEDDING_BLOCK = 32

# Relative RMS error of a layer's int4 output against its float output above
# which the layer stays int8 (docs/int4.md, "Layers kept in int8"). Multi30k's
# layers measure 3-12%; keeping those above 10% int8 (the feed-forward up
# projections) bought no measurable BLEU for 5% of the int8 file's size.
OUTPUT_ERROR_LIMIT = 0.15

SAMPLE_SENTENCES = 32
SAMPLE_SEED = 20241108
MAX_ROWS = 4096               # inputs kept per layer


@dataclass
class LayerError:
    name: str
    block: int                          # 0: no block size fits its input width
    int4_error: Optional[float]         # relative RMS output error of int4 (None: not measured)
    int8_error: Optional[float]
    kept_int8: bool = False
    reason: str = ""


@dataclass
class EmbeddingChoice:
    name: str                           # "encoder.token_embedding" or "decoder.token_embedding"
    block: int                          # 0: no block size fits d_model
    int4: bool
    reason: str = ""                    # why it is int8
    # a tied output projection's (int4, int8) output errors (the decoder embedding's; None: not tied)
    projection_errors: Optional[tuple] = None


@dataclass
class Int4Plan:
    int4: Dict[str, ir.Tensor]          # Linear or embedding name -> its int4 tensor (the one measured)
    layers: List[LayerError]
    sample: str                         # what the errors were measured on
    embeddings: List[EmbeddingChoice] = field(default_factory=list)
    limit: float = 0.0                  # the output error limit applied (inf: none)


def fused_groups(model):
    """Names of the Linears the runtime computes as one product, one list per
    product (every other Linear alone), in named_linears order."""
    names = linear_names(model)
    groups, seen = [], set()
    for name in names:
        if name in seen:
            continue
        prefix, _, part = name.rpartition(".")
        if prefix.endswith("self_attention") and part in ("query", "key", "value"):
            group = [prefix + "." + p for p in ("query", "key", "value")]
        elif prefix.endswith("cross_attention") and part in ("key", "value"):
            group = [prefix + "." + p for p in ("key", "value")]
        else:
            group = [name]
        groups.append(group)
        seen.update(group)
    return groups


def block_for(cols, block):
    """The largest multiple of 32 at most `block` that divides cols (0: none)."""
    for b in range(block - block % BLOCK_MULTIPLE, 0, -BLOCK_MULTIPLE):
        if cols % b == 0:
            return b
    return 0


def sample_sources(model):
    """Synthetic sources: random ids (no special tokens), 8-24 tokens and </s>."""
    c = model.config
    special = {c.pad_id, c.unk_id, c.bos_id, c.eos_id}
    pool = np.array([i for i in range(c.source_vocab_size) if i not in special])
    rng = np.random.default_rng(SAMPLE_SEED)
    longest = max(1, min(24, c.max_positions - 1))
    sources = []
    for _ in range(SAMPLE_SENTENCES):
        n = int(rng.integers(min(8, longest), longest + 1))
        sources.append([int(i) for i in rng.choice(pool, size=n)] + [c.eos_id])
    return sources


def _sample_rows(x):
    """At most MAX_ROWS of a layer's input rows, chosen with the sample's seed."""
    if x.shape[0] > MAX_ROWS:
        pick = torch.from_numpy(np.random.default_rng(SAMPLE_SEED).choice(x.shape[0], MAX_ROWS, replace=False))
        x = x[pick]
    return x


def _relative(y, ref):
    return float(torch.linalg.norm((y - ref).double()) / max(float(torch.linalg.norm(ref.double())), 1e-30))


def _output_errors(lin, int4_weight, x, fused_relu):
    """(int4, int8) relative RMS output errors of a float Linear on inputs x."""
    y = FloatLinear(lin.weight.data, lin.bias)(x)      # a float op leaves the fused ReLU to the caller
    if fused_relu:
        y = torch.clamp(y, min=0.0)
    e4 = _relative(Int4Linear(int4_weight, lin.bias, fused_relu)(x), y)
    e8 = _relative(Int8Linear(quantize_tensor(lin.weight), lin.bias, fused_relu)(x), y)
    return e4, e8


def _measure(model, inputs, block, keep_float, progress):
    """({name: LayerError}, {name: int4 ir.Tensor}) of every Linear with a
    weight of its own and not in keep_float."""
    relu = model.config.activation == ir.ACT_RELU
    linears = dict(model.named_linears())
    errors, weights = {}, {}
    for name in linear_names(model):
        if name in keep_float:
            continue
        lin = linears[name]
        b = block_for(lin.weight.shape[1], block)
        e4 = e8 = None
        if b:
            weights[name] = ir.Tensor(*quantize_blocks(lin.weight.data, b), block_size=b)
            if name in inputs:
                e4, e8 = _output_errors(lin, weights[name], inputs[name], relu and name.endswith("feed_forward.up"))
        errors[name] = LayerError(name, b, e4, e8)
        if progress:
            progress(1)
    return errors, weights


def _keep_groups_int8(model, errors, limit):
    """Marks every member of a fused group int8 when one member must be."""
    for group in fused_groups(model):
        members = [errors[n] for n in group if n in errors]
        if not members:
            continue
        if any(m.block == 0 for m in members):
            reason = "no block size divides the input width"
        elif any(m.int4_error is not None and m.int4_error > limit for m in members):
            reason = "int4 output error above %g%%" % (100 * limit)
        elif len(members) < len(group):
            reason = "fused with a layer kept in float32"
        else:
            continue
        for m in members:
            m.kept_int8, m.reason = True, reason


def _embeddings(model, block, embedding_block, int8_embeddings, inputs, limit):
    """([EmbeddingChoice], {name: int4 ir.Tensor}) of the token embeddings:
    int4 unless int8_embeddings or no block size divides d_model, at
    block_for(d_model, embedding_block) (None: DEFAULT_EMBEDDING_BLOCK). An
    output projection tied to the decoder embedding runs on it: that
    embedding takes `block` unless embedding_block is given, and the rule of
    the Linears (int8 when its int4 output error is above the limit)."""
    choices, weights = [], {}
    tied = "decoder.output_projection" if model.config.tied_output else None
    for name, t in model.token_embeddings():
        is_tied = tied is not None and name == "decoder.token_embedding"
        wanted = embedding_block or (block if is_tied else DEFAULT_EMBEDDING_BLOCK)
        b = block_for(t.shape[1], wanted)
        if int8_embeddings:
            choices.append(EmbeddingChoice(name, b, False, "--int8-embeddings"))
            continue
        if not b:
            choices.append(EmbeddingChoice(name, 0, False, "no block size divides d_model"))
            continue
        weight = ir.Tensor(*quantize_blocks(t.data, b), block_size=b)
        choice = EmbeddingChoice(name, b, True)
        if is_tied and tied in inputs:
            lin = ir.Linear(t, model.decoder.output_projection.bias)
            choice.projection_errors = _output_errors(lin, weight, inputs[tied], False)
            if choice.projection_errors[0] > limit:
                choice.int4, choice.reason = False, "tied output projection's int4 output error above %g%%" % (
                    100 * limit)
        if choice.int4:
            weights[name] = weight
        choices.append(choice)
    return choices, weights


@torch.no_grad()
def plan_int4(model, block, record_inputs, keep_float=(), progress=None, int8_embeddings=False,
              embedding_block=None, limit=None):
    """Int4Plan for a float model: every Linear with a weight of its own and
    not in keep_float is int4 unless its group's error (above `limit`, None:
    OUTPUT_ERROR_LIMIT) says int8; the token embeddings are int4 unless
    int8_embeddings (_embeddings: their block).
    record_inputs(model, sources) returns {Linear name: its input rows [n, in]}
    while the float model greedily translates sources (id lists):
    reference.record.record_linear_inputs."""
    recorded = record_inputs(model, sample_sources(model))
    inputs = {name: _sample_rows(x) for name, x in recorded.items()}
    limit = OUTPUT_ERROR_LIMIT if limit is None else limit
    errors, weights = _measure(model, inputs, block, keep_float, progress)
    _keep_groups_int8(model, errors, limit)
    layers = [errors[n] for n in linear_names(model) if n in errors]
    int4 = {m.name: weights[m.name] for m in layers if not m.kept_int8}
    embeddings, embedding_weights = _embeddings(model, block, embedding_block, int8_embeddings, inputs, limit)
    int4.update(embedding_weights)
    sample = "%d synthetic sources (random ids, seed %d) and the float model's greedy translations" % (
        SAMPLE_SENTENCES, SAMPLE_SEED)
    return Int4Plan(int4=int4, layers=layers, sample=sample, embeddings=embeddings, limit=limit)
