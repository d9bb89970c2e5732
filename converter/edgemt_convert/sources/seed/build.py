"""Seed-layout state_dict -> float32 model_ir.Model (the schema's structure).

Mapping (docs in schema/edgemt.fbs):
  self_attn/cross_attn.in_proj_weight rows 0:d, d:2d, 2d:3d -> query, key, value
  *.out_proj                                                -> output
  feed_forward.0 / feed_forward.3                           -> up / down
  encoder norm1, norm2        -> self_attention_norm, feed_forward_norm
  decoder norm1, norm2, norm3 -> self_attention_norm, cross_attention_norm, feed_forward_norm
"""
import math

import numpy as np

from ...format import model_ir as ir
from ...format.positions import matches_sinusoid

_NORMS = {"post": ir.NORM_POST, "pre": ir.NORM_PRE}
_ACTS = {"relu": ir.ACT_RELU, "gelu": ir.ACT_GELU, "silu": ir.ACT_SILU}
_LAYOUTS = {"interleaved": ir.POS_INTERLEAVED, "halves": ir.POS_HALVES}


def _linear(sd, weight_key, bias_key, rows=None):
    w, b = sd[weight_key], sd[bias_key]
    if rows is not None:
        w, b = w[rows], b[rows]
    return ir.Linear(weight=ir.Tensor(np.ascontiguousarray(w)), bias=np.ascontiguousarray(b))


def _attention(sd, prefix, d):
    w, b = prefix + ".in_proj_weight", prefix + ".in_proj_bias"
    return ir.Attention(
        query=_linear(sd, w, b, slice(0, d)),
        key=_linear(sd, w, b, slice(d, 2 * d)),
        value=_linear(sd, w, b, slice(2 * d, 3 * d)),
        output=_linear(sd, prefix + ".out_proj.weight", prefix + ".out_proj.bias"))


def _feed_forward(sd, prefix):
    return ir.FeedForward(up=_linear(sd, prefix + ".0.weight", prefix + ".0.bias"),
                          down=_linear(sd, prefix + ".3.weight", prefix + ".3.bias"))


def _norm(sd, prefix):
    return ir.LayerNorm(gamma=sd[prefix + ".weight"], beta=sd[prefix + ".bias"])


def _positions(cfg, sd, notes):
    """(position_encoding, {side: table or None}): the schema stores no table
    for a true sinusoid; otherwise both tables, as Learned."""
    tables = {s: sd[s + ".positional_encoding"][0] for s in ("encoder", "decoder")}
    diffs = {s: matches_sinusoid(t, cfg.position_layout) for s, t in tables.items()}
    if all(ok for ok, _ in diffs.values()):
        return _LAYOUTS[cfg.position_layout], {"encoder": None, "decoder": None}
    worst = max(diffs, key=lambda s: diffs[s][1])
    notes.append("positions: %s.positional_encoding differs from the %s sinusoid by up to %.3g; "
                 "stored as Learned tables" % (worst, cfg.position_layout, diffs[worst][1]))
    return ir.POS_LEARNED, {s: np.ascontiguousarray(t) for s, t in tables.items()}


def build_float_model(cfg, sd, tokenizer_bytes=None):
    """Returns (model_ir.Model with float32 weights, list of notes for the summary)."""
    d = cfg.d_model
    notes = []
    position_encoding, positions = _positions(cfg, sd, notes)

    src_emb = sd["encoder.token_embedding.weight"]
    tgt_emb = sd["decoder.token_embedding.weight"]
    shared = src_emb.shape == tgt_emb.shape and np.array_equal(src_emb, tgt_emb)
    if shared:
        notes.append("embeddings: encoder and decoder token embeddings are identical; stored once")

    enc_layers = [ir.EncoderLayer(
        self_attention=_attention(sd, "encoder.layers.%d.self_attn" % i, d),
        self_attention_norm=_norm(sd, "encoder.layers.%d.norm1" % i),
        feed_forward=_feed_forward(sd, "encoder.layers.%d.feed_forward" % i),
        feed_forward_norm=_norm(sd, "encoder.layers.%d.norm2" % i))
        for i in range(cfg.n_encoder_layers)]
    dec_layers = [ir.DecoderLayer(
        self_attention=_attention(sd, "decoder.layers.%d.self_attn" % i, d),
        self_attention_norm=_norm(sd, "decoder.layers.%d.norm1" % i),
        cross_attention=_attention(sd, "decoder.layers.%d.cross_attn" % i, d),
        cross_attention_norm=_norm(sd, "decoder.layers.%d.norm2" % i),
        feed_forward=_feed_forward(sd, "decoder.layers.%d.feed_forward" % i),
        feed_forward_norm=_norm(sd, "decoder.layers.%d.norm3" % i))
        for i in range(cfg.n_decoder_layers)]
    pre = cfg.norm == "pre"

    if cfg.tie_output:
        projection = ir.Linear(weight=None, bias=sd["decoder.output_projection.bias"])
    else:
        projection = _linear(sd, "decoder.output_projection.weight", "decoder.output_projection.bias")

    config = ir.Config(
        d_model=d, num_heads=cfg.n_heads, d_ff=cfg.d_ff,
        encoder_layers=cfg.n_encoder_layers, decoder_layers=cfg.n_decoder_layers,
        source_vocab_size=cfg.src_vocab_size, target_vocab_size=cfg.tgt_vocab_size,
        max_positions=cfg.max_seq_len, norm=_NORMS[cfg.norm],
        layer_norm_epsilon=cfg.layer_norm_eps, activation=_ACTS[cfg.activation],
        embedding_scale=math.sqrt(d),          # the seed layout scales by sqrt(d_model)
        position_encoding=position_encoding, shared_embeddings=shared,
        tied_output=cfg.tie_output, pad_id=cfg.pad_id, unk_id=cfg.unk_id,
        bos_id=cfg.bos_id, eos_id=cfg.eos_id, decoder_start_id=cfg.bos_id)
    model = ir.Model(
        config=config,
        encoder=ir.Encoder(token_embedding=None if shared else ir.Tensor(src_emb),
                           positions=positions["encoder"], layers=enc_layers,
                           final_norm=_norm(sd, "encoder.final_norm") if pre else None),
        decoder=ir.Decoder(token_embedding=ir.Tensor(tgt_emb), positions=positions["decoder"],
                           layers=dec_layers,
                           final_norm=_norm(sd, "decoder.final_norm") if pre else None,
                           output_projection=projection),
        tokenizer=ir.Tokenizer(source_model=tokenizer_bytes) if tokenizer_bytes is not None else None)
    return model, notes
