"""A CTranslate2 TransformerSpec -> float model_ir, plus the int8 weights as
CTranslate2 stored them (an int8 .edgemt file keeps those).

  self_attention/linear_0 [3d, d]     query, key, value rows (in that order)
  self_attention/linear_1             output
  attention/linear_0, linear_1 [2d, d], linear_2   cross-attention: query; key, value; output
  ffn/linear_0, linear_1              feed-forward up, down
  */layer_norm                        the norm of that sub-block (before it when pre_norm, after the residual
                                      otherwise); encoder/layer_norm, decoder/layer_norm: the final norms
  decoder/projection                  the output projection (tied: the decoder embedding)

Positions: CTranslate2's own sinusoid (PositionEncoding.SinusoidalOpenNMT)
or a stored table (Learned).
"""
import numpy as np

from ...format import model_ir as ir
from .spec import encoder_embedding_name
from .weights import read_vector, read_weight

# How long a source or target may be when positions are computed (CTranslate2's
# sinusoid has no end): CTranslate2's default max_input_length.
COMPUTED_MAX_POSITIONS = 1024


class Collected:
    """Reads weights, keeping the int8 tensors as stored under model_ir's names."""

    def __init__(self, model_bin, problems):
        self.model_bin, self.problems, self.stored = model_bin, problems, {}

    def weight(self, name, shape, ir_name=None):
        w = read_weight(self.model_bin, name, shape, self.problems)
        if w is not None and w.stored is not None and ir_name is not None:
            self.stored[ir_name] = w.stored
        return w

    def linear(self, scope, out, inp, ir_name):
        w = self.weight(scope + "/weight", (out, inp), ir_name)
        b = read_vector(self.model_bin, scope + "/bias", out, self.problems, required=False)
        return None if w is None else ir.Linear(ir.Tensor(w.values), b)

    def fused(self, scope, parts, d, ir_names):
        """Linears from the row blocks of one fused weight (q|k|v or k|v)."""
        w = read_weight(self.model_bin, scope + "/weight", (parts * d, d), self.problems)
        b = read_vector(self.model_bin, scope + "/bias", parts * d, self.problems, required=False)
        if w is None:
            return [None] * parts
        out = []
        for i, name in enumerate(ir_names):
            rows = w.rows(i * d, (i + 1) * d)
            if rows.stored is not None:
                self.stored[name] = rows.stored
            out.append(ir.Linear(ir.Tensor(rows.values), None if b is None else b[i * d:(i + 1) * d].copy()))
        return out

    def norm(self, scope, d):
        gamma = read_vector(self.model_bin, scope + "/gamma", d, self.problems)
        beta = read_vector(self.model_bin, scope + "/beta", d, self.problems)
        return None if gamma is None or beta is None else ir.LayerNorm(gamma, beta)


def _attention(c, scope, d, prefix, fused_parts):
    if fused_parts == 3:
        q, k, v = c.fused(scope + "/linear_0", 3, d, [prefix + p for p in ("query", "key", "value")])
        out = c.linear(scope + "/linear_1", d, d, prefix + "output")
    else:
        q = c.linear(scope + "/linear_0", d, d, prefix + "query")
        k, v = c.fused(scope + "/linear_1", 2, d, [prefix + "key", prefix + "value"])
        out = c.linear(scope + "/linear_2", d, d, prefix + "output")
    return ir.Attention(q, k, v, out)


def _feed_forward(c, scope, spec, prefix):
    return ir.FeedForward(c.linear(scope + "/linear_0", spec.d_ff, spec.d_model, prefix + "up"),
                          c.linear(scope + "/linear_1", spec.d_model, spec.d_ff, prefix + "down"))


def build_layers(c, spec):
    d = spec.d_model
    encoder, decoder = [], []
    for i in range(spec.encoder_layers):
        s, p = "encoder/layer_%d" % i, "encoder.layers.%d." % i
        encoder.append(ir.EncoderLayer(
            self_attention=_attention(c, s + "/self_attention", d, p + "self_attention.", 3),
            self_attention_norm=c.norm(s + "/self_attention/layer_norm", d),
            feed_forward=_feed_forward(c, s + "/ffn", spec, p + "feed_forward."),
            feed_forward_norm=c.norm(s + "/ffn/layer_norm", d)))
    for i in range(spec.decoder_layers):
        s, p = "decoder/layer_%d" % i, "decoder.layers.%d." % i
        decoder.append(ir.DecoderLayer(
            self_attention=_attention(c, s + "/self_attention", d, p + "self_attention.", 3),
            self_attention_norm=c.norm(s + "/self_attention/layer_norm", d),
            cross_attention=_attention(c, s + "/attention", d, p + "cross_attention.", 2),
            cross_attention_norm=c.norm(s + "/attention/layer_norm", d),
            feed_forward=_feed_forward(c, s + "/ffn", spec, p + "feed_forward."),
            feed_forward_norm=c.norm(s + "/ffn/layer_norm", d)))
    return encoder, decoder


