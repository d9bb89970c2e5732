"""A Marian model file's items -> float32 model_ir, plus its intgemm8
weights as stored (an int8 .edgemt keeps them) and its alphas.

Names (transformer.h, rnn/cells.h; layers count from 1; a matrix W is
[in, out], y = x W + b, so the model_ir weight [out, in] is W transposed;
biases and LayerNorm parameters [1, n]):

  encoder_l{i}_self_{Wq,bq,Wk,bk,Wv,bv,Wo,bo}       encoder.layers.{i-1}.self_attention
  encoder_l{i}_self_Wo_ln_{scale,bias}              ... self_attention_norm (after the residual)
  encoder_l{i}_ffn_{W1,b1,W2,b2}                    ... feed_forward up, down
  encoder_l{i}_ffn_ffn_ln_{scale,bias}              ... feed_forward_norm
  decoder_l{i}_rnn_{W, Wf, bf}                      decoder.layers.{i-1}.ssru transform (no bias),
                                                    forget_gate
  decoder_l{i}_rnn_ffn_ln_{scale,bias}              ... self_attention_norm (the SSRU's)
  decoder_l{i}_self_*                               ... self_attention (a self-attention decoder)
  decoder_l{i}_context_*                            ... cross_attention, cross_attention_norm
  decoder_l{i}_ffn_*                                ... feed_forward, feed_forward_norm
  Wemb | encoder_Wemb + decoder_Wemb [V, d]         token embeddings (one table, or one per side)
  decoder_ff_logit_out_W [d, V] | _Wt [V, d]        an untied output projection (else the decoder's)
  decoder_ff_logit_out_b                            its bias (none with output-omit-bias)
  <matrix>_QuantMultA, none_QuantMultA              Bergamot's activation scales (alphas)

intgemm8 items keep their int8 values bit for bit, with one scale for every
row, float32(1 / qm): value = q * (1 / qm), in float32, as Marian dequantizes
its embeddings (binary.cpp); the float model gets those values.
"""
import math
import os

import numpy as np

from ...format import model_ir as ir
from ..reading import nonfinite, shape_str

LAYER_NORM_EPS = 1e-6          # Marian's, fixed (layers/generic.h layerNorm)
MAX_POSITIONS = 512            # Marian computes its sinusoid for any length; EdgeMT computes this many
ALPHA = "_QuantMultA"
OUTPUT_W, OUTPUT_WT, OUTPUT_B = "decoder_ff_logit_out_W", "decoder_ff_logit_out_Wt", "decoder_ff_logit_out_b"


class Weights:
    """Takes items by name, checking shapes and values; what is taken and what
    is quantized (by model_ir name) is remembered."""

    def __init__(self, model_file, problems):
        self.items, self.problems, self.name = model_file.items, problems, os.path.basename(model_file.path)
        self.used, self.stored = set(), {}

    def _item(self, key, shape):
        item = self.items.get(key)
        if item is None:
            self.problems.add("%s: missing %s" % (self.name, key))
            return None
        self.used.add(key)
        if tuple(item.shape) != tuple(shape) and not (len(shape) == 2 and shape[0] == 1
                                                      and tuple(item.shape) == (shape[1],)):
            self.problems.add("%s: %s has shape %s, the model's options imply %s"
                              % (self.name, key, shape_str(item.shape), shape_str(shape)))
            return None
        bad = nonfinite(item.values)
        if bad:
            self.problems.add("%s: %s contains %s" % (self.name, key, bad))
            return None
        return item

    def vector(self, key, n):
        item = self._item(key, (1, n))
        return None if item is None else np.ascontiguousarray(item.values.reshape(n))

    def matrix(self, key, shape, ir_name, transpose):
        """The model_ir [out, in] Tensor of a Marian matrix of `shape`: transposed
        (an [in, out] W) or as it is ([V, d] Wemb and Wt); int8 as stored kept."""
        item = self._item(key, shape)
        if item is None:
            return None
        orient = (lambda a: a.T) if transpose else (lambda a: a)
        values = np.ascontiguousarray(orient(item.values))
        if item.kind == "intgemm8" and ir_name is not None:
            q = np.ascontiguousarray(orient(item.q))
            scale = np.float32(1.0) / np.float32(item.qm)
            self.stored[ir_name] = ir.Tensor(q, np.full(q.shape[0], scale, dtype=np.float32))
        return ir.Tensor(values)

    def linear(self, prefix, w, b, n_in, n_out, ir_name):
        weight = self.matrix(prefix + "_" + w, (n_in, n_out), ir_name, transpose=True)
        bias = self.vector(prefix + "_" + b, n_out) if b else None
        return None if weight is None else ir.Linear(weight, bias)

    def norm(self, prefix):
        d = self.d
        gamma, beta = self.vector(prefix + "_ln_scale", d), self.vector(prefix + "_ln_bias", d)
        return None if gamma is None or beta is None else ir.LayerNorm(gamma, beta)

    def attention(self, prefix, ir_prefix):
        d = self.d
        parts = [self.linear(prefix, "W" + p, "b" + p, d, d, ir_prefix + name)
                 for p, name in (("q", "query"), ("k", "key"), ("v", "value"), ("o", "output"))]
        return ir.Attention(*parts)

    def feed_forward(self, prefix, ir_prefix):
        d, ff = self.d, self.d_ff
        return ir.FeedForward(self.linear(prefix, "W1", "b1", d, ff, ir_prefix + "up"),
                              self.linear(prefix, "W2", "b2", ff, d, ir_prefix + "down"))

    def leftovers(self):
        """Items nothing took (alphas and the options aside)."""
        return [k for k in self.items if k not in self.used and not k.endswith(ALPHA)]


