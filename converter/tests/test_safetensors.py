"""model.safetensors without a new dependency (edgemt_convert.sources.safetensors):
every dtype reads back exactly (BF16 widened to float32), and a damaged file
is refused with a one-line message naming the tensor, never a traceback."""
import os
import struct
import tempfile
import unittest

import numpy as np

from helpers import make_marian_checkpoint
from edgemt_convert.errors import ConversionError
from edgemt_convert.sources import safetensors


def write(path, tensors, header_edit=None, metadata=None):
    """{name: (dtype name, ndarray)} written to the specification (the Marian test checkpoints' writer)."""
    make_marian_checkpoint.write_safetensors(path, tensors, metadata, header_edit)


class Safetensors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "model.safetensors")

    def tearDown(self):
        self.tmp.cleanup()

    def refused(self, needle, tensors=None, header_edit=None, raw=None):
        if raw is not None:
            with open(self.path, "wb") as f:
                f.write(raw)
        else:
            write(self.path, tensors or {"w": ("F32", np.ones((2, 3), np.float32))}, header_edit)
        with self.assertRaises(ConversionError) as caught:
            safetensors.read(self.path)
        message = str(caught.exception)
        self.assertIn(needle, message)
        self.assertTrue(message.startswith("model.safetensors: "), message)
        self.assertNotIn("\n", message)

    def test_every_dtype_reads_back_exactly(self):
        rng = np.random.default_rng(3)
        tensors = {
            "f64": ("F64", rng.standard_normal((3, 2))),
            "f32": ("F32", rng.standard_normal((4, 5)).astype(np.float32)),
            "f16": ("F16", rng.standard_normal(7).astype(np.float16)),
            "i64": ("I64", np.array([[-(2 ** 40), 7]], np.int64)),
            "i32": ("I32", np.arange(-3, 3, dtype=np.int32)),
            "i16": ("I16", np.array([-32768, 32767], np.int16)),
            "i8": ("I8", np.array([-128, 5, 127], np.int8)),
            "u8": ("U8", np.array([0, 255], np.uint8)),
            "bool": ("BOOL", np.array([True, False, True])),
            "scalar": ("F32", np.array(2.5, np.float32)),
            "empty": ("F32", np.zeros((0, 4), np.float32)),
        }
        write(self.path, tensors, metadata={"format": "pt"})
        out = safetensors.read(self.path)
        self.assertEqual(sorted(out), sorted(tensors))
        for name, (_, array) in tensors.items():
            self.assertEqual(out[name].dtype, array.dtype, name)
            self.assertEqual(out[name].shape, array.shape, name)
            np.testing.assert_array_equal(out[name], array, name)

    def test_bf16_is_the_upper_half_of_float32(self):
        values = np.array([1.0, -2.5, 3.140625, 1e-3, 65504.0, -0.0], np.float32)
        bf16 = (values.view(np.uint32) >> 16).astype(np.uint16)  # truncated: exact in bf16
        write(self.path, {"b": ("BF16", bf16.reshape(2, 3))})
        out = safetensors.read(self.path)["b"]
        self.assertEqual(out.dtype, np.float32)
        np.testing.assert_array_equal(out.reshape(-1).view(np.uint32), bf16.astype(np.uint32) << 16)

    def test_damaged_files_are_refused(self):
        self.refused("too short", raw=b"\x01\x02")
        self.refused("does not fit", raw=struct.pack("<Q", 1000) + b"{}")
        self.refused("not JSON", raw=struct.pack("<Q", 3) + b"{x}")
        self.refused("not a JSON object", raw=struct.pack("<Q", 2) + b"[]")
        self.refused("tensor w: dtype F8 is not one of",
                     header_edit=lambda h: h["w"].update(dtype="F8"))
        self.refused("tensor w: needs dtype, shape and data_offsets",
                     header_edit=lambda h: h["w"].pop("shape"))
        self.refused("tensor w: shape [2, -3] is not a list of sizes",
                     header_edit=lambda h: h["w"].update(shape=[2, -3]))
        self.refused("tensor w: data_offsets [0, 25] are outside the 24 bytes of data",
                     header_edit=lambda h: h["w"].update(data_offsets=[0, 25]))
        self.refused("tensor w: 24 bytes for shape [2, 4] of F32, which needs 32",
                     header_edit=lambda h: h["w"].update(shape=[2, 4]))
        self.refused("tensors a and b share bytes",
                     tensors={"a": ("F32", np.ones(4, np.float32)), "b": ("F32", np.ones(4, np.float32))},
                     header_edit=lambda h: h["b"].update(data_offsets=[8, 24]))
        os.remove(self.path)
        with self.assertRaisesRegex(ConversionError, "model.safetensors: not found"):
            safetensors.read(self.path)


if __name__ == "__main__":
    unittest.main()
