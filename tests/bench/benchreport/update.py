"""--report-only: BENCHMARKS.md again from BENCHMARKS.json (after adding a separate run's section or the peer's
run to the JSON, or marking runs as history), measuring nothing and needing nothing but the JSON and
tests/bench/ANALYSIS.md (whose section headings the page lists)."""
import json
import os

from benchlib.log import log
from benchlib.paths import rel
from benchlib.section import parse

from .writer import analysis_text, write


def load_record(path):
    """A separate run's section: the Markdown its script wrote (--md FILE), or its JSON (with "section")."""
    with open(path) as f:
        text = f.read()
    if path.endswith(".json"):
        return json.loads(text)["section"]
    return parse(text, os.path.splitext(os.path.basename(path))[0])


def attach(data, path):
    """Keeps a separate run's section in the JSON, replacing an earlier one of the same name."""
    record = load_record(path)
    if record["name"] == "peer":
        raise SystemExit("%s is the peer's run: give its JSON with --peer-json (the headline is made from it)" % path)
    data["separate_runs"] = [r for r in data.get("separate_runs", []) if r["name"] != record["name"]] + [record]


def peer(data, path):
    """tests/bench/peer_bench.py's run: the headline's figures."""
    with open(path) as f:
        run = json.load(f)
    data["peer"] = dict(meta=run["meta"], results=run["results"])


def mark_history(data, names):
    """Marks runs as history: kept in the JSON and named in the table of runs, their section left to
    tests/bench/ANALYSIS.md's "History" (copy it there first). NAME: a separate run's name, or "baseline" for the
    main run's --baseline comparison. A later run attached under the same name is current again."""
    records = {r["name"]: r for r in data.get("separate_runs", [])}
    for name in names:
        if name == "baseline" and data.get("baseline"):
            data["baseline"]["history"] = True
        elif name in records:
            records[name]["history"] = True
        else:
            raise SystemExit("--history: no run %r in the JSON (runs: %s)" % (
                name, ", ".join((["baseline"] if data.get("baseline") else []) + list(records))))


def save(path, data):
    with open(path, "w") as f:
        f.write(json.dumps(data, indent=1) + "\n")


def report_only(out, peer_json=None, attach_section=None, history=()):
    json_path = os.path.splitext(out)[0] + ".json"
    with open(json_path) as f:
        data = json.load(f)
    if peer_json:
        peer(data, peer_json)
    if attach_section:
        attach(data, attach_section)
    if history:
        mark_history(data, history)
    if peer_json or attach_section or history:
        save(json_path, data)
    write(out, data, analysis_text(data["meta"]["quick"]))
    log("wrote %s from %s" % (rel(out), rel(json_path)))
