"""edgemt-reference: --checkpoint and a float32 --model agree exactly; dumps
have the golden.npz layout; length options; text input."""
import os
import subprocess
import unittest

import numpy as np

from helpers import CONVERTER, convert, corpus_lines, run_cli, train_spm, write_checkpoint

from edgemt_convert.reference.cli import main

SOURCES = "5 17 33 9 3\n44 3\n\n7 8 9 10 11 12 13 14 15 16 17 3\n"


class ReferenceCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = __import__("tempfile").TemporaryDirectory(prefix="edgemt-test-")
        t = lambda *p: os.path.join(cls._tmp.name, *p)  # noqa: E731
        cls.ckpt = t("ckpt")
        cfg, _ = write_checkpoint(cls.ckpt, src_vocab_size=150, tgt_vocab_size=150, norm="pre", activation="gelu")
        train_spm(cls.ckpt, 150)
        cfg["tokenizer"] = "spm.model"
        write_checkpoint(cls.ckpt, cfg=cfg)
        cls.f32, cls.i8 = t("m.f32.edgemt"), t("m.int8.edgemt")
        convert(cls.ckpt, cls.f32, "--dtype", "float32")
        cls.ids = t("src.ids")
        with open(cls.ids, "w") as f:
            f.write(SOURCES)
        cls.text = t("src.txt")
        with open(cls.text, "w") as f:
            f.write("\n".join(corpus_lines(n=30)) + "\n")
        convert(cls.ckpt, cls.i8)
        cls.t = staticmethod(t)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def reference(self, *argv):
        code, out, err = run_cli(main, list(argv))
        self.assertEqual(code, 0, err)
        return out

    def test_checkpoint_and_float32_file_agree(self):
        a_npz, b_npz = self.t("a.npz"), self.t("b.npz")
        a = self.reference("--checkpoint", self.ckpt, "--input-ids", self.ids, "--dump-npz", a_npz, "--dump-count", "3")
        b = self.reference("--model", self.f32, "--input-ids", self.ids, "--dump-npz", b_npz, "--dump-count", "3")
        self.assertEqual(a, b)
        self.assertEqual(len(a.split("\n")), 5)
        a, b = np.load(a_npz), np.load(b_npz)
        self.assertEqual(sorted(a.keys()), sorted(b.keys()))
        self.assertEqual(sorted(a.keys()), sorted("s%d_%s" % (i, k) for i in range(3)
                                                  for k in ("src_ids", "encoder_out", "logits", "out_ids")))
        for k in a.keys():
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        self.assertEqual(a["s2_src_ids"].tolist(), [3])          # an empty line is just </s>
        self.assertEqual(a["s0_encoder_out"].shape, (5, 64))
        self.assertEqual(a["s0_logits"].shape, (len(a["s0_out_ids"]), 150))
        self.assertEqual(a["s0_logits"].dtype, np.float32)

    def test_int8_file(self):
        out = self.reference("--model", self.i8, "--input-ids", self.ids, "--max-length", "6", "--min-length", "6")
        rows = [list(map(int, l.split())) for l in out.splitlines()]
        self.assertEqual([len(r) for r in rows], [6] * 4)
        self.assertTrue(all(0 <= t < 150 and t != 3 for r in rows for t in r))
        # dumps: the logits are the float output of the int8 projection, their argmax the ids
        i8_npz, f32_npz = self.t("i8.npz"), self.t("f32.npz")
        self.reference("--model", self.i8, "--input-ids", self.ids, "--dump-npz", i8_npz, "--dump-count", "2")
        self.reference("--model", self.f32, "--input-ids", self.ids, "--dump-npz", f32_npz, "--dump-count", "2")
        a, b = np.load(i8_npz), np.load(f32_npz)
        for i in range(2):
            logits = a["s%d_logits" % i]
            np.testing.assert_array_equal(logits.argmax(axis=1), a["s%d_out_ids" % i])
            self.assertGreater(len(np.unique(logits[0])), 100)          # float values, not 256 levels
            # the first step has the same input in both: int8 logits close to float32, not equal
            diff = np.abs(logits[0] - b["s%d_logits" % i][0]).max()
            self.assertGreater(diff, 0.0)
            self.assertLess(diff, 0.1 * np.abs(b["s%d_logits" % i][0]).max())

    def test_text_input_and_output(self):
        ids = self.reference("--checkpoint", self.ckpt, "--input", self.text)
        text = self.reference("--checkpoint", self.ckpt, "--input", self.text, "--text")
        self.assertEqual(len(ids.splitlines()), 30)
        self.assertEqual(len(text.splitlines()), 30)

    def test_errors(self):
        bad = self.t("bad.ids")
        with open(bad, "w") as f:
            f.write("1 2 3\n4 x 3\n")
        code, _, err = run_cli(main, ["--model", self.f32, "--input-ids", bad])
        self.assertEqual(code, 1)
        self.assertEqual(err, "edgemt-reference: error: %s:2: not a list of integer ids\n" % bad)
        with open(bad, "w") as f:
            f.write("1 2 150\n")
        code, _, err = run_cli(main, ["--model", self.f32, "--input-ids", bad])
        self.assertEqual(err, "edgemt-reference: error: %s:1: id 150 is outside the source vocabulary (size 150)\n" % bad)
        code, _, err = run_cli(main, ["--model", self.t("missing.edgemt"), "--input-ids", self.ids])
        self.assertEqual(code, 1)
        self.assertIn("cannot read", err)

    def test_executable(self):
        r = subprocess.run([os.path.join(CONVERTER, "edgemt-reference"), "--model", self.f32, "--input-ids", self.ids],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, self.reference("--model", self.f32, "--input-ids", self.ids))


if __name__ == "__main__":
    unittest.main()
