"""XNNPACK alone (build/bin/edgemt-xnnpack-gemm-bench): one Linear layer at 1 and 2 threads, and the decoder
step's floor, its int8 Linear layers timed alone with the XNNPACK the runtime links (per decoder layer the
fused self-attention QKV d->3d, the self-attention output, the cross-attention query and output d->d, the
feed-forward d->d_ff and d_ff->d; then the output projection d->vocab; rows = 1), each shape on its own and
all of them in order (--shapes ... --sequence)."""
import json
import os
import re

from benchlib.log import log
from benchlib.models import model_config
from benchlib.paths import REPO
from benchlib.processes import COMMANDS, run_child


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]


def xnnpack_threads(bins, quick):
    cmd = [bins["edgemt-xnnpack-gemm-bench"], "--threads", "2", "--rows", "1,33", "--min-ms", "20" if quick else "120"]
    r = run_child(cmd, timed=True)
    rows = json_lines(r["out"])
    for x in rows:
        x["other_load_whole_run"] = r["other_load"]
    return rows


def min_parallel_macs_value():
    """kMinParallelMacs of runtime/src/ops/linear.h (products from this size use the thread pool), or None."""
    try:
        with open(os.path.join(REPO, "runtime", "src", "ops", "linear.h")) as f:
            m = re.search(r"kMinParallelMacs\s*=\s*size_t\{1\}\s*<<\s*(\d+)", f.read())
        return 1 << int(m.group(1)) if m else None
    except OSError:
        return None


def decoder_step_layers(cfg):
    """(in, out, label) of the Linear layers one decoder step runs per decoder layer (fused self-attention
    query/key/value; the cross-attention keys/values are computed once per sentence, not per step), and the
    output projection."""
    d, ff = cfg["d_model"], cfg["d_ff"]
    per_layer = [(d, 3 * d, "self-attention QKV (fused)"), (d, d, "self-attention output"),
                 (d, d, "cross-attention query"), (d, d, "cross-attention output"), (d, ff, "feed-forward up"),
                 (ff, d, "feed-forward down")]
    return per_layer, (d, cfg["tgt_vocab_size"], "output projection")


def floor_summary(rows, n_layers, parallel):
    layers = [x for x in rows if x["shape"] != "sequence"]
    seq = [x for x in rows if x["shape"] == "sequence"][0]

    def total(key):
        return round(sum(x["count"] * key(x) for x in layers) / 1000.0, 4)
    return dict(
        decoder_layers=n_layers, layers_per_step=seq["layers"], weight_bytes=seq["weight_bytes"], macs=seq["macs"],
        min_parallel_macs=parallel, hot_1_ms=total(lambda x: x["hot_us_1"]),
        hot_best_ms=total(lambda x: min(x["hot_us_1"], x["hot_us_n"])), cold_1_ms=total(lambda x: x["cold_us_1"]),
        cold_best_ms=total(lambda x: min(x["cold_us_1"], x["cold_us_n"])),
        sequence_1_ms=round(seq["us_1"] / 1000.0, 4), sequence_n_ms=round(seq["us_n"] / 1000.0, 4),
        layers=[{k: x[k] for k in ("shape", "count", "hot_us_1", "hot_us_n", "cold_us_1", "cold_us_n")}
                for x in layers])


def decoder_floors(gemm_bench, models, quick):
    """Per model: one decoder step's int8 layers (rows = 1), each shape alone (hot: weights in cache, cold: from
    memory) and all of them in step order with distinct weights (--sequence)."""
    floors, parallel = {}, min_parallel_macs_value()
    for name, m in models.items():
        cfg = model_config(m)
        per_layer, projection = decoder_step_layers(cfg)
        n_layers = cfg["n_decoder_layers"]
        shapes = ",".join(["%dx%d" % (i, o) for i, o, _ in per_layer] * n_layers + ["%dx%d" % projection[:2]])
        cmd = [gemm_bench, "--threads", "2", "--rows", "1", "--dtype", "int8", "--shapes", shapes, "--sequence",
               "--min-ms", "10" if quick else "60"] + (["--min-parallel-macs", str(parallel)] if parallel else [])
        log("%s: decoder-step floor (XNNPACK alone)" % name)
        r = run_child(cmd, timed=True)
        floors[name] = dict(floor_summary(json_lines(r["out"]), n_layers, parallel), other_load=r["other_load"],
                            command=COMMANDS[-1])
    return floors
