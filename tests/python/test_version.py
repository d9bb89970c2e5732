"""One version everywhere: `edgemt-translate --version`, the C API's
edgemt_version() / edgemt_model_formats() (libedgemt.so through ctypes) and
the Python package's __version__ / MODEL_FORMATS say the same, and it is
CMake's project version (EDGEMT_EXPECTED_VERSION)."""
import ctypes
import os
import re
import subprocess
import unittest

import edgemt


class Version(unittest.TestCase):
    def test_cli_c_and_python_agree(self):
        expected = os.environ["EDGEMT_EXPECTED_VERSION"]
        lib = ctypes.CDLL(os.path.join(os.environ["EDGEMT_BUILD"], "lib", "libedgemt.so"))
        for name in ("edgemt_version", "edgemt_model_formats"):
            getattr(lib, name).restype = ctypes.c_char_p
        c_version = lib.edgemt_version().decode()
        c_formats = lib.edgemt_model_formats().decode()
        cli = subprocess.run([os.path.join(os.environ["EDGEMT_BIN"], "edgemt-translate"), "--version"],
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual(c_version, expected)
        self.assertEqual(edgemt.__version__, expected)
        self.assertRegex(c_formats, r"^2\.0-2\.[0-9]+$")
        self.assertEqual(edgemt.MODEL_FORMATS, c_formats)
        self.assertEqual(cli, "edgemt-translate %s (model formats %s)\n" % (expected, c_formats))

    def test_the_converter_writes_no_newer_format(self):
        """The newest format minor the converter writes (converter/edgemt_convert/format/model_ir.py)
        is the newest the library says it reads."""
        ir = os.path.join(os.path.dirname(__file__), "..", "..", "converter", "edgemt_convert", "format",
                          "model_ir.py")
        with open(ir, encoding="utf-8") as f:
            minors = [int(m) for m in re.findall(r"^FORMAT_MINOR\w* = ([0-9]+)", f.read(), re.M)]
        self.assertTrue(minors)
        self.assertTrue(edgemt.MODEL_FORMATS.endswith("-2.%d" % max(minors)), edgemt.MODEL_FORMATS)


if __name__ == "__main__":
    unittest.main()
