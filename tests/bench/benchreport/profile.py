"""Where the time goes at batch 1 (the main run): the encoder, the decoder step, and the step against its
floor, its Linear layers timed alone in XNNPACK (edgemt-xnnpack-gemm-bench --shapes ... --sequence)."""
from benchlib.markdown import table

COLUMNS = ["model (int8)", "threads", "encoder ms/sentence", "decoder ms/step", "of it in XNNPACK ms",
           "floor: each layer alone ms", "floor: layers in step order ms", "step / floor in order"]


def row(name, e, floor):
    runs = [e["runs"]["b1_t1"], e["runs"]["b1_t2"]]
    r = min((x for x in runs if x["decoder_ms_per_step"] > 0), key=lambda x: x["decoder_ms_per_step"])
    step, seq = r["decoder_ms_per_step"], min(floor["sequence_1_ms"], floor["sequence_n_ms"])
    return [name, r["threads"], "%.3f" % r["encoder_ms_per_sentence"], "%.4f" % step,
            "%.4f" % r["profile"]["decoder_per_step"]["xnnpack_ms"], "%.3f" % floor["hot_best_ms"], "%.3f" % seq,
            "%.2fx" % (step / seq)]


def section(data):
    E, F = data["results"]["edgemt"], data["results"].get("decoder_floors") or {}
    rows = [row(n, E[n]["int8"], F[n]) for n in E if n in F]
    if not rows:
        return []
    parallel = next(iter(F.values())).get("min_parallel_macs")
    lines = ["### Where the time goes (batch 1)", "",
             "Encoder per sentence and one decoder step (token choice included), at the thread count with the "
             "faster step, timed without profiling; *in XNNPACK*: the step's time inside XNNPACK operators (every "
             "Linear layer with the int8 quantization of its input) from a separate profiled pass. Floor: the "
             "step's int8 Linear layers timed alone with the same XNNPACK, one row: *each layer alone* sums each "
             "shape timed with its weights in cache at its better thread count; *in step order* runs them all "
             "with distinct weights one after the other (the thread pool from %s multiply-adds, as the runtime), "
             "the better of 1 and 2 threads." % ("{:,}".format(parallel) if parallel else "kMinParallelMacs"), ""]
    return lines + table(COLUMNS, rows) + ["", "Every configuration's profile shares (attention, LayerNorm, "
                                           "embedding, other; encoder and step): BENCHMARKS.json `results.edgemt`; "
                                           "the floor per layer shape: `results.decoder_floors`.", ""]
