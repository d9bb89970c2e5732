"""The file layout: identifier, version 2.0, 64-byte aligned tensor data,
4-byte aligned scales, a lossless round trip through writer and reader, and
files of other versions rejected (1.x with a message to convert again)."""
import dataclasses
import os
import re
import unittest

import numpy as np

from helpers import convert, train_spm, write_checkpoint

from edgemt_convert.errors import ConversionError
from edgemt_convert.format import model_ir as ir
from edgemt_convert.format.reader import parse, read, tensor_data_offsets
from edgemt_convert.format.writer import serialize


def assert_same(test, a, b, path="model"):
    """Recursive equality of two model_ir values."""
    if isinstance(a, np.ndarray):
        test.assertEqual(a.dtype, b.dtype, path)
        np.testing.assert_array_equal(a, b, err_msg=path)
    elif dataclasses.is_dataclass(a):
        test.assertIs(type(a), type(b), path)
        for f in dataclasses.fields(a):
            assert_same(test, getattr(a, f.name), getattr(b, f.name), path + "." + f.name)
    elif isinstance(a, list):
        test.assertEqual(len(a), len(b), path)
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(test, x, y, "%s[%d]" % (path, i))
    elif isinstance(a, float):
        test.assertEqual(np.float32(a), np.float32(b), path)
    else:
        test.assertEqual(a, b, path)


