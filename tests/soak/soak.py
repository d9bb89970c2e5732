"""Soak: many sentences through edgemt-translate and through Python's translate_iterable, the process's
resident memory (VmRSS) and throughput recorded every --every sentences. Both must stay flat: after the
first two checkpoints (warm-up: plans grow, pages of the model come in) RSS may rise by at most
max(4 MB, 5%), and, in a run by hand, the throughput of the last three windows must be at least
--throughput-floor (0.7) times that of the first three (this machine is noisy). CTest's short form passes
--throughput-floor 0: it shares the cores with other tests, so there speed is printed, never judged. A sentence seen again must get the same translation, and every input line one
output line.

    tests/soak/soak.py --bin build/bin --pythonpath build/python              # 1,000,000 sentences each
    tests/soak/soak.py --bin build/bin --pythonpath build/python --sentences 20000 --every 2000 --distinct 2000 --throughput-floor 0  # CI

Sentences: Multi30k's training English (../shared) cycled, else a synthetic generator. Model: the
Multi30k example in models/. Prints a Markdown table per front end; --json writes the checkpoints.
Exit 1 when a check fails."""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")
TRAIN = os.path.join(REPO, "..", "shared", "data", "multi30k", "train.en")
WORDS = ("a man woman dog child group people two young old red blue green big small is are runs walks sits "
         "stands plays holds looks in on at near with the street park beach water snow field table ball "
         "bike car shirt hat").split()


def sentences(count, distinct):
    """`count` sentences cycling through `distinct` ones: Multi30k's training set, or synthetic ones
    when it is absent."""
    if os.path.exists(TRAIN):
        with open(TRAIN, encoding="utf-8") as f:
            corpus = [line.rstrip("\n") for line in f if line.strip()][:distinct]
        for i in range(count):
            yield corpus[i % len(corpus)]
        return
    for i in range(count):
        state = (1103515245 * (i % distinct) + 12345) % (1 << 31)
        length = 4 + state % 12
        words = [WORDS[(state >> (k % 20) ^ k * 2654435761) % len(WORDS)] for k in range(length)]
        yield " ".join(words).capitalize() + "."


