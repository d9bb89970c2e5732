"""The reference model computes what the checkpoint's PyTorch modules
compute (nn.MultiheadAttention, nn.LayerNorm, ...; reference.py generalized
to every variant), and the greedy decoding rule."""
import math
import unittest

import numpy as np
import torch
import torch.nn as nn

from helpers import make_config, random_state_dict
from test_variants import VARIANTS

from edgemt_convert.reference.decode import greedy, max_steps
from edgemt_convert.reference.model import ReferenceModel
from edgemt_convert.sources.seed.build import build_float_model
from edgemt_convert.sources.seed.config import parse_config


class TorchSeq2Seq(nn.Module):
    """Module tree of the seed layout (reference.py's, with the variants)."""

    def __init__(self, cfg):
        super().__init__()
        d, h, ff, L = cfg["d_model"], cfg["n_heads"], cfg["d_ff"], cfg["max_seq_len"]
        act = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU}[cfg["activation"]]
        eps = cfg["layer_norm_eps"]
        self.pre = cfg["norm"] == "pre"
        self.tied = cfg["tie_output"]
        self.d = d

        def ffn():
            return nn.Sequential(nn.Linear(d, ff), act(), nn.Dropout(0.0), nn.Linear(ff, d), nn.Dropout(0.0))

        def layer(cross):
            m = nn.Module()
            m.self_attn = nn.MultiheadAttention(d, h, batch_first=True)
            if cross:
                m.cross_attn = nn.MultiheadAttention(d, h, batch_first=True)
            m.feed_forward = ffn()
            for i in range(3 if cross else 2):
                setattr(m, "norm%d" % (i + 1), nn.LayerNorm(d, eps=eps))
            return m

        self.encoder = nn.Module()
        self.encoder.token_embedding = nn.Embedding(cfg["src_vocab_size"], d)
        self.encoder.register_buffer("positional_encoding", torch.zeros(1, L, d))
        self.encoder.layers = nn.ModuleList([layer(False) for _ in range(cfg["n_encoder_layers"])])
        self.decoder = nn.Module()
        self.decoder.token_embedding = nn.Embedding(cfg["tgt_vocab_size"], d)
        self.decoder.register_buffer("positional_encoding", torch.zeros(1, L, d))
        self.decoder.layers = nn.ModuleList([layer(True) for _ in range(cfg["n_decoder_layers"])])
        if self.pre:
            self.encoder.final_norm = nn.LayerNorm(d, eps=eps)
            self.decoder.final_norm = nn.LayerNorm(d, eps=eps)
        self.decoder.output_projection = nn.Linear(d, cfg["tgt_vocab_size"])
        if self.tied:
            del self.decoder.output_projection.weight

    def sub(self, x, norm, f):
        return x + f(norm(x)) if self.pre else norm(x + f(x))

    def forward(self, src, tgt):
        e = self.encoder
        x = e.token_embedding(src) * math.sqrt(self.d) + e.positional_encoding[:, :src.shape[1]]
        for l in e.layers:
            x = self.sub(x, l.norm1, lambda y: l.self_attn(y, y, y, need_weights=False)[0])
            x = self.sub(x, l.norm2, l.feed_forward)
        mem = e.final_norm(x) if self.pre else x
        dd = self.decoder
        t = tgt.shape[1]
        causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        x = dd.token_embedding(tgt) * math.sqrt(self.d) + dd.positional_encoding[:, :t]
        for l in dd.layers:
            x = self.sub(x, l.norm1, lambda y: l.self_attn(y, y, y, attn_mask=causal, need_weights=False)[0])
            x = self.sub(x, l.norm2, lambda y: l.cross_attn(y, mem, mem, need_weights=False)[0])
            x = self.sub(x, l.norm3, l.feed_forward)
        if self.pre:
            x = dd.final_norm(x)
        w = dd.token_embedding.weight if self.tied else dd.output_projection.weight
        return mem, nn.functional.linear(x, w, dd.output_projection.bias)


def build(variant, seed=0):
    cfg = make_config(**variant)
    sd = random_state_dict(cfg, seed)
    model, _ = build_float_model(parse_config(cfg), sd)
    return cfg, sd, model


