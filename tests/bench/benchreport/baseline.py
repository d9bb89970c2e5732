"""This tree against the previous build (--baseline REV), measured in the same invocation as the main run:
one ratio per model and measure, each build at its better thread count; the goals of the comparison. Once marked
as history (`--history baseline`) the page has no section for it: tests/bench/ANALYSIS.md's "History" has."""
from benchlib.markdown import table, yes
from benchrun.goals import GOAL_VS_BASELINE

from .runs import baseline_run

AT_MOST_ONE = ("load_ms", "peak_rss_mb")  # goals on new / baseline: every model at most 1


def cell(row, key):
    """Speed measures as speed-ups (> 1: faster), load time and memory as new / baseline (< 1: less)."""
    return "%.2fx" % (row["ratio"] if key in AT_MOST_ONE else row["speedup"])


# Rows: a label and the measure per kind of model. The trained model's outputs differ between the builds, so its
# speed compares as time per sentence; the random models decode exactly 32 tokens, and their goals are on tokens/s.
ROWS = (("batch 1 speed (trained: ms per sentence; random: tokens/s)", "b1_ms", "b1_tokens"),
        ("batch 32 speed (trained: ms per sentence; random: tokens/s)", "b32_ms", "b32_tokens"),
        ("encoder ms per sentence (batch 1)", "encoder_ms", "encoder_ms"),
        ("decoder ms per step (batch 1)", "decoder_step_ms", "decoder_step_ms"),
        ("load ms (Model::Load + Translator::Create)", "load_ms", "load_ms"),
        ("peak RSS MB (edgemt-translate)", "peak_rss_mb", "peak_rss_mb"))


def goal_cell(S, keys):
    """The goals of the comparison on these measures (benchrun.goals), judged as they were in the run."""
    key = keys.get(next(iter(S)))
    if key in AT_MOST_ONE:
        return "every model <= 1x: %s" % yes(all(S[n]["measures"][key]["ratio"] <= 1.0 for n in S
                                                 if key in S[n]["measures"]))
    return "; ".join("%s >= %.2fx: %s" % (name, target, yes(S[name]["measures"][k]["speedup"] >= target))
                     for name, k, target, _ in GOAL_VS_BASELINE if keys.get(name) == k and k in S[name]["measures"])


def rows(B):
    S, out = B["summary"], []
    for label, trained, random in ROWS:
        keys = {n: trained if B["kinds"].get(n) == "trained" else random for n in S}
        out.append([label] + [cell(S[n]["measures"][keys[n]], keys[n]) if keys[n] in S[n]["measures"] else "–"
                              for n in S] + [goal_cell(S, keys)])
    return out


def section(data):
    B, meta = data.get("baseline"), data["meta"]
    if not B or B.get("history"):
        return []
    P, run = B["plan"], baseline_run(data)
    loads = [x["other_load"] for n in B["runs"] for k in B["runs"][n] if not k.startswith("rss")
             for b in ("baseline", "new") for x in B["runs"][n][k][b] if x.get("other_load") is not None]
    lines = ["## XNNPACK 2024-11 against the previous build (%s)" % B["short"], "",
             "Run \"baseline\": part of `%s`, which ended %s: this tree (`%s`; %s) against `%s` \"%s\" (%s), built in %s from a "
             "git worktree and converted by its own converter (%s). int8 only; each configuration ran %d rounds of "
             "a baseline process followed by one of this tree (A B A B ...), each process timing %d pass(es) after "
             "a warm-up; a figure is the median over the rounds, each build at its better thread count. Other "
             "processes used at most %.2f cores during its timed runs." % (
                 meta["command"], run["date"], meta["git"]["short"], meta["build"].get("kernels", "?"), B["short"],
                 B["subject"], B["build"].get("kernels", "?"), B["build"].get("CMAKE_BUILD_TYPE", "?"),
                 B["calibration_note"], P["rounds"], P["repeat"], max(loads) if loads else 0.0), ""]
    lines += table(["measure: speed-up (load, peak RSS: new / baseline)"] + list(B["summary"]) + ["goal"], rows(B))
    return lines + ["", "Each build's figures at 1 and 2 threads, the per-round ratios, the goals' details and the "
                    "decoder step of both builds against its floor: BENCHMARKS.json `baseline` (`summary`, `runs`, "
                    "`goals`); its commands: `baseline.commands`.", ""]
