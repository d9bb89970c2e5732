"""How to reproduce each run's figures: its command is in the table of runs; every command a run started is in
BENCHMARKS.json (the page names where, it does not list them)."""


def section(data):
    return ["## Commands", "", "Each run's command is in the table \"Runs\" (from the repository root; `../shared`: "
            "the shared models, data and CTranslate2). A separate script's section enters this page with "
            "`tests/bench/run_benchmarks.py --report-only --attach-section FILE.md`, the peer's run with "
            "`--peer-json FILE`, and `--history NAME` leaves a run's section to tests/bench/ANALYSIS.md; "
            "`--report-only` alone writes this page again from BENCHMARKS.json (and the headings of "
            "tests/bench/ANALYSIS.md). Every command a run started, in order: BENCHMARKS.json `meta.commands` (the "
            "main run's %d), `baseline.commands`, and the last block of a separate run's record where it kept "
            "them." % len(data["meta"]["commands"]), ""]
