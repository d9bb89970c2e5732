#!/usr/bin/python3
"""Measures two Python threads translating at once (the GIL released while translating).

    PYTHONPATH=build/python tests/bench/python_threads_bench.py --md build/bench-cache/python-threads.md

The 500 Multi30k dev sentences (../shared) with the int8 example model, split in two
halves; one edgemt.Model shared by two edgemt.Translator (1 thread each):

  one thread:  translator A translates the first half, then the second
  two threads: A translates the first half while B translates the second

for --rounds rounds, alternating (one, two, one, two, ...), each round holding
flock(/tmp/edgemt-cpu.lock); medians. At --batch-sizes (max_batch_size and the batches
translate() is given). Both configurations' outputs are checked to be identical.
Prints a Markdown section ("## Python threads ...") and writes JSON
(--json, default build/bench-cache/python-threads.json).
"""

import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import machine, paths  # noqa: E402
from benchlib.alternation import alternate  # noqa: E402
from benchlib.load import cpu_lock  # noqa: E402
from benchlib.section import Section, publish  # noqa: E402
from benchlib.stats import median  # noqa: E402

GOAL = 0.65  # two threads at most 0.65x one thread's time (issue 14, 2 cores)


def translate_all(translator, lines, batch):
    out = []
    for i in range(0, len(lines), batch):
        out += translator.translate(lines[i:i + batch])
    return out


def one_thread(a, halves, batch):
    start = time.perf_counter()
    out = translate_all(a, halves[0], batch) + translate_all(a, halves[1], batch)
    return time.perf_counter() - start, out


def two_threads(a, b, halves, batch):
    outs = [None, None]

    def work(i, t):
        outs[i] = translate_all(t, halves[i], batch)

    threads = [threading.Thread(target=work, args=(0, a)), threading.Thread(target=work, args=(1, b))]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start, outs[0] + outs[1]


def measure(edgemt, model, halves, batch, rounds):
    """Seconds of one thread doing both halves and of two threads one half each, alternating."""
    a = edgemt.Translator(model, threads=1, max_batch_size=batch)
    b = edgemt.Translator(model, threads=1, max_batch_size=batch)
    translate_all(a, halves[0][:20], batch)  # warm-up
    translate_all(b, halves[1][:20], batch)
    ways = dict(one=lambda: one_thread(a, halves, batch), two=lambda: two_threads(a, b, halves, batch))

    def run(way):
        with cpu_lock("python %s thread(s), batch %d" % (way, batch)):
            return ways[way]()
    runs = alternate(["one", "two"], rounds, run)
    for (_, x), (_, y) in zip(runs["one"], runs["two"]):
        if x != y:
            raise SystemExit("two threads gave other translations than one")
    one, two = [s for s, _ in runs["one"]], [s for s, _ in runs["two"]]
    return dict(one_s=one, two_s=two, one_median_s=median(one), two_median_s=median(two),
                ratio=median(two) / median(one))


def section(results, meta):
    run = machine.run_header(meta, "tests/bench/python_threads_bench.py")
    if os.environ.get("PYTHONPATH"):
        run["command"] = "PYTHONPATH=%s %s" % (paths.rel(os.environ["PYTHONPATH"].split(os.pathsep)[0]), run["command"])
    s = Section("python-threads", "Python threads (tests/bench/python_threads_bench.py)", run)
    s.text(machine.measured_when(meta) + " The %d Multi30k dev sentences, int8 example model, in two halves; one "
           "`edgemt.Model` shared by two `edgemt.Translator` (1 thread each). One thread: translator A translates "
           "both halves in turn; two threads: A and B one half each, at once. Medians of %d alternating rounds; both "
           "give the same translations." % (meta["sentences"], meta["rounds"]))
    return s.table(["batch size", "one thread s", "two threads s", "two / one", "goal (at most %.2f)" % GOAL],
                   [[batch, "%.3f" % r["one_median_s"], "%.3f" % r["two_median_s"], "%.2f" % r["ratio"],
                     "met" if r["ratio"] <= GOAL else "**missed**"] for batch, r in results.items()])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--batch-sizes", default="1,32")
    p.add_argument("--json", default=os.path.join(paths.CACHE, "python-threads.json"))
    p.add_argument("--md", default=None)
    args = p.parse_args()
    import edgemt  # PYTHONPATH=build/python
    with open(paths.DEV_EN, encoding="utf-8") as f:
        lines = f.read().split("\n")[:-1]
    halves = [lines[:len(lines) // 2], lines[len(lines) // 2:]]
    meta = machine.start_meta(rounds=args.rounds, sentences=len(lines))
    model = edgemt.Model(paths.COMMITTED_INT8)
    results = {batch: measure(edgemt, model, halves, batch, args.rounds)
               for batch in [int(b) for b in args.batch_sizes.split(",")]}
    machine.finish_meta(meta, [])
    publish(section(results, meta), dict(meta=meta, results=results), args.json, args.md)


if __name__ == "__main__":
    main()
