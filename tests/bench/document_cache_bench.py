#!/usr/bin/python3
"""Measures the document cache: the same document translated a second time.

    PYTHONPATH=build/python tests/bench/document_cache_bench.py --md build/bench-cache/document-cache.md

The 500 Multi30k dev sentences (../shared) in paragraphs of 1-6 sentences (seed 27, as
tests/e2e/test_documents.py makes them), one paragraph a line: one document. Each round
creates an edgemt.Translator (int8 example model, --threads, the default 32 MB document
cache), translates the document (first) and then again (second: every sentence from the
cache), holding flock(/tmp/edgemt-cpu.lock); medians of --rounds rounds, both outputs
checked to be identical. Then the cache's own bound: the unit test that puts 100,000
distinct sentences' translations through a 4 MiB cache, whose largest heap use it prints.
Prints a Markdown section and writes JSON (--json, default build/bench-cache/document-cache.json).
"""

import argparse
import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import machine, paths  # noqa: E402
from benchlib.load import cpu_lock  # noqa: E402
from benchlib.section import Section, publish  # noqa: E402
from benchlib.stats import median  # noqa: E402

GOAL = 20.0  # the second translation at least 20x faster (issue 28)
HEAP_TEST = "100?000 distinct sentences*"  # doctest filters split at commas


def paragraphs(sentences, seed=27):
    rng, out, i = random.Random(seed), [], 0
    while i < len(sentences):
        count = min(rng.randint(1, 6), len(sentences) - i)
        out.append(" ".join(sentences[i:i + count]))
        i += count
    return out


def one_round(edgemt, model, document, threads):
    translator = edgemt.Translator(model, threads=threads)
    start = time.perf_counter()
    first = translator.translate_document(document)
    middle = time.perf_counter()
    second = translator.translate_document(document)
    end = time.perf_counter()
    if first != second:
        raise SystemExit("the second translation differs from the first")
    stats = translator.cache_stats()["documents"]
    return dict(first_s=middle - start, second_s=end - middle, hits=stats["hits"], misses=stats["misses"],
                entries=stats["entries"], bytes=stats["bytes"])


def heap_bound(build):
    out = subprocess.run([os.path.join(build, "bin", "edgemt_unit_tests"), "-tc=" + HEAP_TEST, "-s"],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"cache heap at most (\d+) bytes for a bound of (\d+)", out)
    if m is None:
        raise SystemExit("the unit test printed no heap figure:\n" + out[-2000:])
    return dict(heap_bytes=int(m.group(1)), bound_bytes=int(m.group(2)))


def section(result, meta):
    run = machine.run_header(meta, "tests/bench/document_cache_bench.py")
    if os.environ.get("PYTHONPATH"):
        run["command"] = "PYTHONPATH=%s %s" % (paths.rel(os.environ["PYTHONPATH"].split(os.pathsep)[0]), run["command"])
    s = Section("document-cache", "Document cache (tests/bench/document_cache_bench.py)", run)
    r = result["rounds"]
    s.text(machine.measured_when(meta) + " One document: the %d Multi30k dev sentences in %d paragraphs, int8 "
           "example model, %d thread(s), batches of 32; each of %d rounds a new `edgemt.Translator` translates it "
           "twice with the default 32 MB document cache (medians; the second output is the first). The cache held "
           "%d entries in %d bytes. Its bound: %d distinct sentences through a %d-byte cache (the unit test "
           "\"100,000 distinct sentences...\") took at most %d bytes of heap."
           % (meta["sentences"], meta["paragraphs"], meta["threads"], meta["rounds"], r[0]["entries"],
              r[0]["bytes"], 100000, result["heap"]["bound_bytes"], result["heap"]["heap_bytes"]))
    first, second = median([x["first_s"] for x in r]), median([x["second_s"] for x in r])
    ratio = first / second
    return s.table(["first s", "second s", "first / second", "cache hits of the second", "goal (at least %gx)" % GOAL],
                   [["%.3f" % first, "%.4f" % second, "%.0f" % ratio, "%d of %d" % (r[0]["hits"], r[0]["misses"]),
                     "met" if ratio >= GOAL else "**missed**"]])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--build-dir", default=paths.BUILD)
    p.add_argument("--json", default=os.path.join(paths.CACHE, "document-cache.json"))
    p.add_argument("--md", default=None)
    args = p.parse_args()
    import edgemt  # PYTHONPATH=build/python
    with open(paths.DEV_EN, encoding="utf-8") as f:
        sentences = f.read().split("\n")[:-1]
    lines = paragraphs(sentences)
    document = "".join(line + "\n" for line in lines)
    meta = machine.start_meta(rounds=args.rounds, sentences=len(sentences), paragraphs=len(lines),
                              threads=args.threads)
    model = edgemt.Model(paths.COMMITTED_INT8)
    rounds = []
    for i in range(args.rounds):
        with cpu_lock("document cache round %d" % i):
            rounds.append(one_round(edgemt, model, document, args.threads))
    result = dict(rounds=rounds, heap=heap_bound(args.build_dir))
    machine.finish_meta(meta, [])
    publish(section(result, meta), dict(meta=meta, results=result), args.json, args.md)


if __name__ == "__main__":
    main()
