"""BENCHMARKS.md, written from BENCHMARKS.json alone: the headline table, the runs, the main run's short
sections, the comparison with the previous build, the separate runs' sections, the analysis, the commands."""
import os

from benchlib.markdown import table
from benchlib.paths import HERE

from . import accuracy, baseline, commands, headline, main_run, profile, separate
from .runs import all_runs, command_cell, when

TITLE = ("# EdgeMT benchmarks", "",
         "Written by `tests/bench/run_benchmarks.py` from BENCHMARKS.json alone (`--report-only` writes it again); do "
         "not edit by hand: the Analysis comes from `tests/bench/ANALYSIS.md`. Every section names the run its "
         "figures come from (the table \"Runs\"), a figure appears once, and the long per-configuration tables are "
         "in BENCHMARKS.json only. Times compare only within one run on one machine.", "")


def runs_section(data):
    rows = [[r["key"], r["what"], when(r), r["commit"] or "–", command_cell(r)] for r in all_runs(data)]
    return ["## Runs", ""] + table(["run", "figures", "date", "commit", "command (from the repository root)"],
                                   rows) + [""]


def analysis_text(quick):
    """tests/bench/ANALYSIS.md, the hand-written part of the report (not for quick runs: it discusses full ones)."""
    path = os.path.join(HERE, "ANALYSIS.md")
    if quick or not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


def render(data, analysis=""):
    lines = list(TITLE) + headline.section(data) + runs_section(data) + main_run.section(data)
    lines += profile.section(data) + accuracy.accuracy(data) + accuracy.pytorch(data) + baseline.section(data)
    lines += separate.sections(data)
    if analysis.strip():
        lines += ["## Analysis", "", analysis.strip(), ""]
    return "\n".join(lines + commands.section(data)).rstrip("\n") + "\n"


def write(path, data, analysis=""):
    with open(path, "w") as f:
        f.write(render(data, analysis))
