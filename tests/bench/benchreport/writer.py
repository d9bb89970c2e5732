"""BENCHMARKS.md, written from BENCHMARKS.json alone: the headline table, the runs, the main run's short
sections, the current comparison with a previous build, the separate runs' sections, a pointer to the analysis,
the commands. Runs marked as history (`--history`) are named in the table of runs only: their figures are in
tests/bench/ANALYSIS.md's "History" and their records stay in the JSON."""
import os

from benchlib.markdown import table
from benchlib.paths import HERE

from . import accuracy, baseline, commands, headline, main_run, profile, separate
from .runs import all_runs, command_cell, when

MAX_LINES = 400  # the page's budget (issue 54): one table per question; the rest in the JSON or ANALYSIS.md
ANALYSIS = "tests/bench/ANALYSIS.md"

TITLE = ("# EdgeMT benchmarks", "",
         "Written by `tests/bench/run_benchmarks.py` from BENCHMARKS.json alone (`--report-only` writes it again); do "
         "not edit by hand. One table per question, each from the run it names (the table \"Runs\"); a figure "
         "appears once, and the long per-configuration tables are in BENCHMARKS.json only. Why the figures look as "
         "they do, and the older comparisons with earlier builds: `%s`. Times compare only within one run on one "
         "machine." % ANALYSIS, "")


def runs_section(data):
    rows = [[r["key"], r["what"] + (" (figures: %s, History)" % ANALYSIS if r.get("history") else ""), when(r),
             r["commit"] or "–", command_cell(r)] for r in all_runs(data)]
    return ["## Runs", ""] + table(["run", "figures", "date", "commit", "command (from the repository root)"],
                                   rows) + [""]


def analysis_text(quick):
    """tests/bench/ANALYSIS.md, the hand-written companion of the report (not for quick runs: it discusses full
    ones); the page points to it and lists its sections, it does not copy it."""
    path = os.path.join(HERE, "ANALYSIS.md")
    if quick or not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


def analysis_section(analysis):
    """A pointer to the analysis and its sections (its "## " headings), not its text."""
    if not analysis.strip():
        return []
    headings = [line[3:].strip() for line in analysis.splitlines() if line.startswith("## ")]
    return ["## Analysis", "", "Hand-written, in `%s` (not copied here): why the tables above look as they do, "
            "and the history%s." % (ANALYSIS, ("; its sections: " + "; ".join(headings)) if headings else ""), ""]


def render(data, analysis=""):
    lines = list(TITLE) + headline.section(data) + runs_section(data) + main_run.section(data)
    lines += profile.section(data) + accuracy.accuracy(data) + accuracy.pytorch(data) + baseline.section(data)
    lines += separate.sections(data) + analysis_section(analysis)
    return "\n".join(lines + commands.section(data)).rstrip("\n") + "\n"


def write(path, data, analysis=""):
    with open(path, "w") as f:
        f.write(render(data, analysis))
