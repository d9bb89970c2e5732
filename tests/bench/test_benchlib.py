"""Unit tests of the benchmark harness (pure Python, nothing measured): medians and ratios, the order in which
alternated configurations run, command lists, a section's Markdown and record, the report writer on a
tiny fake BENCHMARKS.json, and the length of the report written from the recorded one (at most 400 lines).

    cd tests/bench && /usr/bin/python3 -m unittest test_benchlib      (CTest: bench_harness)
"""
import copy
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import alternation, markdown, paths, section, stats  # noqa: E402
from benchreport import update, writer  # noqa: E402
from benchrun import goals  # noqa: E402
import baseline_section  # noqa: E402

REAL_JSON = os.path.join(paths.REPO, "BENCHMARKS.json")


class Stats(unittest.TestCase):
    def test_median_of_odd_and_even_counts(self):
        self.assertEqual(stats.median([3.0, 1.0, 2.0]), 2.0)
        self.assertEqual(stats.median([4, 1, 3, 2]), 2.5)
        self.assertEqual(stats.median_of([dict(ms=5), dict(ms=1), dict(ms=3)], "ms"), 3)

    def test_spread_rounds_and_ratios_pair_rounds(self):
        self.assertEqual(stats.spread([1.234, 3.456, 2.345], 2), dict(median=2.35, min=1.23, max=3.46))
        self.assertEqual(stats.ratios([2.0, 9.0], [1.0, 3.0]), [2.0, 3.0])

    def test_fastest(self):
        rows = [dict(k="a", wall_s=2.0), dict(k="b", wall_s=1.5), dict(k="c", wall_s=3.0)]
        self.assertEqual(stats.fastest(rows)["k"], "b")
        self.assertIsNone(stats.fastest([]))


class Alternation(unittest.TestCase):
    def test_rounds_alternate_a_b_a_b(self):
        order = []
        runs = alternation.alternate(["A", "B"], 3, lambda c: order.append(c) or len(order))
        self.assertEqual(order, ["A", "B", "A", "B", "A", "B"])
        self.assertEqual(runs, {"A": [1, 3, 5], "B": [2, 4, 6]})

    def test_every_other_round_reversed(self):
        order = []
        alternation.alternate(["A", "B", "C"], 3, order.append, reverse_odd=True)
        self.assertEqual(order, ["A", "B", "C", "C", "B", "A", "A", "B", "C"])

    def test_round_context_wraps_each_round(self):
        events = []

        class Round:
            def __init__(self, i):
                self.i = i

            def __enter__(self):
                events.append("enter %d" % self.i)

            def __exit__(self, *exc):
                events.append("exit %d" % self.i)

        alternation.alternate(["A", "B"], 2, events.append, round_context=Round,
                              after_round=lambda i: events.append("done %d" % i))
        self.assertEqual(events, ["enter 0", "A", "B", "exit 0", "done 0", "enter 1", "A", "B", "exit 1", "done 1"])


class Markdown(unittest.TestCase):
    def test_numbers(self):
        self.assertEqual(markdown.fmt(12308.8, 0), "12,309")
        self.assertEqual(markdown.fmt(0.8269, 3), "0.827")
        self.assertEqual(markdown.fmt(None), "–")

    def test_repeated_commands_fold(self):
        self.assertEqual(markdown.merged_commands(["a", "a", "b", "a"]), ["a    # x2", "b", "a"])
        self.assertEqual(markdown.merged_commands(["a", "b", "a"], merge_all=True), ["a    # x2", "b"])


def fake_section():
    s = section.Section("demo", "Demo (tests/bench/demo.py)", dict(script="tests/bench/demo.py", command="demo --md x",
                                                                   date="2026-01-02 03:04 UTC", date_is="start",
                                                                   commit="abc1234"))
    s.text("Measured at abc1234.")
    s.table(["model", "tok/s"], [["tiny", "1,234"]])
    s.table(["model", "threads", "tok/s"], [["tiny", 1, "1,111"], ["tiny", 2, "2,222"]], "every configuration",
            align=["---", "---:", "---:"])
    return s.code(["demo --md x"], "every command")


class Sections(unittest.TestCase):
    def test_markdown_parses_back_to_the_record(self):
        s = fake_section()
        self.assertEqual(section.parse(s.markdown(), "other"), s.record)

    def test_short_form_leaves_the_details_to_the_json(self):
        text = "\n".join(section.render(fake_section().record))
        self.assertIn("| tiny | 1,234 |", text)
        self.assertNotIn("2,222", text)
        self.assertIn('In BENCHMARKS.json only (separate_runs, "demo"): every configuration; every command.', text)

    def test_markdown_without_marks_keeps_everything_in_the_report(self):
        record = section.parse("## Old\n\nText.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", "old")
        self.assertEqual([b["detail"] for b in record["blocks"]], [None, None])
        self.assertEqual(record["blocks"][1]["rows"], [["1", "2"]])


