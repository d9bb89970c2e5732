"""A checked Marian directory -> float32 model_ir.Model that computes what
transformers' modeling_marian.py computes.

Mapping: self_attn/encoder_attn.{q,k,v,out}_proj -> query, key, value,
output; fc1/fc2 -> up/down; self_attn_layer_norm, encoder_attn_layer_norm,
final_layer_norm -> the self-attention, cross-attention, feed-forward norms;
lm_head (the decoder embeddings when tied) + final_logits_bias -> the output
projection. Positions: sin in the first half of the dimensions, cos in the
second, from position 0 on both sides; a stored table that is not that
sinusoid is kept as a learned table.
"""
import math

import numpy as np

from ...format import model_ir as ir
from ...format.positions import matches_sinusoid, sinusoid_table

LAYER_NORM_EPS = 1e-5          # modeling_marian.py uses nn.LayerNorm's default
POSITION_LAYOUT = "halves"


def build_float_model(c, weights, tokenizer, generation, notes):
    """model_ir.Model of a MarianConfig, MarianWeights, MarianTokenizer and
    Generation that passed every check; notes gets what the summary should say."""
    sd = weights.tensors
    position_encoding, positions = _positions(sd, c, notes)
    src_emb, tgt_emb = weights.source_embedding, weights.target_embedding
    shared = src_emb is tgt_emb or (src_emb.shape == tgt_emb.shape and np.array_equal(src_emb, tgt_emb))
    if shared:
        notes.append("embeddings: encoder and decoder token embeddings are one table; stored once")
    projection = _output_projection(sd, c, weights.output_weight, notes)
    config = ir.Config(
        d_model=c.d_model, num_heads=c.heads, d_ff=c.d_ff, encoder_layers=c.encoder_layers,
        decoder_layers=c.decoder_layers, source_vocab_size=c.vocab_size, target_vocab_size=c.decoder_vocab_size,
        max_positions=c.max_positions, norm=ir.NORM_POST, layer_norm_epsilon=LAYER_NORM_EPS,
        activation=c.activation, embedding_scale=math.sqrt(c.d_model) if c.scale_embedding else 1.0,
        position_encoding=position_encoding, shared_embeddings=shared, tied_output=weights.output_weight is None,
        pad_id=tokenizer.pad_id(c.pad_id), unk_id=tokenizer.unk_id, bos_id=c.decoder_start_id, eos_id=c.eos_id,
        decoder_start_id=c.decoder_start_id, banned_ids=generation.banned_ids,
        default_beam_size=generation.beam_size, default_max_length=generation.max_length)
    encoder_layers, decoder_layers = _layers(sd, c)
    return ir.Model(
        config=config,
        encoder=ir.Encoder(token_embedding=None if shared else ir.Tensor(src_emb), positions=positions.get("encoder"),
                           layers=encoder_layers),
        decoder=ir.Decoder(token_embedding=ir.Tensor(tgt_emb), positions=positions.get("decoder"),
                           layers=decoder_layers, final_norm=None, output_projection=projection),
        tokenizer=tokenizer.to_ir(), format_minor=ir.FORMAT_MINOR_VOCABULARY)


def _positions(sd, c, notes):
    """(position_encoding, {side: table or None}): no tables for the sinusoid
    (stored or left out); Learned tables when a stored one differs."""
    positions = {}
    for side in ("encoder", "decoder"):
        table = sd.get("model.%s.embed_positions.weight" % side)
        if table is None:
            positions[side] = None
            continue
        ok, diff = matches_sinusoid(table, POSITION_LAYOUT)
        positions[side] = None if ok else table
        if not ok:
            notes.append("positions: model.%s.embed_positions differs from the sinusoid by up to %.3g; "
                         "stored as Learned tables" % (side, diff))
    if all(t is None for t in positions.values()):
        return ir.POS_HALVES, positions
    exact = sinusoid_table(c.max_positions, c.d_model, POSITION_LAYOUT)
    return ir.POS_LEARNED, {s: np.ascontiguousarray(t if t is not None else exact) for s, t in positions.items()}


def _output_projection(sd, c, out_weight, notes):
    if "final_logits_bias" in sd:
        logits_bias = np.ascontiguousarray(sd["final_logits_bias"][0])
    else:
        logits_bias = np.zeros(c.decoder_vocab_size, np.float32)
        notes.append("final_logits_bias: not in the file; zeros, as transformers starts it")
    return ir.Linear(weight=None if out_weight is None else ir.Tensor(out_weight), bias=logits_bias)


def _layers(sd, c):
    """(encoder layers, decoder layers) with modeling_marian.py's names."""
    def linear(prefix):
        return ir.Linear(weight=ir.Tensor(sd[prefix + ".weight"]), bias=sd[prefix + ".bias"])

    def attention(prefix):
        return ir.Attention(query=linear(prefix + ".q_proj"), key=linear(prefix + ".k_proj"),
                            value=linear(prefix + ".v_proj"), output=linear(prefix + ".out_proj"))

    def norm(prefix):
        return ir.LayerNorm(gamma=sd[prefix + ".weight"], beta=sd[prefix + ".bias"])

    def feed_forward(prefix):
        return ir.FeedForward(up=linear(prefix + "fc1"), down=linear(prefix + "fc2"))

    encoder = [ir.EncoderLayer(
        self_attention=attention(p + "self_attn"), self_attention_norm=norm(p + "self_attn_layer_norm"),
        feed_forward=feed_forward(p), feed_forward_norm=norm(p + "final_layer_norm"))
        for p in ("model.encoder.layers.%d." % i for i in range(c.encoder_layers))]
    decoder = [ir.DecoderLayer(
        self_attention=attention(p + "self_attn"), self_attention_norm=norm(p + "self_attn_layer_norm"),
        cross_attention=attention(p + "encoder_attn"), cross_attention_norm=norm(p + "encoder_attn_layer_norm"),
        feed_forward=feed_forward(p), feed_forward_norm=norm(p + "final_layer_norm"))
        for p in ("model.decoder.layers.%d." % i for i in range(c.decoder_layers))]
    return encoder, decoder
