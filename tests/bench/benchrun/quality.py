"""Accuracy of the outputs: BLEU on the Multi30k dev set, agreement of the random checkpoints' outputs."""
from benchlib.outputs import bleu, same_lines, token_agreement
from benchlib.paths import FLOAT32_GREEDY


def multi30k(edgemt, torch, quick):
    q = {}
    for dtype in ("int8", "float32"):
        runs = edgemt[dtype]["runs"]
        out = runs["b1_t1"]["output_file"]
        q["edgemt_" + dtype] = bleu(out) if not quick else dict(bleu=None, line="(quick: not scored)")
        same, n = same_lines(out, FLOAT32_GREEDY)
        q["edgemt_%s_same_as_reference_fp32" % dtype] = [same, n]
        q["edgemt_%s_1_vs_2_threads_identical" % dtype] = same_lines(out, runs["b1_t2"]["output_file"])[0] == n
    q["reference_fp32_committed"] = bleu(FLOAT32_GREEDY)
    for dtype in ("int8", "float32"):
        t = torch.get("%s_t1" % dtype)
        if t and t["sentences"] == 500:
            q["torch_" + dtype] = bleu(t["output"])
    return q


def random_model(edgemt, torch):
    e = edgemt
    q = dict(edgemt_int8_vs_float32=token_agreement(e["int8"]["runs"]["b1_t1"]["output_file"],
                                                    e["float32"]["runs"]["b1_t1"]["output_file"], 100))
    for dtype in ("int8", "float32"):
        t = torch.get("%s_t1" % dtype)
        if t:
            q["edgemt_vs_torch_" + dtype] = token_agreement(e[dtype]["runs"]["b1_t1"]["output_file"], t["ids"],
                                                            t["sentences"])
    return q


def quality(results, models, quick):
    """{model: figures}: BLEU and identical lines for multi30k, token agreement for the random models."""
    return {name: (multi30k(results["edgemt"][name], results["torch"].get(name, {}), quick) if m["kind"] == "trained"
                   else random_model(results["edgemt"][name], results["torch"].get(name, {})))
            for name, m in models.items()}
