"""The Python package on the trained Multi30k model (../shared): translate()
gives exactly edgemt-translate's lines for the 500 dev sentences, int8 (the
committed example model) and float32 (converted here), and the pieces of
translate_stream add up to the same text for every sentence."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from e2e_common import DEV_EN, EXAMPLE_INT8, MULTI30K, convert, need_shared, run, tool  # noqa: E402

edgemt = None


def import_edgemt():
    """The package from PYTHONPATH (the build tree); a skip when it is not there."""
    global edgemt
    try:
        import edgemt as package
    except ImportError as e:  # a build without EDGEMT_PYTHON
        raise unittest.SkipTest("the edgemt package is not importable (%s): build with -DEDGEMT_PYTHON=ON" % e)
    edgemt = package


class PythonMulti30k(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import_edgemt()
        need_shared()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.float32 = os.path.join(cls.tmp.name, "multi30k-ende.float32.edgemt")
        convert(MULTI30K, cls.float32, "float32", extra=("--quiet",))
        with open(DEV_EN, encoding="utf-8") as f:
            cls.dev = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def same_as_cli(self, model):
        cli = run([tool("edgemt-translate"), "--model", model], stdin=self.dev).stdout.split("\n")[:-1]
        self.assertEqual(len(cli), 500)
        translator = edgemt.Translator(model)
        self.assertEqual(translator.translate(self.dev.split("\n")[:-1]), cli)
        for line, expected in zip(self.dev.split("\n"), cli):
            self.assertEqual("".join(translator.translate_stream(line)), expected)

    def test_int8(self):
        self.same_as_cli(EXAMPLE_INT8)

    def test_float32(self):
        self.same_as_cli(self.float32)


if __name__ == "__main__":
    unittest.main()