def b1(ms, tokens, threads):
    return dict(threads=threads, sentences=100, median_ms_per_sentence=ms, tokens_per_s=tokens, arena_bytes=9_000_000,
                encoder_ms_per_sentence=0.5, decoder_ms_per_step=0.05, allocations_while_translating=0,
                other_load=0.01, profile=dict(decoder_per_step=dict(xnnpack_ms=0.04, xnnpack_share=0.8)))


def fake_model():
    return dict(file_bytes=20_000_000, runs=dict(b1_t1=b1(3.0, 10000.0, 1), b1_t2=b1(2.5, 12308.8, 2)),
                rss_t1=dict(peak_rss_kb=25000), rss_t2=dict(peak_rss_kb=25300),
                load=dict(median_ms=8.0, model_load_median_ms=0.6), thread_pairs=dict(median_ratio=0.8, limit=50))


def fake_data():
    machine = dict(cpu_model="AMD EPYC", cpu_family=26, cpu_model_number=2, cores=2, hypervisor=True,
                   mem_total_mb=24105, simd_flags=["avx2"], kernel="6.1", debian="12.11",
                   packages={"python3-torch": "1.13"})
    results = dict(plan=dict(repeat=3, load_runs=5, tiny=dict(limit=dict(int8=0, float32=0))),
                   edgemt=dict(tiny=dict(int8=fake_model(), float32=fake_model())), torch={}, quality={},
                   baseline_rss_kb=6464, baseline_file_bytes=311616)
    meta = dict(command="tests/bench/run_benchmarks.py", quick=False, git=dict(short="abc1234", subject="A commit",
                dirty=False), machine=machine, build=dict(CMAKE_BUILD_TYPE="Release", kernels="XNNPACK x"),
                torch_blas="OpenBLAS", loadavg_start=[0.1, 0.2, 0.3], loadavg_end=[0.1, 0.2, 0.3], duration_s=600,
                date="2026-01-02 03:04 UTC", commands=["build/bin/edgemt-bench --model m --threads 1",
                                                       "build/bin/edgemt-bench --model m --threads 2"])
    config = dict(runtime="edgemt", isa=None, threads=2, batch=1, wall_s=0.4, tokens_per_s=15896.0)
    peer = dict(meta=dict(commit="abc1234", date="2026-01-02 04:00 UTC", cpu="AMD EPYC, 2 cores", rounds=2, peer=True,
                          ct2_version="4.8.1", ct2_isa="AVX2", isas=["default", "AVX512"], load="at most 0.08"),
                results=[dict(model="tiny", sentences=200, configs=dict(
                    e=config, c=dict(config, runtime="ct2", isa="default", threads=1, wall_s=1.38,
                                     tokens_per_s=4613.0),
                    e32=dict(config, batch=32, wall_s=0.2, tokens_per_s=31396.0),
                    c32=dict(config, runtime="ct2", isa="AVX512", threads=1, batch=32, wall_s=0.452,
                             tokens_per_s=13877.0)))])
    data = dict(meta=meta, results=results, xnnpack_threads=[], models={}, baseline=None, peer=peer,
                separate_runs=[fake_section().record])
    data["goals"] = goals.evaluate_goals(results)
    return data


