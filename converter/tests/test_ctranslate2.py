"""CTranslate2 model directories (sources/ctranslate2/): model.bin of every
binary version, the TransformerSpec mapped onto EdgeMT's model, int8 kept as
CTranslate2 quantized it, and one clear message for what cannot be
converted, with no file written. The files are written by
tests/tools/ct2_model_bin.py; tests/e2e/test_ctranslate2.py holds the real
model and CTranslate2 itself to the same import."""
import json
import os
import unittest

import numpy as np

from helpers import TempDir, convert, convert_error

import ct2_model_bin as ct2  # noqa: E402  (tests/tools/, on the path through helpers)
from edgemt_convert.errors import ConversionError
from edgemt_convert.format import model_ir as ir
from edgemt_convert.format.reader import read
from edgemt_convert.format.schema import fb
from edgemt_convert.format.tokenizer import TextCodec
from edgemt_convert.sources.ctranslate2.model_bin import read_model_bin
from edgemt_convert.sources.ctranslate2.spec import v1_name

D, FF, HEADS = 16, 32, 2


class ModelBin(unittest.TestCase):
    def test_every_binary_version_reads_the_same_variables(self):
        variables = ct2.transformer(d_model=D, heads=HEADS, d_ff=FF)
        variables["decoder/embeddings/weight"] = variables["decoder/embeddings/weight"].astype(np.int16)
        for version in range(2, 7):
            with self.subTest(version=version):
                stored, aliases = dict(variables), None
                if version >= 3:      # a tied projection stored once
                    del stored["decoder/projection/weight"]
                    aliases = {"decoder/projection/weight": "decoder/embeddings/weight"}
                m = read_model_bin(ct2.model_bin(stored, version=version, aliases=aliases))
                self.assertEqual((m.version, m.spec, m.revision), (version, "TransformerSpec", 7))
                self.assertEqual(sorted(m.variables), sorted(stored))
                for name, value in stored.items():
                    np.testing.assert_array_equal(m.variables[name], value, err_msg=name)
                    self.assertEqual(m.variables[name].dtype, value.dtype, name)
                if aliases:
                    self.assertIs(m.get("decoder/projection/weight"), m.variables["decoder/embeddings/weight"])

    def test_version_1_has_no_spec_name_and_opennmt_tf_names(self):
        m = read_model_bin(ct2.model_bin({"transformer/encoder/w_embs:0": np.ones((3, 4), np.float32)}, version=1))
        self.assertEqual((m.spec, m.revision), ("", 1))
        for old, new in (("transformer/encoder/layer_0/multi_head/conv1d/kernel:0",
                          "encoder/layer_0/self_attention/linear_0/weight"),
                         ("transformer/decoder/layer_1/masked_multi_head/conv1d_1/bias:0",
                          "decoder/layer_1/self_attention/linear_1/bias"),
                         ("transformer/decoder/layer_0/multi_head/conv1d_2/kernel:0",
                          "decoder/layer_0/attention/linear_2/weight"),
                         ("transformer/decoder/dense/kernel:0", "decoder/projection/weight"),
                         ("transformer/encoder/w_embs:0", "encoder/embeddings/weight"),
                         ("transformer/encoder/LayerNorm/gamma:0", "encoder/layer_norm/gamma")):
            self.assertEqual(v1_name(old), new)

    def test_an_alias_scale_follows_its_target(self):
        m = read_model_bin(ct2.model_bin({"a/weight": np.ones((2, 2), np.int8), "a/weight_scale": np.ones(2, np.float32)},
                                         aliases={"b/weight": "a/weight"}))
        self.assertIs(m.get("b/weight_scale"), m.variables["a/weight_scale"])
        self.assertIsNone(m.get("c/weight_scale"))

    def test_damaged_files_are_refused_with_the_reason(self):
        good = ct2.model_bin(ct2.transformer(d_model=D, heads=HEADS, d_ff=FF))
        for cut in (2, 10, 40, len(good) // 2, len(good) - 1):
            with self.subTest(cut=cut), self.assertRaisesRegex(ConversionError, "truncated"):
                read_model_bin(good[:cut])
        with self.assertRaisesRegex(ConversionError, "bytes after the last alias"):
            read_model_bin(good + b"\0")
        with self.assertRaisesRegex(ConversionError, "binary version 7; CTranslate2 4.x model files have versions 1 to 6"):
            read_model_bin(b"\x07\0\0\0" + good[4:])
        with self.assertRaisesRegex(ConversionError, "is it a CTranslate2 model.bin"):
            read_model_bin(b"PK\x03\x04" + good[4:])
        bad = bytearray(ct2.model_bin({"x": np.zeros(4, np.float32)}, version=4))
        bad[-4 * 4 - 4 - 4:-4 * 4 - 4] = (12).to_bytes(4, "little")      # the byte count of x's 16 bytes
        with self.assertRaisesRegex(ConversionError, r"variable x has shape \[4\] of float32 but 12 bytes"):
            read_model_bin(bytes(bad))


class Import(unittest.TestCase):
    def setUp(self):
        self.tmp = TempDir(self)
        self.out = self.tmp("out", "m.edgemt")
        os.makedirs(self.tmp("out"))
        self.source_vocab, self.target_vocab = ct2.vocabulary(20), ct2.vocabulary(24)

    def write(self, variables, name="model", **options):
        path = self.tmp(name)
        ct2.write_directory(path, variables, options.pop("source_vocab", self.source_vocab),
                            options.pop("target_vocab", self.target_vocab), **options)
        return path

    def variables(self, **options):
        return ct2.transformer(d_model=D, heads=HEADS, d_ff=FF, **options)

    def converted(self, path, dtype="float32"):
        convert(path, self.out, "--dtype", dtype)
        return read(self.out)

    def test_the_spec_maps_onto_the_model(self):
        v = self.variables(activation=1)
        m = self.converted(self.write(v))
        c = m.config
        self.assertEqual((c.d_model, c.num_heads, c.d_ff, c.encoder_layers, c.decoder_layers), (D, HEADS, FF, 2, 2))
        self.assertEqual((c.norm, c.activation, c.position_encoding), (ir.NORM_PRE, ir.ACT_GELU_TANH, ir.POS_OPENNMT))
        self.assertAlmostEqual(c.embedding_scale, np.float32(np.sqrt(D)), places=6)
        self.assertEqual((c.shared_embeddings, c.tied_output, c.source_bos, c.source_eos), (False, False, False, False))
        self.assertEqual((c.pad_id, c.bos_id, c.eos_id, c.unk_id, c.decoder_start_id, c.banned_ids), (0, 1, 2, 3, 1, []))
        self.assertEqual(m.format_minor, ir.FORMAT_MINOR_CTRANSLATE2)
        fused = v["decoder/layer_1/self_attention/linear_0/weight"]
        layer = m.decoder.layers[1]
        for i, part in enumerate(("query", "key", "value")):
            np.testing.assert_array_equal(getattr(layer.self_attention, part).weight.data, fused[i * D:(i + 1) * D])
        kv = v["decoder/layer_0/attention/linear_1/bias"]
        np.testing.assert_array_equal(m.decoder.layers[0].cross_attention.value.bias, kv[D:])
        np.testing.assert_array_equal(m.decoder.layers[0].cross_attention.query.weight.data,
                                      v["decoder/layer_0/attention/linear_0/weight"])
        np.testing.assert_array_equal(m.encoder.final_norm.gamma, v["encoder/layer_norm/gamma"])
        np.testing.assert_array_equal(m.decoder.output_projection.bias, v["decoder/projection/bias"])
        self.assertIsNone(m.tokenizer.source_model)
        self.assertEqual((m.tokenizer.source_vocabulary, m.tokenizer.target_vocabulary),
                         (self.source_vocab, self.target_vocab))

    def test_aliases_give_shared_and_tied_embeddings(self):
        v = self.variables()
        vocab = ct2.vocabulary(24)
        v["encoder/embeddings_0/weight"] = v["decoder/embeddings/weight"]
        v["decoder/projection/weight"] = v["decoder/embeddings/weight"]
        for name in ("encoder/embeddings_0/weight", "decoder/projection/weight"):
            del v[name]
        aliases = {"encoder/embeddings_0/weight": "decoder/embeddings/weight",
                   "decoder/projection/weight": "decoder/embeddings/weight"}
        m = self.converted(self.write(v, aliases=aliases, source_vocab=vocab, target_vocab=vocab))
        self.assertTrue(m.config.shared_embeddings and m.config.tied_output)
        self.assertIsNone(m.encoder.token_embedding)
        self.assertIsNone(m.tokenizer.target_vocabulary)

    def test_int8_weights_are_kept_as_stored(self):
        v = ct2.quantize_int8(self.variables())
        path = self.write(v)
        m = self.converted(path, "int8")
        pairs = [(m.decoder.token_embedding, "decoder/embeddings/weight", slice(None)),
                 (m.decoder.output_projection.weight, "decoder/projection/weight", slice(None)),
                 (m.encoder.layers[1].self_attention.value.weight, "encoder/layer_1/self_attention/linear_0/weight",
                  slice(2 * D, 3 * D)),
                 (m.decoder.layers[0].feed_forward.up.weight, "decoder/layer_0/ffn/linear_0/weight", slice(None))]
        for tensor, name, rows in pairs:
            np.testing.assert_array_equal(tensor.data, v[name][rows], err_msg=name)
            np.testing.assert_array_equal(tensor.scales, np.float32(1) / v[name + "_scale"][rows], err_msg=name)
        # float32: the values CTranslate2 computes with, q * (1 / scale).
        f = self.converted(path, "float32")
        name = "decoder/layer_0/ffn/linear_1/weight"
        np.testing.assert_array_equal(f.decoder.layers[0].feed_forward.down.weight.data,
                                      v[name].astype(np.float32) * (np.float32(1) / v[name + "_scale"])[:, None])

    def test_float16_bfloat16_and_int16_become_float32(self):
        v = self.variables()
        w = v["encoder/layer_0/ffn/linear_0/weight"]
        v["encoder/layer_0/ffn/linear_0/weight"] = w.astype(np.float16)
        down = v["encoder/layer_0/ffn/linear_1/weight"]
        bf = (down.view(np.uint32) >> 16).astype(np.uint16)
        v["encoder/layer_0/ffn/linear_1/weight"] = bf
        q = np.clip(np.rint(v["decoder/layer_0/ffn/linear_0/weight"] * 1000), -32768, 32767).astype(np.int16)
        v["decoder/layer_0/ffn/linear_0/weight"] = q
        v["decoder/layer_0/ffn/linear_0/weight_scale"] = np.array(1000, np.float32)
        m = self.converted(self.write(v, types={"encoder/layer_0/ffn/linear_1/weight": "bfloat16"}))
        layer = m.encoder.layers[0]
        np.testing.assert_array_equal(layer.feed_forward.up.weight.data, w.astype(np.float16).astype(np.float32))
        np.testing.assert_array_equal(layer.feed_forward.down.weight.data, (bf.astype(np.uint32) << 16).view(np.float32))
        np.testing.assert_array_equal(m.decoder.layers[0].feed_forward.up.weight.data,
                                      q.astype(np.float32) * (np.float32(1) / np.float32(1000)))

    def test_old_revisions_and_versions(self):
        # Revision 2 (the transliteration model's): root attributes or none, encoder/embeddings/, no config.json.
        v = self.variables(pre_norm=False)
        for side in ("encoder", "decoder"):
            for a in ("num_heads", "pre_norm", "activation", "scale_embeddings"):
                del v["%s/%s" % (side, a)]
        v["encoder/embeddings/weight"] = v.pop("encoder/embeddings_0/weight")
        v["pre_norm"] = np.array(False, np.int8)
        v["activation"] = np.array(2, np.int8)
        v["with_source_eos"] = np.array(True, np.int8)
        m = self.converted(self.write(v, version=2, spec="TransformerBase", revision=2))
        c = m.config
        # TransformerBase: 8 heads; post-norm and SiLU from the root attributes.
        self.assertEqual((c.num_heads, c.norm, c.activation, c.source_eos), (8, ir.NORM_POST, ir.ACT_SILU, True))
        self.assertIsNone(m.encoder.final_norm)

    def test_config_json_tokens_and_flags(self):
        target = ["<pad>", "</s>", "<unk>", "<s>"] + ["u%d" % i for i in range(20)]
        source = ["<pad>", "</s>", "<unk>", "<s>"] + ["v%d" % i for i in range(16)]
        path = self.write(self.variables(), source_vocab=source, target_vocab=target, vocab_format="json",
                          config=dict(add_source_eos=True, add_source_bos=True, decoder_start_token="</s>",
                                      layer_norm_epsilon=1e-6))
        c = self.converted(path).config
        self.assertEqual((c.pad_id, c.eos_id, c.unk_id, c.bos_id, c.decoder_start_id), (0, 1, 2, 3, 1))
        self.assertEqual((c.source_bos, c.source_eos), (True, True))
        self.assertAlmostEqual(c.layer_norm_epsilon, 1e-6)

    def test_a_vocabulary_without_unk_gets_it_last(self):
        source = ["<blank>", "<s>", "</s>"] + ["v%d" % i for i in range(16)]      # 19 tokens + <unk> = 20 rows
        m = self.converted(self.write(self.variables(), source_vocab=source))
        self.assertEqual(m.tokenizer.source_vocabulary[-1], "<unk>")
        codec = TextCodec(m)
        self.assertEqual(codec.encode("v1  v3 nope"), [4, 6, 19])
        self.assertEqual(codec.decode([4, 5, 3]), "t0 t1 <unk>")

    def test_layernorm_embedding_is_an_embedding_norm(self):
        """fairseq/mBART's layernorm_embedding (here on the decoder only) becomes format 2.4's
        embedding_norm, declared by the norm placement; a file without one stays 2.3."""
        v = self.variables()
        rng = np.random.default_rng(3)
        v["decoder/layernorm_embedding/gamma"] = (1 + 0.1 * rng.standard_normal(D)).astype(np.float32)
        v["decoder/layernorm_embedding/beta"] = (0.1 * rng.standard_normal(D)).astype(np.float32)
        m = self.converted(self.write(v))
        self.assertEqual((m.format_minor, m.config.norm), (ir.FORMAT_MINOR_EMBEDDING_NORM, ir.NORM_PRE))
        self.assertIsNone(m.encoder.embedding_norm)
        np.testing.assert_array_equal(m.decoder.embedding_norm.gamma, v["decoder/layernorm_embedding/gamma"])
        np.testing.assert_array_equal(m.decoder.embedding_norm.beta, v["decoder/layernorm_embedding/beta"])
        with open(self.out, "rb") as f:
            stated = fb().Model.Model.GetRootAs(bytearray(f.read()), 0).Config().Norm()
        self.assertEqual(stated, ir.NORM_WITH_EMBEDDING_NORM[ir.NORM_PRE])     # what a 2.3 reader refuses
        self.assertIsNone(self.converted(self.write(self.variables(), name="plain")).decoder.embedding_norm)

    def test_what_cannot_run_is_listed_in_one_message(self):
        v = self.variables()
        v["encoder/layer_0/self_attention/relative_position_keys"] = np.zeros((9, D // HEADS), np.float32)
        v["decoder/layer_1/ffn/linear_0_noact/weight"] = np.zeros((FF, D), np.float32)
        del v["decoder/layer_0/ffn/layer_norm/beta"]
        v["decoder/activation"] = v["encoder/activation"] = np.array(5, np.int8)
        err = convert_error(self, self.write(v, config=dict(multi_query_attention=True)), self.out)
        self.assertIn("this CTranslate2 model cannot be converted (5 problems)", err)
        for what in ("relative position representations", "a gated (GLU) feed-forward",
                     "RMS normalization", "multi-query attention", "activation Tanh"):
            self.assertIn(what, err)

    def test_other_specs_and_missing_files_are_refused(self):
        err = convert_error(self, self.write(self.variables(), spec="TransformerDecoderSpec"), self.out)
        self.assertIn("decoder-only models are not supported", err)
        path = self.write(self.variables(), name="novocab")
        os.remove(os.path.join(path, "target_vocabulary.txt"))
        self.assertIn("target_vocabulary.txt (or .json): not found", convert_error(self, path, self.out))
        with open(os.path.join(path, "model.bin"), "r+b") as f:
            f.truncate(100)
        self.assertIn("model.bin: truncated at byte", convert_error(self, path, self.out))
        path = self.write(self.variables(), name="badconfig")
        with open(os.path.join(path, "config.json"), "w") as f:
            json.dump(dict(unk_token="<unk>", bos_token="<s>", eos_token="</s>", decoder_start_token=None), f)
        self.assertIn("decoder_start_token is null", convert_error(self, path, self.out))

    def test_an_argos_package_without_its_parts_is_refused(self):
        package = self.tmp("translate-en_de-1_0")
        self.write(self.variables(), name=os.path.join("translate-en_de-1_0", "model"))
        with open(os.path.join(package, "metadata.json"), "w") as f:
            json.dump(dict(from_code="en", to_code="de", target_prefix="__de__"), f)
        open(os.path.join(package, "bpe.model"), "w").close()
        err = convert_error(self, package, self.out)
        self.assertIn("this Argos Translate package cannot be converted (2 problems)", err)
        self.assertIn("sentencepiece.model: not found (this package tokenizes with BPE and Moses", err)
        self.assertIn("target_prefix '__de__'", err)


if __name__ == "__main__":
    unittest.main()
