#!/usr/bin/python3
"""A section for BENCHMARKS.md from a `run_benchmarks.py --baseline REV` run kept apart from the main run:
this tree against an earlier commit, both builds alternated in one run (a refactor that should change no
figure, say), without replacing the recorded main run.

    tests/bench/run_benchmarks.py --out build/bench-refactor/BENCHMARKS.md --baseline 39d87d8 --skip-torch --skip-xnnpack
    tests/bench/baseline_section.py build/bench-refactor/BENCHMARKS.json --name refactor \\
        --title "Issue 26's refactor against 39d87d8" --md build/bench-cache/refactor.md
    tests/bench/run_benchmarks.py --report-only --attach-section build/bench-cache/refactor.md

The section names the run (its command, date, commit and CPU) and gives one speed-up per model and measure
(benchreport.baseline's rows, without the XNNPACK goals); every round and thread count stays in the run's own
JSON.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib.section import Section, publish  # noqa: E402
from benchreport.baseline import rows  # noqa: E402


def describe(data):
    """The run: what ran, when, on which CPU, how many rounds, how busy the machine was."""
    meta, B = data["meta"], data["baseline"]
    mc = meta["machine"]
    loads = [x["other_load"] for n in B["runs"] for k in B["runs"][n] if not k.startswith("rss")
             for b in ("baseline", "new") for x in B["runs"][n][k][b] if x.get("other_load") is not None]
    return ("`%s`, ended %s: this tree (`%s`; %s) against `%s` \"%s\" (%s), int8, "
            "each configuration %d rounds of a `%s` process followed by one of this tree's; medians over the rounds, "
            "each build at its better thread count; > 1x: this tree is faster (load time and peak RSS: this tree / "
            "the other, < 1x: less). CPU: %s family %s, %d cores (%s). Other processes used at most %.2f cores "
            "during the timed runs." % (
                meta["command"], meta["date"], meta["git"]["short"], meta["build"].get("kernels", "?"), B["short"],
                B["subject"], B["build"].get("kernels", "?"), B["plan"]["rounds"],
                B["short"], mc["cpu_model"], mc.get("cpu_family", "?"), mc["cores"], " ".join(mc["simd_flags"]),
                max(loads) if loads else 0.0))


def section(data, name, title):
    meta = data["meta"]
    run = dict(script="tests/bench/run_benchmarks.py", command=meta["command"], date=meta["date"], date_is="end",
               commit=meta["git"]["short"], cpu="%s, %d cores" % (meta["machine"]["cpu_model"],
                                                                  meta["machine"]["cores"]))
    s = Section(name, title, run)
    s.text(describe(data))
    B = data["baseline"]
    s.table(["measure"] + list(B["summary"]), [row[:-1] for row in rows(B)])
    return s.code(B["commands"], "the commands of both builds")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="BENCHMARKS.json of a run_benchmarks.py --baseline run")
    ap.add_argument("--name", required=True, help="the record's name in BENCHMARKS.json separate_runs")
    ap.add_argument("--title", required=True)
    ap.add_argument("--md", help="write the section here too")
    ap.add_argument("--out-json", default=None, help="default: build/bench-cache/NAME.json")
    args = ap.parse_args()
    with open(args.json) as f:
        data = json.load(f)
    if not data.get("baseline"):
        sys.exit("baseline_section.py: %s has no baseline run (run_benchmarks.py --baseline REV)" % args.json)
    out_json = args.out_json or os.path.join("build", "bench-cache", args.name + ".json")
    publish(section(data, args.name, args.title), dict(summary=data["baseline"]["summary"]), out_json, args.md)


if __name__ == "__main__":
    main()
