"""The runs BENCHMARKS.json holds, each with what it measured, its date and commit: every section of the
report names one of them. A run marked as history (`run_benchmarks.py --report-only --history NAME`) is listed
but has no section: its figures are in tests/bench/ANALYSIS.md's "History"."""

MAIN_WHAT = "Goals; where the time goes; accuracy; against PyTorch"


def cpu_of(meta):
    mi = meta["machine"]
    return "%s (family %s, model %s), %d cores" % (mi["cpu_model"], mi.get("cpu_family"), mi.get("cpu_model_number"),
                                                   mi["cores"])


def main_run(data):
    meta = data["meta"]
    return dict(key="main", what=MAIN_WHAT, command=meta["command"], date=meta["date"], date_is="end",
                commit=meta["git"]["short"], cpu=cpu_of(meta))


def baseline_run(data):
    b = data["baseline"]
    return dict(key="baseline", what="XNNPACK 2024-11 against the previous build (%s)" % b["short"],
                command=data["meta"]["command"], note="the main run's last %.1f min" % (b.get("measure_s", 0) / 60),
                date=data["meta"]["date"], date_is="end of the invocation", commit=data["meta"]["git"]["short"],
                cpu=cpu_of(data["meta"]), history=bool(b.get("history")))


def peer_run(data):
    m = data["peer"]["meta"]
    return dict(key="peer", what="Headline: EdgeMT against CTranslate2 %s" % m["ct2_version"],
                command=m.get("command"), reproduce="tests/bench/peer_bench.py --md build/bench-cache/peer.md",
                date=m["date"], date_is=m.get("date_is", "end"), commit=m["commit"], cpu=m["cpu"])


def separate_run(record):
    r = record["run"]
    return dict(key=record["name"], what=record["title"], command=r.get("command"), reproduce=r.get("reproduce"),
                date=r.get("date"), date_is=r.get("date_is"), commit=r.get("commit"), cpu=r.get("cpu", ""),
                history=bool(record.get("history")))


def all_runs(data):
    runs = [main_run(data)]
    if data.get("baseline"):
        runs.append(baseline_run(data))
    if data.get("peer"):
        runs.append(peer_run(data))
    return runs + [separate_run(r) for r in data.get("separate_runs", [])]


def when(run):
    """A run's date as the report writes it, with what it marks (the run's start or end)."""
    if not run["date"]:
        return "–"
    return run["date"] + (" (its %s)" % run["date_is"] if run.get("date_is") in ("start", "end") else
                          " (%s)" % run["date_is"] if run.get("date_is") else "")


def command_cell(run):
    """How a run's figures are made again: its command as recorded, else as tests/bench/README.md documents it."""
    if run["command"]:
        return "`%s`%s" % (run["command"], " (%s)" % run["note"] if run.get("note") else "")
    reproduce = run.get("reproduce") or "–"
    return "not recorded; %s" % ("as documented: `%s`" % reproduce if reproduce.startswith("tests/") else reproduce)