class FileLayout(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = __import__("tempfile").TemporaryDirectory(prefix="edgemt-test-")
        tmp = cls._tmp.name
        ckpt = os.path.join(tmp, "ckpt")
        cfg, _ = write_checkpoint(ckpt, src_vocab_size=200, tgt_vocab_size=200)
        train_spm(ckpt, 200)
        cfg["tokenizer"] = "spm.model"
        write_checkpoint(ckpt, cfg=cfg)
        cls.files = {}
        cls.paths = {}
        for dtype in ("float32", "int8"):
            path = os.path.join(tmp, dtype + ".edgemt")
            convert(ckpt, path, "--dtype", dtype, "--source-language", "en", "--target-language", "de")
            with open(path, "rb") as f:
                cls.files[dtype] = f.read()
            cls.paths[dtype] = path
        with open(os.path.join(ckpt, "spm.model"), "rb") as f:
            cls.spm = f.read()

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_identifier_and_version(self):
        for dtype, data in self.files.items():
            self.assertEqual(data[4:8], b"EDMT", dtype)
            m = parse(data)
            self.assertEqual((m.format_major, m.format_minor), (2, 0))
            self.assertEqual((ir.FORMAT_MAJOR, ir.FORMAT_MINOR), (2, 0))

    def test_tensor_data_is_64_byte_aligned(self):
        for dtype, data in self.files.items():
            found = tensor_data_offsets(data)
            self.assertGreater(len(found), 50)
            for name, start, n, scales in found:
                self.assertEqual(start % 64, 0, "%s %s data at %d" % (dtype, name, start))
                self.assertLessEqual(start + n, len(data))
                if scales is not None:
                    self.assertEqual(scales % 4, 0, "%s %s scales at %d" % (dtype, name, scales))
            self.assertEqual(len(data) % 64, 0)
            kinds = {(s is not None) for _, _, _, s in found}
            self.assertEqual(kinds, {True, False} if dtype == "int8" else {False})

    def test_metadata_and_tokenizer(self):
        for dtype, data in self.files.items():
            m = parse(data)
            self.assertEqual(m.metadata.dtype, dtype)
            self.assertEqual((m.metadata.source_language, m.metadata.target_language), ("en", "de"))
            self.assertEqual(m.metadata.source_checkpoint, "ckpt")
            self.assertTrue(m.metadata.converter_version.startswith("edgemt-convert "))
            self.assertEqual(m.tokenizer.source_model, self.spm)
            self.assertIsNone(m.tokenizer.target_model)
        self.assertEqual(parse(self.files["float32"]).metadata.quantization_summary, "")
        summary = parse(self.files["int8"]).metadata.quantization_summary
        self.assertIn("file: %s bytes" % format(len(self.files["int8"]), ","), summary)
        self.assertIn("no calibration", summary)
        self.assertNotIn("calibration:", summary)
        self.assertRegex(summary, r"\n  decoder\.output_projection +200x64 +[0-9.]+% +[0-9.]+%")
        self.assertRegex(summary, r"\n  encoder\.token_embedding +200x64 ")

    def test_round_trip(self):
        for dtype, data in self.files.items():
            m = parse(data)
            again = serialize(m)
            self.assertEqual(again, data, dtype)
            assert_same(self, m, parse(again))

    def test_round_trip_of_every_optional_part(self):
        m = parse(self.files["int8"])
        m.config.shared_embeddings = True
        m.encoder.token_embedding = None
        m.config.position_encoding = ir.POS_LEARNED
        m.encoder.positions = np.arange(48 * 64, dtype=np.float32).reshape(48, 64)
        m.decoder.positions = -m.encoder.positions
        m.tokenizer.target_model = b"\x01\x02\x03"
        m.decoder.output_projection.bias = None
        back = parse(serialize(m))
        assert_same(self, m, back)

    def test_round_trip_of_marian_parts(self):
        """Format 2.8: SSRU decoder layers (no self-attention), Marian's sinusoid, the zero
        start, the length factor and the shrinking beam come back as written, in a 2.8 file."""
        m = parse(self.files["int8"])
        for layer in m.decoder.layers:
            attention, layer.self_attention = layer.self_attention, None
            layer.ssru = ir.SSRU(transform=ir.Linear(attention.query.weight), forget_gate=attention.key)
        m.config.position_encoding = ir.POS_MARIAN
        m.config.decoder_starts_from_zero = True
        m.config.default_max_length_factor = 2.0
        m.config.shrinking_beam = True
        data = serialize(m)
        back = parse(data)
        self.assertEqual(back.format_minor, ir.FORMAT_MINOR_MARIAN)
        m.format_minor = ir.FORMAT_MINOR_MARIAN
        assert_same(self, m, back)
        names = [name for name, _, _, _ in tensor_data_offsets(data)]
        self.assertIn("decoder.layers.1.ssru.forget_gate.bias", names)
        self.assertNotIn("decoder.layers.1.self_attention.query.weight", names)
        self.assertEqual(parse(self.files["int8"]).format_minor, 0)   # files without them stay as they were
        broken = parse(data)
        broken.decoder.layers[1].ssru = None
        with self.assertRaisesRegex(ConversionError, "decoder.layers.1: a decoder layer needs self_attention or ssru"):
            parse(serialize(broken))

    def test_int8_linears_hold_no_activation_parameters(self):
        """Format 2.0: a Linear table has weight and bias only (slots 0 and 1);
        the 1.x input_quant/output_quant slots are not written."""
        from edgemt_convert.format.schema import fb
        f = fb()
        self.assertFalse(hasattr(f, "QuantParams"))
        m = f.Model.Model.GetRootAs(self.files["int8"], 0)
        lin = m.Encoder().Layers(0).SelfAttention().Query()
        self.assertFalse(hasattr(lin, "InputQuant"))
        self.assertEqual(lin._tab.Offset(8), 0)            # slot 2 (1.x input_quant): absent
        self.assertEqual(lin._tab.Offset(10), 0)           # slot 3 (1.x output_quant): absent
        self.assertEqual(lin.Weight().Type(), ir.TYPE_INT8)

    def test_rejects_other_files(self):
        with self.assertRaisesRegex(ConversionError, "no EDMT file identifier"):
            parse(b"\0" * 64)
        m = parse(self.files["float32"])
        m.format_major = 3
        with self.assertRaisesRegex(ConversionError, r"^format 3\.0 is not supported \(this reader knows 2\.x\)$"):
            parse(serialize(m))

    def test_rejects_a_1x_file_and_says_to_convert_again(self):
        for dtype in ("int8", "float32"):
            m = parse(self.files[dtype])
            m.format_major, m.format_minor = 1, 0
            with self.assertRaisesRegex(ConversionError, r"^format 1\.0 is no longer supported: .*"
                                                         r"convert the checkpoint again"):
                parse(serialize(m))
        # through the file reader, with the path in front
        path = self.paths["int8"] + ".v1"
        with open(path, "wb") as f:
            f.write(serialize(m))
        with self.assertRaisesRegex(ConversionError, r"^%s: format 1\.0 is no longer supported" % re.escape(path)):
            read(path)


if __name__ == "__main__":
    unittest.main()
