"""The Python package on the trained Multi30k model (../shared), converted
here to int8 and float32: translate() gives exactly edgemt-translate's
lines for the 500 dev sentences, as do translate_batch and
translate_iterable, and the pieces of translate_stream add up to the same
text for every sentence. With a vocabulary shortlist (the example int8 file
given one from the train split), translate() gives the CLI's lines with
and without it (use_shortlist=False, --no-shortlist). Skips (77) without
../shared or the package."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from e2e_common import CONVERT, DEV_EN, EXAMPLE_INT8, MULTI30K, SHARED, convert, need_shared, run, tool  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import edgemt_package  # noqa: E402

edgemt = None


def import_edgemt():
    global edgemt
    edgemt = edgemt_package.import_edgemt()


class PythonMulti30k(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import_edgemt()
        need_shared()
        cls.tmp = tempfile.TemporaryDirectory()
        with open(DEV_EN, encoding="utf-8") as f:
            cls.dev = f.read()
        cls.sentences = cls.dev.split("\n")[:-1]
        assert len(cls.sentences) == 500, len(cls.sentences)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def same_as_cli(self, dtype):
        model = os.path.join(self.tmp.name, "multi30k-ende.%s.edgemt" % dtype)
        convert(MULTI30K, model, dtype, extra=("--quiet",))
        cli = run([tool("edgemt-translate"), "--model", model], stdin=self.dev).stdout.split("\n")[:-1]
        self.assertEqual(len(cli), 500)
        translator = edgemt.Translator(model)
        self.assertEqual(translator.translate(self.sentences), cli)
        self.assertEqual([r.hypotheses[0] for r in translator.translate_batch(self.sentences)], cli)
        with open(DEV_EN, encoding="utf-8") as lines:
            self.assertEqual(list(translator.translate_iterable(lines, batch_size=16)), cli)
        streamed = ["".join(translator.translate_stream(line)) for line in self.sentences]
        differing = [i for i in range(500) if streamed[i] != cli[i]]
        self.assertEqual(differing, [], "streamed pieces differ from the CLI's line for these sentences")

    def test_int8(self):
        self.same_as_cli("int8")

    def test_float32(self):
        self.same_as_cli("float32")

    def test_a_shortlist_decodes_as_the_cli_with_and_without_it(self):
        train = os.path.join(SHARED, "data", "multi30k", "train")
        model = os.path.join(self.tmp.name, "shortlist.int8.edgemt")
        run([sys.executable, CONVERT, EXAMPLE_INT8, "--out", model, "--quiet",
             "--shortlist-corpus", train + ".en", train + ".de"])
        self.assertTrue(edgemt.Model(model).has_shortlist)
        self.assertFalse(edgemt.Model(EXAMPLE_INT8).has_shortlist)
        sources = "".join(line + "\n" for line in self.sentences[:100])
        translator = edgemt.Translator(model)
        for use_shortlist, flags in ((True, []), (False, ["--no-shortlist"])):
            cli = run([tool("edgemt-translate"), "--model", model, *flags], stdin=sources).stdout.split("\n")[:-1]
            self.assertEqual(translator.translate(self.sentences[:100], use_shortlist=use_shortlist), cli)


if __name__ == "__main__":
    unittest.main()