def same_weight(model_bin, a, b):
    """True when two variables are one (an alias) or hold equal values and scales."""
    if model_bin.aliases.get(a, a) == model_bin.aliases.get(b, b):
        return True
    x, y = model_bin.get(a), model_bin.get(b)
    if x is None or y is None or x.shape != y.shape or x.dtype != y.dtype or not np.array_equal(x, y):
        return False
    sx, sy = model_bin.get(a + "_scale"), model_bin.get(b + "_scale")
    return (sx is None) == (sy is None) and (sx is None or np.array_equal(sx, sy))


def positions(c, spec):
    """(PositionEncoding, max_positions, encoder table, decoder table)."""
    if not spec.stored_positions:
        return ir.POS_OPENNMT, COMPUTED_MAX_POSITIONS, None, None
    tables = []
    for side in ("encoder", "decoder"):
        raw = c.model_bin.get(side + "/position_encodings/encodings")
        if raw is None or raw.ndim != 2 or raw.shape[1] != spec.d_model:
            c.problems.add("%s/position_encodings/encodings: not a [positions, %d] table" % (side, spec.d_model))
            return ir.POS_LEARNED, 0, None, None
        tables.append(read_weight(c.model_bin, side + "/position_encodings/encodings", raw.shape, c.problems))
    if None in tables:
        return ir.POS_LEARNED, 0, None, None
    n = min(t.values.shape[0] for t in tables)
    return ir.POS_LEARNED, n, tables[0].values[:n].copy(), tables[1].values[:n].copy()


def build_model(model_bin, spec, ids, eps, problems):
    """(float model_ir.Model without tokenizer, {model_ir name: stored int8 Tensor}), or
    (None, None) with the problems added. `ids`: a dict of Config id fields."""
    c = Collected(model_bin, problems)
    d = spec.d_model
    shared = same_weight(model_bin, encoder_embedding_name(model_bin), "decoder/embeddings/weight")
    tied = same_weight(model_bin, "decoder/projection/weight", "decoder/embeddings/weight")
    dec_emb = c.weight("decoder/embeddings/weight", (spec.target_vocab_rows, d), "decoder.token_embedding")
    enc_emb = None if shared else c.weight(encoder_embedding_name(model_bin), (spec.source_vocab_rows, d),
                                            "encoder.token_embedding")
    encoder_layers, decoder_layers = build_layers(c, spec)
    if tied:
        projection = ir.Linear(None, read_vector(model_bin, "decoder/projection/bias", spec.target_vocab_rows,
                                                 problems, required=False))
    else:
        projection = c.linear("decoder/projection", spec.target_vocab_rows, d, "decoder.output_projection")
    kind, max_positions, enc_pos, dec_pos = positions(c, spec)
    final = [c.norm(s + "/layer_norm", d) if spec.pre_norm else None for s in ("encoder", "decoder")]
    # fairseq/mBART's layernorm_embedding (format 2.4), each side on its own
    embedding_norms = [c.norm(s + "/layernorm_embedding", d) if model_bin.has_scope(s + "/layernorm_embedding")
                       else None for s in ("encoder", "decoder")]
    if problems.items:
        return None, None
    config = ir.Config(
        d_model=d, num_heads=spec.heads, d_ff=spec.d_ff, encoder_layers=spec.encoder_layers,
        decoder_layers=spec.decoder_layers, source_vocab_size=spec.source_vocab_rows,
        target_vocab_size=spec.target_vocab_rows, max_positions=max_positions,
        norm=ir.NORM_PRE if spec.pre_norm else ir.NORM_POST, layer_norm_epsilon=eps,
        activation=spec.activation, embedding_scale=spec.embedding_scale, position_encoding=kind,
        shared_embeddings=shared, tied_output=tied, **ids)
    model = ir.Model(
        config=config,
        encoder=ir.Encoder(token_embedding=None if shared else ir.Tensor(enc_emb.values), positions=enc_pos,
                           layers=encoder_layers, final_norm=final[0], embedding_norm=embedding_norms[0]),
        decoder=ir.Decoder(token_embedding=ir.Tensor(dec_emb.values), positions=dec_pos, layers=decoder_layers,
                           final_norm=final[1], output_projection=projection, embedding_norm=embedding_norms[1]))
    return model, c.stored
