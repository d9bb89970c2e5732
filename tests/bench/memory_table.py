#!/usr/bin/python3
"""The README's memory table: what edgemt-translate's memory plan needs for the work it is given.

    tests/bench/memory_table.py [--model FILE]     # default: the committed Multi30k int8 example

For one short line and for the Multi30k dev set (500 lines) at --batch-size 1, 16 (the default) and 32:
the arena the work needed (--memory), the arena a plan at the limits would need (the batch, the model's
positions for source and output, the model's beam), and the process's peak RSS (/usr/bin/time's maximum
resident set). Prints a Markdown table. Uses build/bin (it builds nothing).
"""
import argparse
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import paths  # noqa: E402
from benchlib.processes import run_child  # noqa: E402

CASES = [("one short line", 1, None), ("dev set", 1, 500), ("dev set", 16, 500), ("dev set", 32, 500)]


def measure(model, lines, batch, work):
    source = os.path.join(work, "input.txt")
    with open(source, "w", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in lines)
    r = run_child([paths.TRANSLATE, "--model", model, "--batch-size", str(batch), "--memory"], stdin=source,
                  stdout_path=os.devnull)
    match = re.search(r"arena (\d+) bytes for the work translated; (\d+) bytes at the limits", r["err"])
    return dict(arena=int(match.group(1)), limits=int(match.group(2)), rss_kb=r["maxrss_kb"])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default=paths.COMMITTED_INT8)
    args = p.parse_args()
    paths.require(paths.TRANSLATE, args.model, paths.DEV_EN)
    with open(paths.DEV_EN, encoding="utf-8") as f:
        dev = f.read().split("\n")[:-1]
    rows = ["| input | --batch-size | arena for the work | arena at the limits | peak RSS |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as work:
        for name, batch, count in CASES:
            m = measure(args.model, ["A dog runs."] if count is None else dev[:count], batch, work)
            rows.append("| %s | %d | %.1f MB | %.1f MB | %.1f MB |" % (
                name, batch, m["arena"] / 1e6, m["limits"] / 1e6, m["rss_kb"] * 1024 / 1e6))
    print("\n".join(rows))


if __name__ == "__main__":
    main()
