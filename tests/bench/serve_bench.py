#!/usr/bin/python3
"""edgemt-serve under load (wrk, loopback) beside the CLI's batched
throughput on the same sentences, one run:

    tests/bench/serve_bench.py BUILD_BIN [--seconds 30] [--sentences 500]

Serves the Multi30k int8 model (models/, as a one-model set) and runs wrk at
1, 8 and 64 connections (tests/bench/serve/translate.lua: each answer
checked against the CLI's translation of the same line, by the X-Request-Id
the server echoes), twice: "shared", server (all cores) and wrk on the same
cores; "pinned", server and CLI on core 0 with 1 thread each, wrk on core 1,
so that both sides have the same CPU and the load generator takes none of
it. The CLI's rate: the N sentences ten times over, batched, best of 3, in
the same placement. Prints a Markdown table: requests/s, p50/p99 latency,
good/wrong/failed answers, and the share of the CLI's sentences/s. Needs
../shared (the dev set), Debian's wrk and taskset (util-linux)."""
import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEV = os.path.join(os.path.dirname(REPO), "shared", "data", "multi30k", "dev.en")
MODEL = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--sentences", type=int, default=500)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="edgemt-serve-bench-")
    try:
        sources = os.path.join(work, "dev.en")
        with open(DEV, encoding="utf-8") as f:
            lines = f.read().split("\n")[:args.sentences]
        with open(sources, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        expected = os.path.join(work, "dev.de")
        cli = [os.path.join(args.bin, "edgemt-translate"), "--model", MODEL]
        with open(sources, "rb") as i, open(expected, "wb") as o:
            subprocess.run(cli, stdin=i, stdout=o, check=True)
        tenfold = os.path.join(work, "dev10.en")
        with open(tenfold, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines) * 10)
        models = os.path.join(work, "models")
        os.makedirs(models)
        shutil.copy(MODEL, os.path.join(models, "en-de.edgemt"))
        env = dict(os.environ, SOURCES=sources, EXPECTED=expected)
        rows = []
        for placement, server_cpus, wrk_cpus, threads in (("shared", [], [], []), ("pinned", ["taskset", "-c", "0"],
                                                                                  ["taskset", "-c", "1"],
                                                                                  ["--threads", "1"])):
            best = None
            for _ in range(3):
                start = time.perf_counter()
                with open(tenfold, "rb") as i:
                    subprocess.run(server_cpus + cli + threads, stdin=i, stdout=subprocess.DEVNULL, check=True)
                elapsed = time.perf_counter() - start
                best = elapsed if best is None else min(best, elapsed)
            cli_rate = 10 * len(lines) / best
            rows += measure(args, placement, server_cpus, wrk_cpus, threads, models, env, cli_rate)
        print("| placement | connections | requests/s | p50 ms | p99 ms | good / wrong / failed | wrk errors | "
              "CLI sentences/s | of the CLI's |")
        print("|---|---|---|---|---|---|---|---|---|")
        print("\n".join(rows))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(args, placement, server_cpus, wrk_cpus, threads, models, env, cli_rate):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(server_cpus + [os.path.join(args.bin, "edgemt-serve"), "--models", models, "--port",
                                             str(port)] + threads, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/health" % port, timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    rows = []
    script = os.path.join(REPO, "tests", "bench", "serve", "translate.lua")
    for connections in (1, 8, 64):
        out = subprocess.run(wrk_cpus + ["wrk", "-t1", "-c%d" % connections, "-d%ds" % args.seconds, "--latency",
                                         "-s", script, "http://127.0.0.1:%d" % port], env=env, capture_output=True,
                             text=True, check=True).stdout
        rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
        good, wrong, failed = map(int, re.search(r"answers: (\d+) good, (\d+) wrong, (\d+) failed", out).groups())
        errors = re.search(r"errors: (.*)", out).group(1)
        p50, p99 = map(int, re.search(r"latency_us: p50 (\d+) p99 (\d+)", out).groups())
        rows.append("| %s | %d | %.0f | %.1f | %.1f | %d / %d / %d | %s | %.0f | %.0f%% |" % (
            placement, connections, rate, p50 / 1000, p99 / 1000, good, wrong, failed, errors, cli_rate,
            100 * rate / cli_rate))
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)
    return rows


if __name__ == "__main__":
    sys.exit(main())