def alphas(model_file):
    """{name: value} of the <matrix>_QuantMultA items (a Wemb one may be intgemm8: dequantized)."""
    out = {}
    for name, item in model_file.items.items():
        if name.endswith(ALPHA) and item.values.size == 1:
            out[name] = float(item.values.reshape(-1)[0])
    return out


def _embeddings(w, o, vocab_sizes, problems):
    """(source Tensor or None when shared, target Tensor, output Linear, shared, tied)."""
    d = o.d_model
    items = w.items
    src_v, trg_v = vocab_sizes
    if "Wemb" in items:
        if src_v != trg_v:
            problems.add("%s: one Wemb for both sides, but dim-vocabs differ (%d, %d)" % (w.name, src_v, trg_v))
            return None
        target = w.matrix("Wemb", (trg_v, d), "decoder.token_embedding", transpose=False)
        source, shared = None, True
        if not (o.tied_all or o.tied_src):
            problems.add("%s: one Wemb for both sides, but the options set neither tied-embeddings-all nor "
                         "tied-embeddings-src" % w.name)
    else:
        source = w.matrix("encoder_Wemb", (src_v, d), "encoder.token_embedding", transpose=False)
        target = w.matrix("decoder_Wemb", (trg_v, d), "decoder.token_embedding", transpose=False)
        shared = False
        if o.tied_all or o.tied_src:
            problems.add("%s: tied-embeddings-%s is set, but there is no Wemb (encoder_Wemb and decoder_Wemb instead)"
                         % (w.name, "all" if o.tied_all else "src"))
    bias = None if o.omit_output_bias else w.vector(OUTPUT_B, trg_v)
    if o.omit_output_bias and OUTPUT_B in items:
        problems.add("%s: output-omit-bias is set, but the file has %s" % (w.name, OUTPUT_B))
    if OUTPUT_W in items or OUTPUT_WT in items:
        if o.tied_all or o.tied:
            problems.add("%s: tied-embeddings%s is set, but the file has an output layer of its own (%s)"
                         % (w.name, "-all" if o.tied_all else "", OUTPUT_W if OUTPUT_W in items else OUTPUT_WT))
        if OUTPUT_W in items:
            weight = w.matrix(OUTPUT_W, (d, trg_v), "decoder.output_projection", transpose=True)
        else:
            weight = w.matrix(OUTPUT_WT, (trg_v, d), "decoder.output_projection", transpose=False)
        projection, tied = ir.Linear(weight, bias), False
    else:
        if not (o.tied_all or o.tied):
            problems.add("%s: no output layer (%s or %s), and the options do not tie it to the embeddings"
                         % (w.name, OUTPUT_W, OUTPUT_WT))
        projection, tied = ir.Linear(None, bias), True
    return source, target, projection, shared, tied


