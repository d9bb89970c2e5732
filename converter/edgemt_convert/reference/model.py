"""PyTorch forward pass of a model_ir.Model: what a converted file computes.

One implementation serves every variant (post/pre-LN, ReLU/GELU/SiLU,
sinusoidal/learned positions, shared embeddings, tied output) and both
number formats (quantize/linear.py): a Linear whose weight is int8 runs
the exact int8 arithmetic of docs/int8.md (quantize.int8.Int8Linear: each
input row quantized with its own range, exact integer GEMM, float32
output), an int4 one that of docs/int4.md (quantize.int4.Int4Linear), a
float32 one runs in float.
So the float model of a checkpoint, a float32 file and an int8 file all run
this code, and an int8 file read back from disk is a conformance oracle for
the runtime.

Shapes: batches of sequences [B, T]; padding only at the end of a source
(masked in attention). The decoder keeps a key/value cache, so greedy
decoding feeds one position at a time; a teacher-forced pass feeds a whole
prefix. Both give the same values per position as re-running the prefix
(the runtime's rule) up to float summation order.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

from ..format import model_ir as ir
from ..format.positions import runtime_sinusoid_table
from ..quantize.linear import make_linear

_NEG_INF = float("-inf")


class _Norm:
    def __init__(self, ln, eps):
        self.gamma = torch.from_numpy(np.asarray(ln.gamma, np.float32))
        self.beta = torch.from_numpy(np.asarray(ln.beta, np.float32))
        self.eps = eps

    def __call__(self, x):
        return F.layer_norm(x, (x.shape[-1],), self.gamma, self.beta, self.eps)


class DecoderState:
    """Per-batch decoder state: self-attention K/V cache (or each SSRU's cell),
    cross-attention K/V, source mask and the next position."""

    def __init__(self, cross_kv, src_valid):
        self.cross_kv = cross_kv                       # per layer (K, V) [B, H, S, dh]
        self.self_kv = [None] * len(cross_kv)          # per layer (K, V) [B, H, t, dh]
        self.cells = [None] * len(cross_kv)            # per SSRU layer: c [B, d]
        self.src_valid = src_valid                     # [B, S] bool
        self.position = 0

    def select(self, rows):
        """Keeps the batch rows `rows` (a LongTensor), e.g. drops finished ones."""
        self.cross_kv = [(k[rows], v[rows]) for k, v in self.cross_kv]
        self.self_kv = [None if kv is None else (kv[0][rows], kv[1][rows]) for kv in self.self_kv]
        self.cells = [None if c is None else c[rows] for c in self.cells]
        self.src_valid = self.src_valid[rows]


class ReferenceModel:
    """Runs a model_ir.Model. `ops` maps every Linear's name (Model.named_linears)
    to the op that computes it (quantize.linear); a caller may wrap or replace
    one (record.py keeps their inputs, tests/e2e/int8_layers.py runs the
    runtime's values through them)."""

    def __init__(self, model):
        self.model = model
        c = self.config = model.config
        self.d = c.d_model
        self.heads = c.num_heads
        self.d_head = c.d_model // c.num_heads
        eps = c.layer_norm_epsilon
        relu = c.activation == ir.ACT_RELU
        self.act = {ir.ACT_RELU: F.relu, ir.ACT_GELU: F.gelu, ir.ACT_SILU: F.silu,
                    ir.ACT_GELU_TANH: lambda x: F.gelu(x, approximate="tanh"),
                    ir.ACT_GELU_SIGMOID: lambda x: x * torch.sigmoid(1.702 * x)}[c.activation]

        self.ops = {}
        for name, lin in model.named_linears():
            weight = model.linear_weight(lin)
            self.ops[name] = make_linear(weight, lin, fused_relu=relu and name.endswith("feed_forward.up"))
        self.norms = {}
        for prefix, layers, parts in (
                ("encoder", model.encoder.layers, ("self_attention_norm", "feed_forward_norm")),
                ("decoder", model.decoder.layers,
                 ("self_attention_norm", "cross_attention_norm", "feed_forward_norm"))):
            for i, layer in enumerate(layers):
                for p in parts:
                    self.norms["%s.layers.%d.%s" % (prefix, i, p)] = _Norm(getattr(layer, p), eps)
        for prefix, part in (("encoder", model.encoder), ("decoder", model.decoder)):
            if part.final_norm is not None:
                self.norms[prefix + ".final_norm"] = _Norm(part.final_norm, eps)
            if part.embedding_norm is not None:
                self.norms[prefix + ".embedding_norm"] = _Norm(part.embedding_norm, eps)
        self.pre_ln = c.norm == ir.NORM_PRE

        # An embedding lookup returns q[token] * s[token] (float32) for int8.
        self.src_embedding = torch.from_numpy(np.ascontiguousarray(model.source_embedding().dequantize()))
        self.tgt_embedding = torch.from_numpy(np.ascontiguousarray(model.decoder.token_embedding.dequantize()))
        self.embedding_scale = torch.tensor(c.embedding_scale, dtype=torch.float32)
        if c.position_encoding == ir.POS_LEARNED:
            self.src_positions = torch.from_numpy(np.asarray(model.encoder.positions, np.float32))
            self.tgt_positions = torch.from_numpy(np.asarray(model.decoder.positions, np.float32))
        else:
            layout = ir.POS_NAMES[c.position_encoding]
            table = torch.from_numpy(runtime_sinusoid_table(c.max_positions, c.d_model, layout))
            self.src_positions = self.tgt_positions = table

    # ------------------------------------------------------------------ pieces

    def linear(self, name, x):
        return self.ops[name](x)

    def _heads(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.d_head).transpose(1, 2)

    def _attend(self, q, k, v, mask, weights=None):
        """q [B,H,T,dh], k/v [B,H,Tk,dh], mask broadcastable to [B,H,T,Tk] (True = keep).
        weights: a list that gets the attention weights [B,H,T,Tk]."""
        q = q / math.sqrt(self.d_head)
        scores = torch.matmul(q, k.transpose(-1, -2))
        scores = scores.masked_fill(~mask, _NEG_INF)
        probs = torch.softmax(scores, dim=-1)
        if weights is not None:
            weights.append(probs)
        ctx = torch.matmul(probs, v)
        b, h, t, dh = ctx.shape
        return ctx.transpose(1, 2).reshape(b, t, h * dh)

    def _feed_forward(self, prefix, x):
        h = self.act(self.linear(prefix + ".up", x))
        return self.linear(prefix + ".down", h)

    def _embed(self, side, table, positions, ids, start):
        """Scaled token embeddings plus positions, then the side's embedding norm if it has one."""
        t = ids.shape[1]
        if start + t > positions.shape[0]:
            raise ValueError("sequence longer than max_positions %d" % positions.shape[0])
        x = table[ids] * self.embedding_scale + positions[start:start + t]
        norm = self.norms.get(side + ".embedding_norm")
        return x if norm is None else norm(x)

    # ------------------------------------------------------------------ encoder

    def encode(self, sources):
        """sources: list of id lists. Returns memory [B, S, d] and the valid mask [B, S]."""
        lengths = [len(s) for s in sources]
        S = max(lengths)
        ids = torch.full((len(sources), S), self.config.pad_id, dtype=torch.long)
        for i, s in enumerate(sources):
            ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)
        valid = torch.arange(S)[None, :] < torch.tensor(lengths)[:, None]
        x = self._embed("encoder", self.src_embedding, self.src_positions, ids, 0)
        key_mask = valid[:, None, None, :]
        for i in range(self.config.encoder_layers):
            p = "encoder.layers.%d." % i
            x = self._block(x, self.norms[p + "self_attention_norm"],
                            lambda h: self._self_attention(p + "self_attention", h, key_mask))
            x = self._block(x, self.norms[p + "feed_forward_norm"],
                            lambda h: self._feed_forward(p + "feed_forward", h))
        if self.pre_ln:
            x = self.norms["encoder.final_norm"](x)
        return x, valid

    def _block(self, x, norm, f):
        """One residual sub-block in post-LN or pre-LN placement."""
        if self.pre_ln:
            return x + f(norm(x))
        return norm(x + f(x))

    def _self_attention(self, prefix, x, mask):
        q = self._heads(self.linear(prefix + ".query", x))
        k = self._heads(self.linear(prefix + ".key", x))
        v = self._heads(self.linear(prefix + ".value", x))
        return self.linear(prefix + ".output", self._attend(q, k, v, mask))

    # ------------------------------------------------------------------ decoder

    def start_decoder(self, memory, src_valid):
        cross = []
        for i in range(self.config.decoder_layers):
            p = "decoder.layers.%d.cross_attention." % i
            cross.append((self._heads(self.linear(p + "key", memory)),
                          self._heads(self.linear(p + "value", memory))))
        return DecoderState(cross, src_valid)

    def decode(self, state, ids, cross_weights=None):
        """Feeds ids [B, T] at positions state.position.. and returns the
        decoder output [B, T, d] (after the final norm, before the projection).
        cross_weights: a list that gets each layer's cross-attention weights
        [B, H, T, S] (the runtime's alignments come from them)."""
        t = ids.shape[1]
        start = state.position
        x = self._embed("decoder", self.tgt_embedding, self.tgt_positions, ids, start)
        if start == 0 and self.config.decoder_starts_from_zero:
            # Marian: position 0's input is a zero embedding, whatever id stands there
            x = x.clone()
            x[:, 0] = self._embed("decoder", torch.zeros_like(self.tgt_embedding[:1]), self.tgt_positions,
                                  torch.zeros((1, 1), dtype=torch.long), 0)[0, 0]
        # position start+i sees cached positions and new ones up to itself
        causal = torch.arange(start + t)[None, :] <= (start + torch.arange(t))[:, None]
        causal = causal[None, None]
        cross_mask = state.src_valid[:, None, None, :]
        for i in range(self.config.decoder_layers):
            p = "decoder.layers.%d." % i

            def self_att(h, i=i, p=p):
                q = self._heads(self.linear(p + "self_attention.query", h))
                k = self._heads(self.linear(p + "self_attention.key", h))
                v = self._heads(self.linear(p + "self_attention.value", h))
                if state.self_kv[i] is not None:
                    k = torch.cat([state.self_kv[i][0], k], dim=2)
                    v = torch.cat([state.self_kv[i][1], v], dim=2)
                state.self_kv[i] = (k, v)
                return self.linear(p + "self_attention.output", self._attend(q, k, v, causal))

            def cross_att(h, i=i, p=p):
                q = self._heads(self.linear(p + "cross_attention.query", h))
                k, v = state.cross_kv[i]
                return self.linear(p + "cross_attention.output", self._attend(q, k, v, cross_mask, cross_weights))

            def ssru(h, i=i, p=p):
                transformed = self.linear(p + "ssru.transform", h)
                forget = torch.sigmoid(self.linear(p + "ssru.forget_gate", h))
                c = state.cells[i] if state.cells[i] is not None else torch.zeros_like(h[:, 0])
                out = []
                for j in range(h.shape[1]):
                    c = forget[:, j] * c + (1 - forget[:, j]) * transformed[:, j]
                    out.append(torch.relu(c))
                state.cells[i] = c
                return torch.stack(out, dim=1)

            first = ssru if self.model.decoder.layers[i].ssru is not None else self_att
            x = self._block(x, self.norms[p + "self_attention_norm"], first)
            x = self._block(x, self.norms[p + "cross_attention_norm"], cross_att)
            x = self._block(x, self.norms[p + "feed_forward_norm"],
                            lambda h, p=p: self._feed_forward(p + "feed_forward", h))
        if self.pre_ln:
            x = self.norms["decoder.final_norm"](x)
        state.position = start + t
        return x

    # ------------------------------------------------------------------ logits

    def project(self, h):
        """Logits of decoder outputs h [..., d]: the output projection's float
        result (for an int8 projection, the float output of the int8 GEMM)."""
        return self.linear("decoder.output_projection", h)

    def choose(self, h, forbid_eos=None, want_rows=False):
        """Greedy choice from decoder outputs h [B, d] of the last position:
        the argmax of the logits, the lowest id on ties (float and int8 alike,
        docs/int8.md). Returns (ids LongTensor [B], logits [B, V] or None);
        want_rows: also return the logits, for dumps.
        forbid_eos [B] bool: rows where eos may not be chosen (min_length).
        Config.banned_ids are never chosen (a file without them: any id)."""
        row = self.project(h)
        pick = row
        banned = self.config.banned_ids
        if forbid_eos is not None or banned:
            pick = row.clone()
        if banned:
            pick[:, banned] = _NEG_INF
        if forbid_eos is not None:
            pick[forbid_eos, self.config.eos_id] = _NEG_INF
        # torch.argmax returns the first maximum: ties go to the lowest id
        return torch.argmax(pick, dim=-1), (row if want_rows else None)
