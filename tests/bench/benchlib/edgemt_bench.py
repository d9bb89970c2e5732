"""One build/bin/edgemt-bench process (tests/bench/edgemt_bench.cc) and its JSON.

edgemt-bench loads a model, translates a file (text or ids) and prints one JSON object: load time, arena,
ms per sentence, tokens/s, encoder and decoder times, profile shares, allocations, peak RSS.
"""
import json

from .paths import BENCH
from .processes import COMMANDS, run_child


def command(model, source, fixed=False, threads=1, batch=1, repeat=1, profile_passes=0, length=None, limit=0,
            extra=(), binary=BENCH):
    """edgemt-bench's arguments. fixed: `source` holds ids (--input-ids), else text; length: exactly that many
    output tokens (--min-length/--max-length); limit: the first N sources (0: all)."""
    cmd = [binary, "--model", model, "--input-ids" if fixed else "--input", source, "--threads", str(threads),
           "--batch-size", str(batch), "--repeat", str(repeat), "--profile-passes", str(profile_passes)]
    if length:
        cmd += ["--min-length", str(length), "--max-length", str(length)]
    if limit:
        cmd += ["--limit", str(limit)]
    return cmd + list(extra)


def run(cmd, timed=False):
    """Runs edgemt-bench: its JSON plus other_load, the child's peak RSS, wall seconds and the command."""
    r = run_child(cmd, timed=timed)
    j = json.loads(r["out"])
    j["other_load"] = r["other_load"]
    j["child_peak_rss_kb"] = r["maxrss_kb"]
    j["wall_s"] = round(r["wall_s"], 3)
    j["command"] = COMMANDS[-1]
    return j