def build_model(model_file, o, vocabs, decoding, problems, notes):
    """(float model_ir.Model without tokenizer, {model_ir name: stored int8 Tensor}),
    or (None, None) with the problems added. decoding: {beam_size, length_penalty,
    max_length_factor} (0 or None: not stated)."""
    w = Weights(model_file, problems)
    w.d, w.d_ff = o.d_model, o.d_ff
    vocab_sizes = o.vocab_sizes
    if any(k == "Wpos" or k.endswith("_Wpos") for k in model_file.items):
        problems.add("%s: has learned positions (Wpos); Marian's inference reads none, EdgeMT runs the sinusoid"
                     % w.name)
    embeddings = _embeddings(w, o, vocab_sizes, problems)
    d = o.d_model
    encoder = []
    for i in range(o.encoder_layers):
        p, q = "encoder_l%d_" % (i + 1), "encoder.layers.%d." % i
        encoder.append(ir.EncoderLayer(
            self_attention=w.attention(p + "self", q + "self_attention."),
            self_attention_norm=w.norm(p + "self_Wo"),
            feed_forward=w.feed_forward(p + "ffn", q + "feed_forward."),
            feed_forward_norm=w.norm(p + "ffn_ffn")))
    decoder = []
    for i in range(o.decoder_layers):
        p, q = "decoder_l%d_" % (i + 1), "decoder.layers.%d." % i
        if o.ssru:
            ssru = ir.SSRU(transform=w.linear(p + "rnn", "W", None, d, d, q + "ssru.transform"),
                           forget_gate=w.linear(p + "rnn", "Wf", "bf", d, d, q + "ssru.forget_gate"))
            first, first_norm = None, w.norm(p + "rnn_ffn")
        else:
            ssru, first, first_norm = None, w.attention(p + "self", q + "self_attention."), w.norm(p + "self_Wo")
        decoder.append(ir.DecoderLayer(
            self_attention=first, self_attention_norm=first_norm,
            cross_attention=w.attention(p + "context", q + "cross_attention."),
            cross_attention_norm=w.norm(p + "context_Wo"),
            feed_forward=w.feed_forward(p + "ffn", q + "feed_forward."),
            feed_forward_norm=w.norm(p + "ffn_ffn"), ssru=ssru))
    left = w.leftovers()
    if left:
        problems.add("%s: %d item%s EdgeMT has no place for (not part of the model its options describe): %s%s"
                     % (w.name, len(left), "" if len(left) == 1 else "s", ", ".join(left[:8]),
                        ", ..." if len(left) > 8 else ""))
    if problems.items or embeddings is None:
        return None, None
    source, target, projection, shared, tied = embeddings
    factor = decoding.get("max_length_factor") or 2.0
    penalty = decoding.get("length_penalty")
    config = ir.Config(
        d_model=d, num_heads=o.heads, d_ff=o.d_ff, encoder_layers=o.encoder_layers, decoder_layers=o.decoder_layers,
        source_vocab_size=vocab_sizes[0], target_vocab_size=vocab_sizes[1], max_positions=MAX_POSITIONS,
        norm=ir.NORM_POST, layer_norm_epsilon=LAYER_NORM_EPS, activation=o.activation,
        embedding_scale=float(np.float32(math.sqrt(np.float32(d)))), position_encoding=ir.POS_MARIAN,
        shared_embeddings=shared, tied_output=tied,
        pad_id=0, unk_id=vocabs.target.unk, bos_id=0, eos_id=vocabs.target.eos, decoder_start_id=0,
        banned_ids=[vocabs.target.unk], default_beam_size=int(decoding.get("beam_size") or 0),
        source_bos=False, source_eos=True, default_length_penalty=1.0 if penalty is None else float(penalty),
        decoder_starts_from_zero=True, default_max_length_factor=float(factor), shrinking_beam=True)
    model = ir.Model(
        config=config,
        encoder=ir.Encoder(token_embedding=source, positions=None, layers=encoder),
        decoder=ir.Decoder(token_embedding=target, positions=None, layers=decoder, final_norm=None,
                           output_projection=projection),
        format_minor=ir.FORMAT_MINOR_MARIAN)
    return model, w.stored
