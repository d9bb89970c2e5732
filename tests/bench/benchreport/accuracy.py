"""Accuracy (BLEU on the Multi30k dev set, agreement of the random checkpoints' outputs) and EdgeMT against
the PyTorch reference, from the main run."""
from benchlib.markdown import fmt, table

def bleu_rows(q):
    rows = [["PyTorch reference fp32 (committed `reference/dev.greedy.de`)",
             fmt(q["reference_fp32_committed"]["bleu"], 2), "(the reference)", "–"]]
    for key, label in (("torch_float32", "PyTorch fp32"), ("torch_int8", "PyTorch quantize_dynamic int8")):
        if key in q:
            rows.append([label, fmt(q[key]["bleu"], 2), "–", "–"])
    for dtype in ("float32", "int8"):
        s, n = q["edgemt_%s_same_as_reference_fp32" % dtype]
        rows.append(["EdgeMT " + dtype, fmt(q["edgemt_" + dtype]["bleu"], 2), "%d/%d" % (s, n),
                     "identical" if q["edgemt_%s_1_vs_2_threads_identical" % dtype] else "**differ**"])
    return rows


def accuracy(data):
    Q = data["results"].get("quality")
    if not Q:
        return []
    lines = ["### Accuracy", ""]
    if "multi30k" in Q:
        lines += ["Multi30k dev (500 sentences), `../shared/models/multi30k-ende/bleu.py` against `dev.de` (each "
                  "line of bleu.py: BENCHMARKS.json `results.quality`):", ""]
        lines += table(["System", "BLEU", "lines identical to the fp32 reference", "1 and 2 threads"],
                       bleu_rows(Q["multi30k"])) + [""]
    if any(n != "multi30k" for n in Q):
        lines += ["The random checkpoints' agreement of greedy outputs (EdgeMT against PyTorch, int8 against "
                  "float32): BENCHMARKS.json `results.quality`.", ""]
    return lines


def speedup(e, tr, threads):
    r = e["runs"]["b1_t%d" % threads]
    if not tr:
        return "–"
    note = " (%d sent.)" % tr["sentences"] if tr["sentences"] != r["sentences"] else ""
    return "%.1fx%s" % (tr["mean_ms_per_sentence"] / r["median_ms_per_sentence"], note)


def pytorch_rows(E, T):
    rows = []
    for name in E:
        speed, memory = [], []
        for dtype in ("int8", "float32"):
            runs = {t: T.get(name, {}).get("%s_t%d" % (dtype, t)) for t in (1, 2)}
            speed += [speedup(E[name][dtype], runs[t], t) for t in (1, 2)]
            rss = E[name][dtype]["rss_t1"]["peak_rss_kb"]
            memory.append("%.1fx" % (runs[1]["peak_rss_kb"] / rss) if runs[1] else "–")
        rows.append([name] + speed + memory)
    return rows


def pytorch(data):
    T, meta = data["results"]["torch"], data["meta"]
    if not T:
        return []
    lines = ["### Against PyTorch", "",
             "Debian's python3-torch running the reference decoder **without a KV cache** (every step re-runs the "
             "whole prefix, as `reference.py` does; tiny/base: `tests/bench/torch_fixed_length.py`), batch 1, one "
             "pass after one untimed sentence; int8 = `quantize_dynamic` of the Linear layers (engine %s). EdgeMT's "
             "speed-up is PyTorch's ms per sentence over EdgeMT's at the same thread count (per sentence, so runs on "
             "fewer sentences compare); memory is PyTorch's peak RSS over EdgeMT's at 1 thread." %
             meta.get("torch_qengine", "?"), ""]
    return lines + table(["Model", "int8 speed-up, 1 thread", "2 threads", "float32, 1 thread", "2 threads",
                          "peak RSS, PyTorch / EdgeMT: int8", "float32"], pytorch_rows(data["results"]["edgemt"], T)) + [""]
