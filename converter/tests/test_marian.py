"""Hugging Face Marian (OPUS-MT) directories: the converter's float model
computes what modeling_marian.py computes (checked against a forward pass
written here from that file's description, on the checkpoint's own
tensors), both weight formats give the same model, a file keeps the
vocabularies, banned ids and decoding defaults (format 2.2), and a
checkpoint EdgeMT cannot reproduce is refused with every problem in one
message and no file left behind. The checkpoints come from
tests/tools/make_marian_checkpoint.py (generated words: no ../shared needed)."""
import json
import math
import os
import unittest

import numpy as np
import torch
import torch.nn.functional as F

from helpers import TempDir, convert, convert_error, make_marian_checkpoint

from edgemt_convert.format import model_ir as ir
from edgemt_convert.format.reader import read
from edgemt_convert.reference.model import ReferenceModel
from edgemt_convert.sources import load_checkpoint


def marian_logits(sd, config, src, tgt):
    """modeling_marian.py's MarianMTModel forward for one sentence pair (no
    cache, eval mode), from the raw state dict: logits [len(tgt), vocab]."""
    t = {k: torch.from_numpy(np.asarray(v, np.float32)) for k, v in sd.items()}
    d, heads = config["d_model"], config["encoder_attention_heads"]
    scale = math.sqrt(d) if config["scale_embedding"] else 1.0
    act = {"swish": F.silu, "gelu": F.gelu, "relu": F.relu}[config["activation_function"]]
    shared = t.get("model.shared.weight")

    def attention(p, x, memory, causal):
        q = (x @ t[p + "q_proj.weight"].T + t[p + "q_proj.bias"]) * (d // heads) ** -0.5
        k = memory @ t[p + "k_proj.weight"].T + t[p + "k_proj.bias"]
        v = memory @ t[p + "v_proj.weight"].T + t[p + "v_proj.bias"]
        split = lambda a: a.view(a.shape[0], heads, d // heads).transpose(0, 1)  # noqa: E731
        w = split(q) @ split(k).transpose(1, 2)
        if causal:
            w = w.masked_fill(torch.triu(torch.ones(w.shape[1:], dtype=torch.bool), 1), float("-inf"))
        ctx = (torch.softmax(w, -1) @ split(v)).transpose(0, 1).reshape(x.shape[0], d)
        return ctx @ t[p + "out_proj.weight"].T + t[p + "out_proj.bias"]

    def norm(p, x):
        return F.layer_norm(x, (d,), t[p + ".weight"], t[p + ".bias"], 1e-5)

    def ffn(p, x):
        h = act(x @ t[p + "fc1.weight"].T + t[p + "fc1.bias"])
        return h @ t[p + "fc2.weight"].T + t[p + "fc2.bias"]

    def embed(side, ids):
        table = t.get("model.%s.embed_tokens.weight" % side, shared)
        return table[torch.tensor(ids)] * scale + t["model.%s.embed_positions.weight" % side][:len(ids)]

    x = embed("encoder", src)
    for i in range(config["encoder_layers"]):
        p = "model.encoder.layers.%d." % i
        x = norm(p + "self_attn_layer_norm", x + attention(p + "self_attn.", x, x, False))
        x = norm(p + "final_layer_norm", x + ffn(p, x))
    memory = x
    y = embed("decoder", tgt)
    for i in range(config["decoder_layers"]):
        p = "model.decoder.layers.%d." % i
        y = norm(p + "self_attn_layer_norm", y + attention(p + "self_attn.", y, y, True))
        y = norm(p + "encoder_attn_layer_norm", y + attention(p + "encoder_attn.", y, memory, False))
        y = norm(p + "final_layer_norm", y + ffn(p, y))
    head = t.get("lm_head.weight", t.get("model.decoder.embed_tokens.weight", shared))
    return (y @ head.T + t["final_logits_bias"][0]).numpy()


class Marian(unittest.TestCase):
    def setUp(self):
        self.tmp = TempDir(self)

    def make(self, name="m", **options):
        folder = self.tmp(name)
        sd = make_marian_checkpoint.make(folder, **options)
        return folder, sd, self.read_json(folder, "config.json")

    @staticmethod
    def read_json(folder, name):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            return json.load(f)

    @staticmethod
    def write_json(folder, name, value):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            json.dump(value, f)

    def reference_logits(self, model, src, tgt):
        ref = ReferenceModel(model)
        with torch.no_grad():
            memory, valid = ref.encode([src])
            state = ref.start_decoder(memory, valid)
            return ref.project(ref.decode(state, torch.tensor([tgt]))[0]).numpy()

    def test_the_float_model_computes_what_modeling_marian_computes(self):
        rng = np.random.default_rng(3)
        for options in (dict(), dict(untied=True), dict(separate_vocabs=True)):
            for activation in ("swish", "gelu", "relu"):
                with self.subTest(options=options, activation=activation):
                    folder, sd, config = self.make("m%d" % len(os.listdir(self.tmp.path)), **options)
                    config["activation_function"] = activation
                    self.write_json(folder, "config.json", config)
                    model = load_checkpoint(folder).model
                    src = [int(i) for i in rng.integers(2, config["vocab_size"] - 1, size=9)] + [0]
                    tgt = [config["decoder_start_token_id"]] + [int(i) for i in rng.integers(
                        2, config["decoder_vocab_size"] - 1, size=6)]
                    want = marian_logits(sd, config, src, tgt)
                    got = self.reference_logits(model, src, tgt)
                    err = np.abs(got - want).max() / np.abs(want).max()
                    self.assertLess(err, 1e-5)

    def test_both_weight_formats_give_the_same_model(self):
        a, _, _ = self.make("a", weights="safetensors", untied=True)
        b, _, _ = self.make("b", weights="bin", untied=True)
        imported = load_checkpoint(a)
        ma, wa = imported.model, imported.weights
        imported = load_checkpoint(b)
        mb, wb = imported.model, imported.weights
        self.assertEqual((os.path.basename(wa), os.path.basename(wb)), ("model.safetensors", "pytorch_model.bin"))
        for (name, la), (_, lb) in zip(ma.named_linears(), mb.named_linears()):
            np.testing.assert_array_equal(ma.linear_weight(la).data, mb.linear_weight(lb).data, err_msg=name)
            np.testing.assert_array_equal(la.bias, lb.bias, err_msg=name)

    def test_the_file_keeps_vocabularies_bans_and_decoding_defaults(self):
        for options in (dict(), dict(separate_vocabs=True)):
            folder, _, config = self.make("m%d" % len(os.listdir(self.tmp.path)), **options)
            source = self.read_json(folder, "vocab.json")
            target = self.read_json(folder, "target_vocab.json") if options else source
            for dtype in ("float32", "int8", "int4"):
                with self.subTest(options=options, dtype=dtype):
                    out = folder + "." + dtype + ".edgemt"
                    convert(folder, out, "--dtype", dtype)
                    m = read(out)
                    # int4: the token embeddings are int4 too (format 2.6)
                    self.assertEqual((m.format_major, m.format_minor),
                                     (2, ir.FORMAT_MINOR_INT4_EMBEDDINGS if dtype == "int4" else 2))
                    tok, c = m.tokenizer, m.config
                    self.assertEqual(tok.source_vocabulary, sorted(source, key=source.get))
                    if options:
                        self.assertEqual(tok.target_vocabulary, sorted(target, key=target.get))
                    else:
                        self.assertIsNone(tok.target_vocabulary)
                    self.assertNotEqual(tok.source_model, tok.target_model)
                    pad = target["<pad>"]
                    self.assertEqual((c.decoder_start_id, c.banned_ids, c.eos_id, c.unk_id),
                                     (pad, [pad], target["</s>"], source["<unk>"]))
                    # generation_config.json: num_beams 3, max_length 48 counting the start token.
                    self.assertEqual((c.default_beam_size, c.default_max_length), (3, 47))
                    self.assertEqual((c.position_encoding, c.activation, c.norm), (ir.POS_HALVES, ir.ACT_SILU,
                                                                                  ir.NORM_POST))
                    self.assertAlmostEqual(c.embedding_scale, math.sqrt(config["d_model"]), places=6)
                    self.assertEqual(c.shared_embeddings, not options)
                    self.assertEqual((m.metadata.source_language, m.metadata.target_language), ("en", "de"))

    def test_generation_settings_from_config_json_without_a_generation_config(self):
        folder, _, config = self.make()
        os.remove(os.path.join(folder, "generation_config.json"))
        config.update(num_beams=5, max_length=20, bad_words_ids=[[config["pad_token_id"]], [7], [8, 9]])
        self.write_json(folder, "config.json", config)
        imported = load_checkpoint(folder)
        model, notes = imported.model, imported.notes
        c = model.config
        self.assertEqual((c.default_beam_size, c.default_max_length, c.banned_ids), (5, 19, [c.pad_id, 7]))
        self.assertTrue(any("[8, 9]" in n and "ignored" in n for n in notes), notes)

    def test_positions_left_out_of_the_file_are_the_sinusoid(self):
        folder, sd, _ = self.make(weights="safetensors")
        with_table = load_checkpoint(folder).model
        for side in ("encoder", "decoder"):
            del sd["model.%s.embed_positions.weight" % side]
        del sd["model.encoder.embed_tokens.weight"], sd["model.decoder.embed_tokens.weight"], sd["lm_head.weight"]
        make_marian_checkpoint.write_safetensors(os.path.join(folder, "model.safetensors"), sd)
        without = load_checkpoint(folder).model
        self.assertEqual(without.config.position_encoding, ir.POS_HALVES)
        src, tgt = [5, 9, 14, 0], [with_table.config.decoder_start_id, 20, 30]
        np.testing.assert_array_equal(self.reference_logits(with_table, src, tgt),
                                      self.reference_logits(without, src, tgt))

    def test_a_missing_logits_bias_is_zero(self):
        folder, sd, config = self.make(weights="safetensors", untied=True)
        del sd["final_logits_bias"]
        make_marian_checkpoint.write_safetensors(os.path.join(folder, "model.safetensors"), sd)
        imported = load_checkpoint(folder)
        model, notes = imported.model, imported.notes
        np.testing.assert_array_equal(model.decoder.output_projection.bias, np.zeros(config["decoder_vocab_size"]))
        self.assertTrue(any(n.startswith("final_logits_bias") for n in notes), notes)

    def test_what_cannot_be_reproduced_is_refused_all_at_once(self):
        folder, sd, config = self.make(weights="safetensors")
        config["activation_function"] = "gelu_new"
        config["decoder_vocab_size"] = config["vocab_size"] + 3
        config["share_encoder_decoder_embeddings"] = False
        self.write_json(folder, "config.json", config)
        d = config["d_model"]
        sd["model.encoder.layernorm_embedding.weight"] = np.ones(d, np.float32)
        sd["model.encoder.layernorm_embedding.bias"] = np.zeros(d, np.float32)
        sd["model.decoder.layers.1.fc1.weight"] = np.zeros((config["decoder_ffn_dim"] + 1, d), np.float32)
        sd["model.encoder.layers.0.self_attn.q_proj.bias"] = np.full(d, np.nan, np.float32)
        make_marian_checkpoint.write_safetensors(os.path.join(folder, "model.safetensors"), sd)
        err = convert_error(self, folder, self.tmp("m.edgemt"))
        lines = err.rstrip("\n").split("\n")
        self.assertTrue(lines[0].startswith("edgemt-convert: error: %s: this Marian checkpoint cannot be converted"
                                            % folder), lines[0])
        problems = [line for line in lines[1:] if line.startswith("  - ")]
        self.assertEqual(len(problems), len(lines) - 1, err)
        for expected in ("activation_function 'gelu_new'",
                         "vocab.json: %d pieces, config.json decoder_vocab_size is %d" % (
                             config["vocab_size"], config["decoder_vocab_size"]),
                         "unexpected key model.encoder.layernorm_embedding.weight (a LayerNorm after the embeddings",
                         "unexpected key model.encoder.layernorm_embedding.bias",
                         "model.decoder.layers.1.fc1.weight has shape [%d, %d], config.json implies [%d, %d]" % (
                             config["decoder_ffn_dim"] + 1, d, config["decoder_ffn_dim"], d),
                         "final_logits_bias has shape [1, %d], config.json implies [1, %d]" % (
                             config["vocab_size"], config["decoder_vocab_size"]),
                         "model.encoder.layers.0.self_attn.q_proj.bias contains NaN"):
            self.assertTrue(any(expected in p for p in problems), "%r not in:\n%s" % (expected, err))
        self.assertIn("(%d problems)" % len(problems), lines[0])

    def test_broken_tokenizer_files_are_refused_with_the_rest(self):
        folder, _, config = self.make(weights="bin")
        vocab = self.read_json(folder, "vocab.json")
        vocab["<unk>"] = vocab["</s>"]        # two pieces, one id
        self.write_json(folder, "vocab.json", vocab)
        with open(os.path.join(folder, "target.spm"), "wb") as f:
            f.write(b"not a model")
        config["eos_token_id"] = 5
        self.write_json(folder, "config.json", config)
        err = convert_error(self, folder, self.tmp("m.edgemt"))
        for expected in ("vocab.json: the ids are not 0..", "target.spm: not a SentencePiece model"):
            self.assertIn(expected, err)

    def test_the_seed_layout_is_not_taken_for_marian(self):
        from helpers import write_checkpoint
        from edgemt_convert.sources import marian
        folder = self.tmp("seed")
        write_checkpoint(folder)
        self.assertFalse(marian.detect(folder))
        imported = load_checkpoint(folder)
        model, weights = imported.model, imported.weights
        self.assertEqual(os.path.basename(weights), "model.pt")
        self.assertIsNone(model.config.banned_ids)
        self.assertEqual(model.format_minor, 0)


if __name__ == "__main__":
    unittest.main()
