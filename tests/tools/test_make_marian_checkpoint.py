"""make_marian_checkpoint.py writes what an OPUS-MT directory from the hub
holds: the files, modeling_marian.py's weight names and shapes in both
weight formats (tied weights written once in model.safetensors, as Hugging
Face saves them), vocabulary ids that are not SentencePiece's, language
tokens, tied and untied output, and separate vocabularies."""
import json
import os
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "converter"))
import make_marian_checkpoint as mm  # noqa: E402
from edgemt_convert.sources import safetensors  # noqa: E402

MULTI30K = os.path.join(os.environ.get("EDGEMT_SHARED", os.path.join(os.path.dirname(REPO), "shared")),
                        "data", "multi30k")


def expected_shapes(config, shared, tied):
    d, v_src, v_tgt = config["d_model"], config["vocab_size"], config["decoder_vocab_size"]
    shapes = {}
    if shared:
        shapes["model.shared.weight"] = (v_src, d)
    shapes["model.encoder.embed_tokens.weight"] = (v_src, d)
    shapes["model.decoder.embed_tokens.weight"] = (v_tgt, d)
    for side in ("encoder", "decoder"):
        shapes["model.%s.embed_positions.weight" % side] = (config["max_position_embeddings"], d)
        ff = config[side + "_ffn_dim"]
        for i in range(config[side + "_layers"]):
            p = "model.%s.layers.%d." % (side, i)
            for block in ("self_attn",) + (("encoder_attn",) if side == "decoder" else ()):
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    shapes[p + "%s.%s.weight" % (block, proj)] = (d, d)
                    shapes[p + "%s.%s.bias" % (block, proj)] = (d,)
                shapes[p + block + "_layer_norm.weight"] = (d,)
                shapes[p + block + "_layer_norm.bias"] = (d,)
            shapes.update({p + "fc1.weight": (ff, d), p + "fc1.bias": (ff,), p + "fc2.weight": (d, ff),
                           p + "fc2.bias": (d,), p + "final_layer_norm.weight": (d,),
                           p + "final_layer_norm.bias": (d,)})
    shapes["lm_head.weight"] = (v_tgt, d)
    shapes["final_logits_bias"] = (1, v_tgt)
    return shapes


class MarianCheckpoints(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def make(self, **options):
        out = os.path.join(self.tmp.name, "m%d" % len(os.listdir(self.tmp.name)))
        mm.make(out, **options)
        with open(os.path.join(out, "config.json")) as f:
            config = json.load(f)
        return out, config

    def load_bin(self, out):
        import torch
        return {k: v.numpy() for k, v in torch.load(os.path.join(out, "pytorch_model.bin"), weights_only=True).items()}

    def test_both_weight_formats_hold_the_same_tensors(self):
        for untied in (False, True):
            with self.subTest(untied=untied):
                a, config = self.make(weights="safetensors", untied=untied)
                b, _ = self.make(weights="bin", untied=untied)
                shapes = expected_shapes(config, shared=True, tied=not untied)
                full = self.load_bin(b)
                self.assertEqual({k: v.shape for k, v in full.items()}, shapes)
                written = safetensors.read(os.path.join(a, "model.safetensors"))
                # Tied weights once, under the name Hugging Face keeps (model.shared).
                dropped = {"model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight"}
                if not untied:
                    dropped.add("lm_head.weight")
                self.assertEqual(set(written), set(shapes) - dropped)
                for name, array in written.items():
                    np.testing.assert_array_equal(array, full[name], name)  # same seed, same values
                np.testing.assert_array_equal(full["model.encoder.embed_tokens.weight"], full["model.shared.weight"])
                tied_equal = np.array_equal(full["lm_head.weight"], full["model.decoder.embed_tokens.weight"])
                self.assertEqual(tied_equal, not untied)
                self.assertEqual(config["tie_word_embeddings"], not untied)

    def test_vocabulary_ids_are_not_sentencepiece_ids(self):
        import sentencepiece as spm
        out, config = self.make()
        with open(os.path.join(out, "vocab.json"), encoding="utf-8") as f:
            vocab = json.load(f)
        self.assertEqual(sorted(vocab.values()), list(range(len(vocab))))
        self.assertEqual(len(vocab), config["vocab_size"])
        self.assertEqual((vocab["</s>"], vocab["<unk>"]), (0, 1))
        self.assertEqual(vocab["<pad>"], len(vocab) - 1)
        self.assertEqual(config["pad_token_id"], vocab["<pad>"])
        self.assertEqual(config["decoder_start_token_id"], vocab["<pad>"])
        self.assertEqual(config["eos_token_id"], 0)
        for token in (">>deu<<", ">>fra<<"):
            self.assertIn(token, vocab)
        moved = 0
        for name in ("source.spm", "target.spm"):
            sp = spm.SentencePieceProcessor(model_file=os.path.join(out, name))
            self.assertNotIn(">>deu<<", [sp.id_to_piece(i) for i in range(sp.get_piece_size())])
            for i in range(sp.get_piece_size()):
                self.assertIn(sp.id_to_piece(i), vocab)
                moved += vocab[sp.id_to_piece(i)] != i
        self.assertGreater(moved, 500)  # nearly every piece has another id in the model

    def test_positions_are_sin_then_cos_from_position_zero(self):
        out, config = self.make(weights="bin")
        positions = self.load_bin(out)["model.decoder.embed_positions.weight"]
        d = config["d_model"]
        np.testing.assert_array_equal(positions[0], np.concatenate([np.zeros(d // 2), np.ones(d // 2)]))
        j, p = 3, 5
        self.assertAlmostEqual(float(positions[p, j]), np.sin(p / 10000 ** (2 * j / d)), places=6)
        self.assertAlmostEqual(float(positions[p, d // 2 + j]), np.cos(p / 10000 ** (2 * j / d)), places=6)

    def test_separate_vocabularies(self):
        out, config = self.make(weights="bin", separate_vocabs=True)
        with open(os.path.join(out, "vocab.json"), encoding="utf-8") as f:
            source = json.load(f)
        with open(os.path.join(out, "target_vocab.json"), encoding="utf-8") as f:
            target = json.load(f)
        self.assertEqual((len(source), len(target)), (config["vocab_size"], config["decoder_vocab_size"]))
        self.assertNotEqual(source, target)
        self.assertNotEqual(len(source), len(target))
        self.assertEqual(config["decoder_start_token_id"], target["<pad>"])
        self.assertFalse(config["share_encoder_decoder_embeddings"])
        with open(os.path.join(out, "tokenizer_config.json")) as f:
            self.assertTrue(json.load(f)["separate_vocabs"])
        weights = self.load_bin(out)
        self.assertEqual({k: v.shape for k, v in weights.items()},
                         expected_shapes(config, shared=False, tied=True))
        self.assertNotIn("model.shared.weight", weights)

    def test_sentencepiece_models_from_multi30k(self):
        if not os.path.isdir(MULTI30K):
            self.skipTest("../shared/data/multi30k is missing")
        import sentencepiece as spm
        out, _ = self.make(corpus_dir=MULTI30K)
        source = spm.SentencePieceProcessor(model_file=os.path.join(out, "source.spm"))
        target = spm.SentencePieceProcessor(model_file=os.path.join(out, "target.spm"))
        self.assertIn("▁dog", [source.id_to_piece(i) for i in range(source.get_piece_size())])
        self.assertIn("▁Hund", [target.id_to_piece(i) for i in range(target.get_piece_size())])


if __name__ == "__main__":
    unittest.main()