class AgainstTorchModules(unittest.TestCase):
    def test_every_variant(self):
        src = torch.tensor([[5, 17, 33, 9, 44, 3]])
        tgt = torch.tensor([[2, 8, 9, 70, 11]])
        for i, variant in enumerate(VARIANTS):
            with self.subTest(**variant):
                cfg, sd, model = build(variant, seed=i)
                torch_model = TorchSeq2Seq(cfg).eval()
                torch_model.load_state_dict({k: torch.from_numpy(v) for k, v in sd.items()}, strict=True)
                with torch.no_grad():
                    mem_t, logits_t = torch_model(src, tgt)
                    ref = ReferenceModel(model)
                    mem, valid = ref.encode([src[0].tolist()])
                    state = ref.start_decoder(mem, valid)
                    logits = ref.project(ref.decode(state, tgt))
                np.testing.assert_allclose(mem.numpy(), mem_t.numpy(), atol=2e-5, rtol=1e-4)
                np.testing.assert_allclose(logits.numpy(), logits_t.numpy(), atol=2e-5, rtol=1e-4)

    def test_one_position_at_a_time_equals_the_whole_prefix(self):
        _, _, model = build(VARIANTS[1])
        ref = ReferenceModel(model)
        mem, valid = ref.encode([[5, 6, 7, 3]])
        tgt = torch.tensor([[2, 40, 41, 42]])
        whole = ref.decode(ref.start_decoder(mem, valid), tgt)
        state = ref.start_decoder(mem, valid)
        steps = torch.cat([ref.decode(state, tgt[:, i:i + 1]) for i in range(4)], dim=1)
        np.testing.assert_allclose(steps.numpy(), whole.numpy(), atol=1e-5)


class DecodingRule(unittest.TestCase):
    def setUp(self):
        _, _, self.model = build(VARIANTS[0])
        self.ref = ReferenceModel(self.model)
        rng = np.random.default_rng(1)
        self.sources = [[int(t) for t in rng.integers(4, 120, size=n)] + [3] for n in (1, 4, 9, 2, 15, 6)]

    def test_step_limit(self):
        outs, recs = greedy(self.ref, self.sources, record=len(self.sources))
        for src, out, rec in zip(self.sources, outs, recs):
            limit = max_steps(len(src), 48)
            self.assertEqual(limit, min(2 * len(src) + 10, 48))
            stopped_at_eos = len(rec["out_ids"]) and rec["out_ids"][-1] == 3
            self.assertEqual(len(rec["out_ids"]), len(out) + (1 if stopped_at_eos else 0))
            self.assertLessEqual(len(rec["out_ids"]), limit)
            if not stopped_at_eos:
                self.assertEqual(len(out), limit)
            self.assertNotIn(3, out)
            self.assertEqual(rec["logits"].shape, (len(rec["out_ids"]), 130))
            np.testing.assert_array_equal(rec["logits"].argmax(axis=1), rec["out_ids"])

    def test_batches_equal_one_at_a_time(self):
        together, _ = greedy(self.ref, self.sources, batch_size=4)
        alone = [greedy(self.ref, [s])[0][0] for s in self.sources]
        self.assertEqual(together, alone)

    def test_max_and_min_length(self):
        outs, _ = greedy(self.ref, self.sources, max_length=5)
        self.assertTrue(all(len(o) <= 5 for o in outs))
        outs, recs = greedy(self.ref, self.sources, max_length=7, min_length=7, record=6)
        self.assertEqual([len(o) for o in outs], [7] * 6)
        for rec in recs:
            self.assertNotIn(3, rec["out_ids"].tolist())
        # eos is still possible once min_length tokens are out
        self.model.decoder.output_projection.bias[3] = 1000.0
        ref = ReferenceModel(self.model)
        outs, _ = greedy(ref, self.sources, min_length=3)
        self.assertEqual([len(o) for o in outs], [3] * 6)
        outs, _ = greedy(ref, self.sources)
        self.assertEqual(outs, [[]] * 6)


if __name__ == "__main__":
    unittest.main()