class ReportWriter(unittest.TestCase):
    def test_headline_row_names_both_configurations(self):
        text = writer.render(fake_data())
        row = [line for line in text.splitlines() if line.startswith("| tiny:") and "| 1 |" in line][0]
        self.assertIn("| int8 | 1 | greedy | 2 | 15,896 | 1, AVX2 | 4,613 | **3.45x** |", row)
        row32 = [line for line in text.splitlines() if line.startswith("| tiny:") and "| 32 |" in line][0]
        self.assertIn("| 1, AVX512 (forced) | 13,877 | **2.26x** |", row32)
        self.assertNotIn("None", text)  # a run that recorded no command says so

    def test_a_figure_appears_once_and_details_stay_in_the_json(self):
        text = writer.render(fake_data(), "# Analysis\n\n## Why\n\nBecause.\n\n## History\n\n### Old\n\n0.98x")
        self.assertEqual(text.count("12,309"), 1)  # the goal's tokens/s
        self.assertEqual(text.count("15,896"), 1)  # the headline's
        self.assertNotIn("2,222", text)            # the demo section's detail table
        self.assertIn("`demo --md x`", text)       # the run's command, in the table of runs

    def test_the_analysis_is_pointed_to_not_copied(self):
        text = writer.render(fake_data(), "# Analysis\n\n## Why\n\nBecause.\n\n## History\n\n### Old\n\n0.98x")
        analysis = text.split("## Analysis\n\n")[1].split("\n\n")[0]
        self.assertIn("`tests/bench/ANALYSIS.md`", analysis)
        self.assertIn("its sections: Why; History.", analysis)
        self.assertNotIn("Because.", text)
        self.assertNotIn("0.98x", text)
        self.assertNotIn("## Analysis", writer.render(fake_data()))  # a quick run: no analysis, no pointer

    def test_a_run_marked_as_history_is_named_but_not_shown(self):
        data = fake_data()
        update.mark_history(data, ["demo"])
        text = writer.render(data)
        self.assertNotIn("## Demo", text)
        self.assertNotIn("1,234", text)            # its table: in ANALYSIS.md's History now
        row = [line for line in text.splitlines() if line.startswith("| demo |")][0]
        self.assertIn("(figures: tests/bench/ANALYSIS.md, History)", row)
        with self.assertRaises(SystemExit):
            update.mark_history(data, ["no-such-run"])

    def test_report_only_keeps_the_history_mark_in_the_json(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "BENCHMARKS.md")
            with open(os.path.join(d, "BENCHMARKS.json"), "w") as f:
                json.dump(fake_data(), f)
            update.report_only(out, history=["demo"])
            with open(os.path.join(d, "BENCHMARKS.json")) as f:
                self.assertTrue(json.load(f)["separate_runs"][0]["history"])
            with open(out) as f:
                self.assertNotIn("## Demo", f.read())

    @unittest.skipUnless(os.path.exists(REAL_JSON), "no BENCHMARKS.json at the repository root")
    def test_the_real_report_fits_its_budget(self):
        """BENCHMARKS.md from the recorded BENCHMARKS.json and ANALYSIS.md, and the committed page, are at most
        writer.MAX_LINES (400) lines: one table per question; move older sections to ANALYSIS.md's History
        (--history NAME) or details to the JSON when this fails."""
        with open(REAL_JSON) as f:
            data = json.load(f)
        lines = writer.render(data, writer.analysis_text(data["meta"]["quick"])).count("\n")
        self.assertLessEqual(lines, writer.MAX_LINES, "BENCHMARKS.md from BENCHMARKS.json: %d lines" % lines)
        with open(os.path.join(paths.REPO, "BENCHMARKS.md")) as f:
            committed = f.read().count("\n")
        self.assertLessEqual(committed, writer.MAX_LINES, "BENCHMARKS.md: %d lines" % committed)

    def test_no_peer_run_no_ratio(self):
        data = fake_data()
        data["peer"] = None
        text = writer.render(data)
        self.assertIn("no figure against the peer", text)
        self.assertNotIn("**", text.split("## Runs")[0])

    def test_report_only_is_deterministic_and_needs_only_the_json(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "BENCHMARKS.md")
            with open(os.path.join(d, "BENCHMARKS.json"), "w") as f:
                json.dump(fake_data(), f)
            update.report_only(out)
            with open(out) as f:
                first = f.read()
            update.report_only(out)
            with open(out) as f:
                self.assertEqual(f.read(), first)
            self.assertTrue(first.startswith("# EdgeMT benchmarks\n"))

    def test_attach_replaces_a_section_of_the_same_name(self):
        data = fake_data()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "demo.md")
            newer = copy.deepcopy(fake_section())
            newer.record["blocks"][0]["text"] = "Measured again."
            with open(path, "w") as f:
                f.write(newer.markdown())
            update.attach(data, path)
        self.assertEqual(len(data["separate_runs"]), 1)
        self.assertEqual(data["separate_runs"][0]["blocks"][0]["text"], "Measured again.")


def fake_baseline_run():
    """A run_benchmarks.py --baseline run of one random model, as baseline_section.py reads it."""
    measures = {key: dict(speedup=1.02, ratio=0.98) for key in
                ("b1_tokens", "b32_tokens", "encoder_ms", "decoder_step_ms", "load_ms", "peak_rss_mb")}
    meta = dict(command="tests/bench/run_benchmarks.py --baseline abc1234", date="2026-11-26 01:00 UTC",
                git=dict(short="def5678"), build=dict(kernels="K"),
                machine=dict(cpu_model="CPU", cpu_family=25, cores=2, simd_flags=["avx2"]))
    baseline = dict(short="abc1234", subject="the commit before", build=dict(kernels="K"), plan=dict(rounds=3),
                    kinds=dict(tiny="random"), summary=dict(tiny=dict(measures=measures)),
                    runs=dict(tiny=dict(b1_t1=dict(baseline=[dict(other_load=0.03)], new=[dict(other_load=0.05)]))),
                    commands=["edgemt-bench ..."])
    return dict(meta=meta, baseline=baseline)


class BaselineSection(unittest.TestCase):
    def test_one_speed_up_per_measure_and_the_run_named(self):
        record = baseline_section.section(fake_baseline_run(), "refactor", "Refactor").record
        table = next(b for b in record["blocks"] if b["kind"] == "table")
        self.assertEqual(table["columns"], ["measure", "tiny"])
        self.assertEqual(len(table["rows"]), 6)
        self.assertEqual(table["rows"][0][1], "1.02x")   # a speed: the speed-up
        self.assertEqual(table["rows"][4][1], "0.98x")   # load time: new / baseline
        self.assertEqual(record["run"]["commit"], "def5678")
        self.assertIn("at most 0.05 cores", record["blocks"][0]["text"])
        self.assertIn("family 25", record["blocks"][0]["text"])

    def test_the_section_parses_back(self):
        s = baseline_section.section(fake_baseline_run(), "refactor", "Refactor")
        self.assertEqual(section.parse(s.markdown(), "refactor"), s.record)


if __name__ == "__main__":
    unittest.main()