def rss_kb(pid="self"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Checkpoints:
    """Checkpoints every `every` sentences: RSS and the window's sentences per second. The first cycle's
    translations are kept (a bounded table, filled before the warm-up ends) to compare repeats with."""

    def __init__(self, every, rss, distinct):
        self.every, self.rss, self.distinct, self.rows = every, rss, distinct, []
        self.start = self.last = time.perf_counter()
        self.first_cycle = []
        self.mismatches = 0

    def translated(self, index, translation):
        if index < self.distinct:
            self.first_cycle.append(translation)
        elif self.first_cycle[index % self.distinct] != translation:
            self.mismatches += 1
        if (index + 1) % self.every == 0:
            now = time.perf_counter()
            self.rows.append({"sentences": index + 1, "rss_kb": self.rss(),
                              "per_second": self.every / max(now - self.last, 1e-9)})
            self.last = now


def soak_cli(args):
    command = [os.path.join(args.bin, "edgemt-translate"), "--model", args.model, "--threads", "1"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, encoding="utf-8", bufsize=1 << 16)
    def write():
        for s in sentences(args.sentences, args.distinct):
            process.stdin.write(s + "\n")
        process.stdin.close()

    writer = threading.Thread(target=write)
    writer.start()
    marks = Checkpoints(args.every, lambda: rss_kb(process.pid), args.distinct)
    count = 0
    for line in process.stdout:
        marks.translated(count, line.rstrip("\n"))
        count += 1
    writer.join()
    stderr = process.stderr.read()
    process.wait()
    problems = []
    if process.returncode != 0:
        problems.append(f"edgemt-translate exited {process.returncode}: {stderr[-500:]}")
    if count != args.sentences:
        problems.append(f"{count} output lines for {args.sentences} input lines")
    return marks, problems


PYTHON_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import edgemt
import soak
count, every, distinct, model = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
translator = edgemt.Translator(edgemt.Model(model), threads=1)
marks = soak.Checkpoints(every, soak.rss_kb, distinct)
done = 0
for i, translation in enumerate(translator.translate_iterable(soak.sentences(count, distinct))):
    marks.translated(i, translation)
    done = i + 1
print(json.dumps({"rows": marks.rows, "mismatches": marks.mismatches, "done": done}))
"""


def soak_python(args):
    here = os.path.dirname(os.path.abspath(__file__))
    result = subprocess.run([sys.executable, "-c", PYTHON_CHILD, args.pythonpath, here, str(args.sentences),
                             str(args.every), str(args.distinct), args.model], capture_output=True, text=True)
    problems = []
    marks = Checkpoints(args.every, lambda: 0, args.distinct)
    if result.returncode != 0:
        return marks, [f"the Python soak exited {result.returncode}: {result.stderr[-1000:]}"]
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    marks.rows, marks.mismatches = outcome["rows"], outcome["mismatches"]
    if outcome["done"] != args.sentences:
        problems.append(f"{outcome['done']} translations for {args.sentences} lines")
    return marks, problems


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def check_flat(marks, throughput_floor):
    rows = marks.rows
    problems = []
    if marks.mismatches:
        problems.append(f"{marks.mismatches} repeated sentences translated differently")
    if len(rows) < 6:
        return problems + [f"only {len(rows)} checkpoints: too few to judge"]
    base = rows[1]["rss_kb"]
    peak = max(r["rss_kb"] for r in rows[1:])
    if peak - base > max(4096, base * 0.05):
        problems.append(f"RSS grew from {base} kB to {peak} kB")
    first = median([r["per_second"] for r in rows[:3]])
    last = median([r["per_second"] for r in rows[-3:]])
    if last < throughput_floor * first:
        problems.append(f"throughput fell from {first:.0f} to {last:.0f} sentences/s")
    return problems


def report(name, marks):
    rows = marks.rows
    print(f"\n{name}: {rows[-1]['sentences'] if rows else 0} sentences")
    print("| sentences | RSS | sentences/s |\n|---|---|---|")
    shown = rows if len(rows) <= 12 else rows[:3] + rows[len(rows) // 2:len(rows) // 2 + 1] + rows[-3:]
    for r in shown:
        print(f"| {r['sentences']:,} | {r['rss_kb'] / 1024:.1f} MB | {r['per_second']:,.0f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="the directory with edgemt-translate")
    parser.add_argument("--pythonpath", help="the directory with the edgemt package (Python's soak)")
    parser.add_argument("--model", default=MODEL)
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--every", type=int, default=10_000)
    parser.add_argument("--distinct", type=int, default=10_000,
                        help="distinct sentences, cycled (at most --every: repeats are compared from then on)")
    parser.add_argument("--front", default="cli,python", help="cli, python or both (comma-separated)")
    parser.add_argument("--json", help="write the checkpoints here")
    parser.add_argument("--throughput-floor", type=float, default=0.7,
                        help="least ratio of the last windows' speed to the first's (0: not judged)")
    args = parser.parse_args()
    failures = []
    results = {}
    for front in args.front.split(","):
        if front == "python" and not args.pythonpath:
            print("soak.py: no --pythonpath: the Python soak is skipped", flush=True)
            return 77
        started = time.perf_counter()
        marks, problems = soak_cli(args) if front == "cli" else soak_python(args)
        problems += check_flat(marks, args.throughput_floor)
        report(front, marks)
        print(f"{front}: {time.perf_counter() - started:.0f} s" + ("" if problems else ", flat"))
        failures += [f"{front}: {p}" for p in problems]
        results[front] = {"rows": marks.rows, "mismatches": marks.mismatches}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    for failure in failures:
        print("soak.py: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
