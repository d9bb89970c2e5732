"""The main run (tests/bench/run_benchmarks.py): the machine it ran on, how it measured, and its goals."""
from benchlib.markdown import fmt, table, yes

from .runs import main_run, when


def machine_rows(meta, E):
    mi, build = meta["machine"], meta["build"]
    libraries = build.get("kernels") or "XNNPACK %s, pthreadpool %s (Debian)" % (
        mi["packages"].get("libxnnpack0"), mi["packages"].get("libpthreadpool0"))
    loads = [r["other_load"] for n in E for d in E[n] for r in E[n][d]["runs"].values()]
    rows = [["Commit", "`%s` %s%s" % (meta["git"]["short"], meta["git"]["subject"], " (with uncommitted changes in "
                                      "runtime/converter/bench)" if meta["git"]["dirty"] else "")],
            ["CPU", "%s (family %s, model %s)%s, %d cores, %s MB RAM" % (
                mi["cpu_model"], mi.get("cpu_family"), mi.get("cpu_model_number"),
                ", virtual machine" if mi["hypervisor"] else "", mi["cores"], fmt(mi["mem_total_mb"], 0))],
            ["SIMD flags", " ".join(mi["simd_flags"])],
            ["OS", "Debian %s, Linux %s" % (mi.get("debian", "?"), mi["kernel"])],
            ["Build", "%s, %s, `%s`" % (build.get("CMAKE_BUILD_TYPE", "?"), build.get("compiler_version", "?"),
                                        build.get("CMAKE_CXX_FLAGS_RELEASE", "?"))],
            ["Libraries", libraries],
            ["PyTorch", "python3-torch %s, BLAS: %s" % (mi["packages"].get("python3-torch"), meta["torch_blas"])],
            ["Load average", "%s at the start, %s at the end (1, 5, 15 min)%s" % (
                ", ".join("%.2f" % x for x in meta["loadavg_start"]), ", ".join("%.2f" % x for x in meta["loadavg_end"]),
                meta.get("quiet_note", ""))]]
    if loads:
        rows.append(["Other processes", "mean %.2f, max %.2f cores during EdgeMT's timed runs (CPU time of "
                     "everything else / wall time, per run); waited %.0f s for idle (up to %.0f s before each)" % (
                         sum(loads) / len(loads), max(loads), meta.get("idle_waited_s", 0),
                         meta.get("idle_wait_per_child_s", 0))])
    return rows + [["Duration", "%.1f min%s" % (meta["duration_s"] / 60.0, " (quick mode: few sentences, NOT "
                                                                           "representative)" if meta["quick"] else "")]]


def method(results):
    P, E = results["plan"], results["edgemt"]
    cut = ["%s %s: the first %d" % (n, d, P[n]["limit"][d]) for n in E for d in ("int8", "float32") if P[n]["limit"][d]]
    text = ("edgemt-bench, a process per measurement: batch 1 over %d timed passes after an untimed warm-up (median), "
            "per sentence = pass time / sentences; tokens are output tokens (no `</s>`). multi30k: the trained "
            "model on its 500 dev sentences, normal stopping; tiny / base: random checkpoints, 100 sources of 32 ids, "
            "exactly 32 output tokens. Peak RSS: `ru_maxrss` of an `edgemt-translate` process translating the same "
            "inputs one at a time. Load: `Model::Load` + `Translator::Create`, median of %d processes, warm page "
            "cache." % (P["repeat"], P["load_runs"]))
    if "baseline_rss_kb" in results:
        text += (" Any edgemt-translate process, with a micro random model (%.2f MB), peaks at %.1f MB."
                 % (results["baseline_file_bytes"] / 1e6, results["baseline_rss_kb"] * 1024 / 1e6))
    if cut:
        text += " Fewer sources, to keep the run within 20 minutes: " + "; ".join(cut) + "."
    return text + (" The speed goals are judged on these edgemt-bench runs, not on the headline's."
                   if results["edgemt"] else "")


def section(data):
    meta, results, run = data["meta"], data["results"], main_run(data)
    lines = ["## The main run", "", "Run \"main\": `%s`, %s." % (meta["command"], when(run)), ""]
    lines += table(["", ""], machine_rows(meta, results["edgemt"])) + ["", method(results), "", "### Goals", ""]
    lines += table(["Goal", "Target", "Measured", "Met", ""],
                   [[g["goal"], g["target"], g["measured"], yes(g["met"]), g["detail"]] for g in data["goals"]])
    lines += ["", "Every configuration (int8 and float32, batch 1 and 32, 1 and 2 threads: speed, profile shares, "
              "load, peak RSS, 1 against 2 threads alternating), the PyTorch runs, XNNPACK alone per layer shape and "
              "the model files: BENCHMARKS.json `results`, `xnnpack_threads`, `models`.", ""]
    return lines
