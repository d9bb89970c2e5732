"""The WebAssembly build on a Firefox Translations model (issue 55): the kit's
firefox-tiny (SSRU decoder, tied embeddings, Marian's positions, a binary
shortlist), converted from its folder as Firefox ships it.

  * float32: Node.js gives the native CLI's translation for at least 99% of
    200 dev sentences (the same arithmetic, bar the order of float sums);
  * int8 (the intgemm8 weights as stored, the shortlist on): one sentence at a
    time and batches of 16 give the same translations (the products' rows are
    independent: WebAssembly runs a remainder of rows one by one), and at
    least 75% are the native CLI's. Random weights make int8 chaotic (a
    rounding apart, another token wins and the rest of the sentence follows):
    measured 86% here; the trained model's 98% is test_wasm_multi30k's.
Run by CTest in the wasm build directory (EDGEMT_WEB_PACKAGE, EDGEMT_NATIVE_BIN).
"""
import os
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
from e2e_common import DEV_EN, SHARED, convert, need_shared, read_lines, run  # noqa: E402
from test_wasm_multi30k import NODE, environment  # noqa: E402

KIT = os.path.join(SHARED, "bench", "bergamot")
SENTENCES = 200


class WasmFirefoxTiny(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_shared()
        if not os.path.isfile(os.path.join(KIT, "export_marian.py")):
            raise unittest.SkipTest("the Bergamot kit is not at %s" % KIT)
        cls.package = environment("EDGEMT_WEB_PACKAGE")
        cls.native_cli = os.path.join(environment("EDGEMT_NATIVE_BIN"), "edgemt-translate")
        cls.work = tempfile.TemporaryDirectory(prefix="edgemt-wasm-firefox-")
        work = cls.work.name
        lex = os.path.join(work, "lex.bin")
        run(["/usr/bin/python3", os.path.join(KIT, "make_shortlist.py"), "random", "--src-size", "8000",
             "--trg-size", "8000", "--out", lex])
        folder = os.path.join(work, "firefox-tiny")
        run(["/usr/bin/python3", os.path.join(KIT, "export_marian.py"), "random", "--preset", "firefox-tiny",
             "--eos-rate", "0.05", "--no-alphas", "--shortlist", lex, "--out-dir", folder])
        cls.int8 = os.path.join(work, "tiny.int8.edgemt")
        cls.float32 = os.path.join(work, "tiny.float32.edgemt")
        convert(folder, cls.int8, "int8")
        convert(folder, cls.float32, "float32")
        cls.sources = "".join(line + "\n" for line in read_lines(DEV_EN)[:SENTENCES])

    @classmethod
    def tearDownClass(cls):
        cls.work.cleanup()

    def native(self, model):
        return run([self.native_cli, "--model", model, "--threads", "1"], stdin=self.sources).stdout.split("\n")[:-1]

    def node(self, model, *options):
        return run([NODE, os.path.join(REPO, "web", "tests", "translate_lines.mjs"), "--package", self.package,
                    "--model", model, *options], stdin=self.sources).stdout.split("\n")[:-1]

    def share(self, name, ours, theirs):
        self.assertEqual((len(ours), len(theirs)), (SENTENCES, SENTENCES), name)
        same = sum(a == b for a, b in zip(ours, theirs))
        print("%s: %d of %d identical" % (name, same, SENTENCES), file=sys.stderr)
        self.assertGreater(len(set(theirs)), SENTENCES // 2, "the outputs must depend on the input")
        return same / SENTENCES

    def test_float32_is_the_native_translation(self):
        self.assertGreaterEqual(self.share("float32, Node.js vs native", self.node(self.float32, "--batch", "1"),
                                           self.native(self.float32)), 0.99)

    def test_int8_batches_translate_as_single_sentences(self):
        single = self.node(self.int8, "--batch", "1")
        batched = self.node(self.int8, "--batch", "16", "--per-call", str(SENTENCES))
        self.assertEqual(self.share("int8, batches of 16 vs one at a time", batched, single), 1.0)
        self.assertGreaterEqual(self.share("int8, Node.js vs native", single, self.native(self.int8)), 0.75)


if __name__ == "__main__":
    unittest.main()
