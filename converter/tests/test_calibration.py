"""Calibration: inputs, statistics, range search and the keep-float choice."""
import os
import unittest

import numpy as np
import torch

from helpers import TempDir, convert, corpus_lines, make_config, random_state_dict, run_cli, train_spm, write_checkpoint

from edgemt_convert import calibrate
from edgemt_convert.build import build_float_model
from edgemt_convert.calibration_data import calibration_sources, random_sources
from edgemt_convert.cli import main
from edgemt_convert.config import parse_config
from edgemt_convert.decode import greedy
from edgemt_convert.errors import ConversionError
from edgemt_convert.int8_model import quantize_model
from edgemt_convert.reader import read
from edgemt_convert.reference_model import ReferenceModel


def tiny_model(**overrides):
    cfg = make_config(**overrides)
    model, _ = build_float_model(parse_config(cfg), random_state_dict(cfg))
    return model


class Inputs(unittest.TestCase):
    def test_random_sources_are_deterministic_and_plain(self):
        model = tiny_model()
        a, b = random_sources(model.config, 20), random_sources(model.config, 20)
        self.assertEqual(a, b)
        for s in a:
            self.assertEqual(s[-1], 3)
            self.assertTrue(all(t >= 4 and t < 120 for t in s[:-1]))
            self.assertLessEqual(len(s), 31)

    def test_id_file_and_spread(self):
        tmp = TempDir(self)
        path = tmp("cal.ids")
        with open(path, "w") as f:
            f.write("".join("%d 5 3\n" % i for i in range(4, 104)))
        srcs, desc = calibration_sources(tiny_model(), ids_path=path, size=10)
        self.assertEqual(len(srcs), 10)
        self.assertEqual(srcs[0], [4, 5, 3])
        self.assertEqual(srcs[-1], [103, 5, 3])               # spread over the file, ends included
        self.assertEqual(desc, "10 of 100 id lines of %s" % path)

    def test_text_needs_a_tokenizer(self):
        with self.assertRaisesRegex(ConversionError, "--calibration needs a tokenizer"):
            calibration_sources(tiny_model(), text_path="x.txt", sp=None)

    def test_bad_id_file(self):
        tmp = TempDir(self)
        write_checkpoint(tmp("ckpt"))
        with open(tmp("bad.ids"), "w") as f:
            f.write("4 5 3\n4 500 3\n")
        code, _, err = run_cli(main, [tmp("ckpt"), "--out", tmp("m.edgemt"), "--calibration-ids", tmp("bad.ids"),
                                      "--quiet"])
        self.assertEqual(code, 1)
        self.assertEqual(err, "edgemt-convert: error: %s:2: id 500 is outside the source vocabulary (size 120)\n"
                         % tmp("bad.ids"))
        self.assertFalse(os.path.exists(tmp("m.edgemt")))


class Statistics(unittest.TestCase):
    def test_samples_align_across_linears_of_a_stream(self):
        model = tiny_model()
        srcs = random_sources(model.config, 40)
        outs, _ = greedy(ReferenceModel(model), srcs)
        stats = calibrate.record(lambda r: ReferenceModel(model, r), srcs, outs, 2, batch_size=7)
        enc = [v for k, v in stats.items() if k.startswith("encoder.")]
        dec = [v for k, v in stats.items() if k.startswith("decoder.") and "cross_attention.key" not in k
               and "cross_attention.value" not in k]
        for group in (enc, dec):
            self.assertTrue(all(torch.equal(s.index, group[0].index) for s in group))
            self.assertTrue(all(s.count == group[0].count for s in group))
        self.assertEqual(stats["encoder.layers.0.self_attention.query"].count, sum(len(s) for s in srcs))
        # ranges are exact over all rows, samples are a subset
        st = stats["decoder.layers.1.feed_forward.up"]
        self.assertLessEqual(st.in_min, float(st.rows.min()))
        self.assertGreaterEqual(st.in_max, float(st.rows.max()))

    def test_decoder_inputs_follow_the_step_limit(self):
        # stopped by </s>: every output was fed back; stopped by the limit: not the last one
        self.assertEqual(calibrate.decoder_inputs([5, 3], [7, 8], 2, 48), [2, 7, 8])
        full = list(range(4, 18))                           # min(2 * 2 + 10, 48) = 14 tokens
        self.assertEqual(calibrate.decoder_inputs([5, 3], full, 2, 48), [2] + full[:-1])


