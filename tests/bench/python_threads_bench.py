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
import datetime
import json
import os
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_benchmarks as rb  # noqa: E402
from packed_cache_bench import ROUNDS, cpu_lock, relative_paths  # noqa: E402

import edgemt  # noqa: E402  (PYTHONPATH=build/python)

GOAL = 0.65  # two threads at most 0.65x one thread's time (issue 14, 2 cores)
MODEL = os.path.join(rb.REPO, "models", "multi30k-ende.int8.edgemt")


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


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--batch-sizes", default="1,32")
    p.add_argument("--json", default=os.path.join(rb.REPO, "build", "bench-cache", "python-threads.json"))
    p.add_argument("--md", default=None)
    args = p.parse_args()
    with open(rb.DEV_EN, encoding="utf-8") as f:
        lines = f.read().split("\n")[:-1]
    halves = [lines[:len(lines) // 2], lines[len(lines) // 2:]]
    meta = dict(machine=rb.machine_info(), git=rb.git_info(), loadavg_start=list(os.getloadavg()),
                date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                rounds=args.rounds, sentences=len(lines))
    results = {}
    model = edgemt.Model(MODEL)
    for batch in [int(b) for b in args.batch_sizes.split(",")]:
        a = edgemt.Translator(model, threads=1, max_batch_size=batch)
        b = edgemt.Translator(model, threads=1, max_batch_size=batch)
        translate_all(a, halves[0][:20], batch)  # warm-up
        translate_all(b, halves[1][:20], batch)
        one, two = [], []
        for r in range(args.rounds):
            with cpu_lock("python one thread, batch %d, round %d" % (batch, r)):
                seconds, out_one = one_thread(a, halves, batch)
            one.append(seconds)
            with cpu_lock("python two threads, batch %d, round %d" % (batch, r)):
                seconds, out_two = two_threads(a, b, halves, batch)
            two.append(seconds)
            if out_one != out_two:
                raise SystemExit("two threads gave other translations than one")
        results[batch] = dict(one_s=one, two_s=two, one_median_s=statistics.median(one),
                              two_median_s=statistics.median(two),
                              ratio=statistics.median(two) / statistics.median(one))
    meta["loadavg_end"] = list(os.getloadavg())
    meta["lock_rounds"] = ROUNDS
    other = max(r["other_load"] for r in ROUNDS) if ROUNDS else 0.0
    mc = meta["machine"]
    md = ["## Python threads (tests/bench/python_threads_bench.py)", "",
          "Measured %s at %s on %s (%d cores); load average %.2f at the start, %.2f at the end; other processes "
          "used at most %.2f cores during a measured round. The %d Multi30k dev sentences, int8 example model, in "
          "two halves; one `edgemt.Model` shared by two `edgemt.Translator` (1 thread each). One thread: "
          "translator A translates both halves in turn; two threads: A and B one half each, at once. Medians of %d "
          "alternating rounds; both give the same translations."
          % (meta["date"], meta["git"].get("commit", "?")[:7], mc["cpu_model"], mc["cores"],
             meta["loadavg_start"][0], meta["loadavg_end"][0], other, len(lines), args.rounds), "",
          "| batch size | one thread s | two threads s | two / one | goal (at most %.2f) |" % GOAL,
          "|---|---|---|---|---|"]
    for batch, r in results.items():
        md.append("| %d | %.3f | %.3f | %.2f | %s |" % (batch, r["one_median_s"], r["two_median_s"], r["ratio"],
                                                        "met" if r["ratio"] <= GOAL else "**missed**"))
    md += ["", "Command: `%s`." % " ".join(sys.argv), ""]
    text = relative_paths("\n".join(md) + "\n")
    sys.stdout.write(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    with open(args.json, "w") as f:
        f.write(relative_paths(json.dumps(dict(meta=meta, results=results), indent=1)) + "\n")


if __name__ == "__main__":
    main()
