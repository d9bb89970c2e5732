"""The opening table: EdgeMT against CTranslate2 4.8.1, from one run (tests/bench/peer_bench.py): every row
names its configuration and the peer's, and the ratio compares times for the same sentences."""
from benchlib.markdown import fmt, table
from benchlib.stats import fastest

from .runs import peer_run, when

SOURCES = {"multi30k": "trained (Multi30k); its %d dev sentences, normal stopping",
           "tiny": "random weights, tiny shape; %d random sources, exactly 32 output ids",
           "base": "random weights, base shape; %d random sources, exactly 32 output ids"}
COLUMNS = ["model: weights; sources", "precision", "batch", "decoding", "EdgeMT threads", "EdgeMT tokens/s",
           "CTranslate2 4.8.1: threads, ISA", "CTranslate2 tokens/s", "EdgeMT speed / CTranslate2's"]


def best(result, runtime, batch):
    return fastest(v for v in result["configs"].values() if v["runtime"] == runtime and v["batch"] == batch)


def rows(peer):
    meta, out = peer["meta"], []
    for r in peer["results"]:
        for batch in (1, 32):
            e, c = best(r, "edgemt", batch), best(r, "ct2", batch)
            isa = meta["ct2_isa"] if c and c["isa"] == "default" else (c["isa"] + " (forced)" if c else "")
            out.append([r["model"] + ": " + SOURCES.get(r["model"], "%d sources") % r["sentences"], "int8", batch,
                        "greedy", e["threads"], fmt(e["tokens_per_s"], 0),
                        "%d, %s" % (c["threads"], isa) if c else "not measured",
                        fmt(c["tokens_per_s"], 0) if c else "–", "**%.2fx**" % (c["wall_s"] / e["wall_s"]) if c else "–"])
    return out


def section(data):
    peer = data.get("peer")
    lines = ["## Headline: EdgeMT against CTranslate2", ""]
    if not peer or not peer["meta"]["peer"]:
        return lines + ["No run of tests/bench/peer_bench.py with CTranslate2 is recorded (`run_benchmarks.py "
                        "--report-only --peer-json FILE` adds one): no figure against the peer.", ""]
    m, run = peer["meta"], peer_run(data)
    lines += table(COLUMNS, rows(peer)) + [""]
    lines.append("Run \"peer\" (`%s`, table \"Runs\") at %s, %s, %s. Python API against Python API (`edgemt.Translator."
                 "translate_ids` against `ctranslate2.Translator.translate_batch`), the same token ids, a process per "
                 "measurement timing the translating call only; medians of %d rounds alternating the two runtimes' "
                 "processes; other load: %s. Each runtime at its faster thread count (1 or 2), CTranslate2 also at "
                 "its faster ISA (it picks %s here; it also ran with %s forced). Tokens/s count each runtime's own "
                 "output ids; the ratio is CTranslate2's time over EdgeMT's for the same sentences. Every "
                 "configuration (threads, ISAs): BENCHMARKS.json `peer.results`." % (
                     "tests/bench/peer_bench.py", m["commit"], when(run), m["cpu"], m["rounds"], m["load"], m["ct2_isa"],
                     " and ".join(i for i in m["isas"] if i != "default") or "no other ISA"))
    return lines + [""]
