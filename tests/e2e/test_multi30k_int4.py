"""The trained Multi30k model converted to int4 (edgemt-convert --dtype int4,
docs/int4.md) on every CPU (x86-64 natively, aarch64 and armhf under qemu):
BLEU on the 500 dev sentences at least the float32 reference's minus 0.3
(issue 29's bar; natively and under the sanitizers), the share of sentences
identical to float32 at least a floor below the measured one (under qemu on
the first 200 dev sentences, as for int8), a file at most 55% of the int8
one (int4 embeddings, format 2.6), and, on every CPU, the runtime's ids
against the converter's simulation of the int4 arithmetic (which runs on
the build machine). The dev set is translated once as ids where a pass is slow
(emulated, sanitized) and the text compared is those ids decoded; natively
the CLI's text output is checked to be exactly that.

Measured at the converter's defaults (docs/int4.md, "Measured"): BLEU 36.78
(float32 36.57), 56.8% of sentences identical to float32, the file 54.1% of
the int8 file, runtime and simulation identical on 97.4%."""
import os
import sys
import tempfile
import unittest

from e2e_common import (DEV_EN, DEV_SENTENCES, EXAMPLE_INT8, MULTI30K, REFERENCE, bleu_of_lines, convert, decoded,
                        emulated, need_shared, read_lines, run)

FLOAT32_REFERENCE_BLEU = 36.57
# Measured 56.8%: 4-bit weights flip about four in ten greedy outputs to another
# (about as good) translation. A floor below it that a broken kernel cannot reach.
IDENTICAL_FLOOR = 0.50
# The first sentences are harder: 45% on the first 100 and 50.5% on the first 200 (x86-64), 51.5% on
# the first 200 (arm64 under qemu). A slice's floor (under emulation) is lower.
SLICE_IDENTICAL_FLOOR = 0.40
FILE_SHARE_LIMIT = 0.55  # of the int8 file (issue 29)



class Multi30kInt4(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_shared()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = os.path.join(cls.tmp.name, "multi30k-ende.int4.edgemt")
        convert(MULTI30K, cls.model, "int4", extra=("--quiet",))
        with open(os.path.join(MULTI30K, "reference", "dev.src.ids")) as f:
            cls.sources = "".join(f.readlines()[:DEV_SENTENCES or None])
        cls.ids = run(emulated("edgemt-translate") + ["--model", cls.model, "--input-ids", "--output-ids",
                                                      "--batch-size", "8"], stdin=cls.sources).stdout.split("\n")[:-1]
        if os.environ.get("EDGEMT_EMULATOR") or os.environ.get("EDGEMT_SANITIZED"):
            # One slow pass: the text is the ids decoded (natively the CLI's text is checked to be that).
            cls.text = decoded(cls.ids)
        else:
            with open(DEV_EN, encoding="utf-8") as f:
                dev = "".join(f.readlines()[:DEV_SENTENCES or None])
            cls.text = run(emulated("edgemt-translate") + ["--model", cls.model, "--batch-size", "8"],
                           stdin=dev).stdout.split("\n")[:-1]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_text_is_the_ids_decoded(self):
        # Natively only (tests/e2e/CMakeLists.txt): under emulation and sanitizers the text is the ids decoded.
        self.assertEqual(self.text, decoded(self.ids))

    def test_bleu_close_to_float32(self):
        # All 500 sentences: a slice's BLEU is too noisy for a bar of tenths (under qemu the share below checks).
        score = bleu_of_lines(self.text, os.path.join(self.tmp.name, "int4.de"))
        print("int4 BLEU %.2f" % score)
        self.assertGreaterEqual(score, FLOAT32_REFERENCE_BLEU - 0.3)

    def test_share_identical_to_float32(self):
        float32 = read_lines(os.path.join(MULTI30K, "reference", "dev.greedy.de"))[:DEV_SENTENCES or None]
        self.assertEqual(len(float32), len(self.text))
        same = sum(a == b for a, b in zip(float32, self.text)) / len(float32)
        print("int4 identical to float32 on %d sentences: %.1f%%" % (len(float32), 100 * same))
        self.assertGreaterEqual(same, SLICE_IDENTICAL_FLOOR if DEV_SENTENCES else IDENTICAL_FLOOR)

    def test_file_smaller_than_int8(self):
        if not os.path.exists(EXAMPLE_INT8):
            self.skipTest("models/multi30k-ende.int8.edgemt is not in this checkout")
        share = os.path.getsize(self.model) / os.path.getsize(EXAMPLE_INT8)
        print("int4 file: %.1f%% of int8" % (100 * share))
        self.assertLessEqual(share, FILE_SHARE_LIMIT)

    def test_runtime_agrees_with_the_int4_simulation(self):
        sources = os.path.join(self.tmp.name, "dev.src.ids")
        with open(sources, "w") as f:
            f.write(self.sources)
        simulated = run([sys.executable, REFERENCE, "--model", self.model, "--input-ids", sources]).stdout.split("\n")[:-1]
        self.assertEqual(len(self.ids), len(simulated))
        same = sum(a == b for a, b in zip(self.ids, simulated)) / len(simulated)
        print("runtime identical to the int4 simulation: %.1f%%" % (100 * same))
        # Measured 97.2% (x86-64 AVX2, all 500) and 98.5% (arm64 under qemu, the first 200): the
        # kernel's FMAs and packing order (docs/int4.md) and float sums in attention flip near-ties.
        self.assertGreaterEqual(same, 0.95)


if __name__ == "__main__":
    unittest.main()
