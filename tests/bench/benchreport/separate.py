"""The sections measured by the separate scripts (packed cache, int4, beam search, ...), each from the record
of its own run in BENCHMARKS.json `separate_runs`, in its short form (benchlib.section.render); a record marked
as history has none (tests/bench/ANALYSIS.md's "History" holds its figures)."""
from benchlib.section import render


def sections(data):
    lines = []
    for record in data.get("separate_runs", []):
        if not record.get("history"):
            lines += render(record)
    return lines
