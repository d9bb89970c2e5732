"""How to reproduce each run's figures: its command, and where BENCHMARKS.json lists every command it ran."""
import os
import shlex

from benchlib.markdown import code_block


def kind(command):
    """What a recorded command measures: its program (the first word after environment settings, or the script
    a Python interpreter runs) and its options; None for a cached or skipped step."""
    if command.startswith("("):
        return None
    try:
        words = [w for w in shlex.split(command) if "=" not in w or w.startswith("-")]
    except ValueError:
        return None
    if not words:
        return None
    program = words[1] if os.path.basename(words[0]).startswith("python") and len(words) > 1 else words[0]
    return os.path.basename(program), frozenset(w for w in words if w.startswith("--"))


def first_of_each(commands):
    """The first recorded command of each kind, in the order they first ran."""
    seen, out = set(), []
    for c in commands:
        k = kind(c)
        if k and k not in seen:
            seen.add(k)
            out.append(c)
    return out


def section(data):
    lines = ["## Commands", "", "Each run's command is in the table \"Runs\" (from the repository root; `../shared`: "
             "the shared models, data and CTranslate2). A separate script's section enters this page with "
             "`tests/bench/run_benchmarks.py --report-only --attach-section FILE.md`, the peer's run with "
             "`--peer-json FILE`; `--report-only` alone writes this page again from BENCHMARKS.json and "
             "tests/bench/ANALYSIS.md. Every command a run started, in order: BENCHMARKS.json `meta.commands` (the "
             "main run), `baseline.commands`, and the last block of a separate run's record where it kept them. The "
             "main run's, the first of each kind (program and options; the others differ in model, thread count "
             "and sources):", ""]
    return lines + code_block(first_of_each(data["meta"]["commands"])) + [""]