class RangeSearch(unittest.TestCase):
    def test_clips_a_rare_outlier(self):
        # Under MSE an outlier M among N values is worth clipping when
        # M^2 / N < (M / 255)^2 / 12 per value, i.e. rarer than ~1e-6.
        rng = np.random.default_rng(0)
        v = torch.from_numpy(rng.standard_normal((100000, 20)).astype(np.float32))
        v[0, 0] = 100.0
        choice = calibrate.search_range(v, float(v.min()), float(v.max()))
        self.assertEqual(choice.method, "search")
        self.assertLess(choice.hi, 40.0)
        self.assertLess(choice.error, choice.minmax_error / 2)

    def test_keeps_min_max_for_uniform_values(self):
        v = torch.linspace(-1, 1, 10000)[:, None]
        choice = calibrate.search_range(v, -1.0, 1.0)
        self.assertGreater(choice.hi, 0.97)
        self.assertLess(choice.lo, -0.97)

    def test_relu_range_starts_at_zero(self):
        v = torch.relu(torch.from_numpy(np.random.default_rng(1).standard_normal((3000, 8)).astype(np.float32)))
        choice = calibrate.search_range(v, 0.0, float(v.max()), relu=True)
        self.assertEqual(choice.lo, 0.0)
        self.assertGreater(choice.hi, 1.0)


class KeepFloat(unittest.TestCase):
    def outlier_checkpoint(self, tmp):
        """A down projection with one huge output channel: its int8 error is large."""
        cfg = make_config()
        sd = random_state_dict(cfg)
        sd["decoder.layers.1.feed_forward.3.weight"][7] *= 80.0
        write_checkpoint(tmp("ckpt"), cfg=cfg, sd=sd)

    def test_auto_keeps_the_worst_layer_float(self):
        tmp = TempDir(self)
        self.outlier_checkpoint(tmp)
        out = convert(tmp("ckpt"), tmp("m.edgemt"), "--calibration-size", "16", "--max-size-ratio", "0.5")
        self.assertIn("kept float32 (auto: int8 output error above 4%", out)
        m = read(tmp("m.edgemt"))
        lin = dict(m.named_linears())["decoder.layers.1.feed_forward.down"]
        self.assertFalse(lin.weight.is_int8)
        self.assertIsNone(lin.input_quant)
        self.assertIn("decoder.layers.1.feed_forward.down", m.metadata.calibration_summary)

    def test_size_budget_and_explicit_choices(self):
        tmp = TempDir(self)
        self.outlier_checkpoint(tmp)
        out = convert(tmp("ckpt"), tmp("a.edgemt"), "--calibration-size", "16", "--max-size-ratio", "0.01")
        self.assertIn("kept float32: none", out)
        out = convert(tmp("ckpt"), tmp("b.edgemt"), "--calibration-size", "16", "--keep-float",
                      "encoder.layers.0.self_attention.value,decoder.output_projection")
        m = read(tmp("b.edgemt"))
        self.assertFalse(dict(m.named_linears())["encoder.layers.0.self_attention.value"].weight.is_int8)
        self.assertFalse(m.decoder.output_projection.weight.is_int8)
        self.assertIn("kept float32 (--keep-float)", out)
        code, _, err = run_cli(main, [tmp("ckpt"), "--out", tmp("c.edgemt"), "--keep-float", "encoder.nope",
                                      "--calibration-size", "4", "--quiet"])
        self.assertEqual(code, 1)
        self.assertIn("--keep-float: no Linear named 'encoder.nope'", err)


class TextCalibration(unittest.TestCase):
    def test_text_calibration_and_check(self):
        tmp = TempDir(self)
        cfg, _ = write_checkpoint(tmp("ckpt"), src_vocab_size=150, tgt_vocab_size=150)
        train_spm(tmp("ckpt"), 150)
        cfg["tokenizer"] = "spm.model"
        write_checkpoint(tmp("ckpt"), cfg=cfg)
        with open(tmp("cal.txt"), "w") as f:
            f.write("\n".join(corpus_lines(n=50)) + "\n")
        out = convert(tmp("ckpt"), tmp("m.edgemt"), "--calibration", tmp("cal.txt"), "--calibration-size", "20")
        self.assertIn("calibration: 20 of 50 lines of %s" % tmp("cal.txt"), out)
        self.assertIn("int8 check: greedy output identical to the float model's on", out)
        self.assertNotIn("warning", out)


if __name__ == "__main__":
    unittest.main()
