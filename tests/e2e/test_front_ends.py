"""Every front end gives edgemt-translate's output on the 500 Multi30k dev
sentences (under qemu, the first 20), int8 (the committed example model) and
float32 (converted here): examples/translate.c (the C API through
libedgemt.so), and edgemt-translate --stream, whose pieces add up to the same
lines. (Python: tests/python.)"""
import os
import tempfile
import unittest

from e2e_common import DEV_EN, EXAMPLE_INT8, MULTI30K, convert, emulated, need_shared, run



class FrontEnds(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_shared()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.float32 = os.path.join(cls.tmp.name, "multi30k-ende.float32.edgemt")
        convert(MULTI30K, cls.float32, "float32", extra=("--quiet",))
        with open(DEV_EN) as f:
            lines = f.readlines()
        # Under qemu and the sanitizers (each sentence the same paths) the first 20, natively all.
        cls.count = 20 if os.environ.get("EDGEMT_EMULATOR") or os.environ.get("EDGEMT_SANITIZED") else len(lines)
        cls.dev = "".join(lines[:cls.count])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def same_as_cli(self, model):
        ours = run(emulated("edgemt-translate") + ["--model", model], stdin=self.dev).stdout
        self.assertEqual(len(ours.split("\n")), self.count + 1)
        c = run(emulated("translate-c") + [model], stdin=self.dev).stdout
        self.assertEqual(c, ours)
        streamed = run(emulated("edgemt-translate") + ["--model", model, "--stream"], stdin=self.dev).stdout
        self.assertEqual(streamed, ours)

    def test_stream_refuses_what_it_cannot_do(self):
        for extra in (["--beam-size", "2"], ["--scores"], ["--output-ids"]):
            result = run(emulated("edgemt-translate") + ["--model", EXAMPLE_INT8, "--stream"] + extra, stdin="a\n",
                         check=False)
            self.assertEqual(result.returncode, 2)
            self.assertIn("--stream is for text in and text out", result.stderr)

    def test_int8(self):
        self.same_as_cli(EXAMPLE_INT8)

    def test_float32(self):
        self.same_as_cli(self.float32)


if __name__ == "__main__":
    unittest.main()
