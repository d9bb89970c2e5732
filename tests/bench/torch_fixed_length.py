#!/usr/bin/python3
"""PyTorch reference timing for the random benchmark checkpoints.

Loads a seed-layout checkpoint (model.pt + config.json, no tokenizer) with
the model classes of ../shared/models/multi30k-ende/reference.py, optionally
applies torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, qint8)
(what `reference.py --int8` does), and greedy-decodes id sequences at batch 1
with the reference's KV-cache-free loop: the encoder runs once, and at every
step the whole prefix goes through the decoder again and the argmax of the
last position's logits is taken. </s> is suppressed until --length tokens are
out and decoding stops at exactly --length tokens (as edgemt-bench
--min-length N --max-length N does).

    torch_fixed_length.py --checkpoint DIR --input-ids FILE [--limit N]
        [--length 32] [--threads N] [--int8] [--warmup 1] [--output FILE]
        [--reference-py PATH]

Prints one JSON object: sentences, output tokens, wall time of the decoding
loop (load and the untimed warm-up sentence excluded), mean / median / min
milliseconds per sentence, tokens/s, load seconds.
"""
import argparse
import importlib.util
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib.stats import median  # noqa: E402

DEFAULT_REFERENCE = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "models", "multi30k-ende",
                                                  "reference.py"))


def load_reference(path):
    spec = importlib.util.spec_from_file_location("edgemt_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", required=True, help="directory with model.pt and config.json")
    ap.add_argument("--input-ids", required=True, help="one source per line: space-separated ids, </s> included")
    ap.add_argument("--limit", type=int, default=0, help="decode only the first N sources")
    ap.add_argument("--length", type=int, default=32, help="output tokens per sentence (forced)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--int8", action="store_true", help="dynamic int8 quantization of nn.Linear modules")
    ap.add_argument("--warmup", type=int, default=1, help="1: decode the first source once, untimed")
    ap.add_argument("--output", help="output ids, one line per source")
    ap.add_argument("--reference-py", default=DEFAULT_REFERENCE)
    return ap.parse_args()


def load_model(args, torch):
    """The checkpoint in reference.py's classes (quantize_dynamic'd with --int8) and its config."""
    import torch.nn as nn
    ref = load_reference(args.reference_py)
    with open(os.path.join(args.checkpoint, "config.json")) as f:
        cfg = json.load(f)
    assert cfg.get("arch") == "seed-transformer" and cfg.get("norm") == "post" and cfg.get("activation") == "relu"
    assert cfg.get("position_layout", "interleaved") == "interleaved" and not cfg.get("tie_output", False)
    model = ref.Seq2SeqTransformer(cfg)
    model.load_state_dict(torch.load(os.path.join(args.checkpoint, "model.pt"), map_location="cpu"), strict=True)
    model.eval()
    if args.int8:
        model = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
    return model, cfg


def greedy(torch, model, cfg, src_ids, length):
    """Exactly `length` tokens, the whole prefix through the decoder at every step (no KV cache)."""
    with torch.no_grad():
        src = torch.tensor([src_ids], dtype=torch.long)
        memory, src_pad_mask = model.encode(src)
        out = [cfg["bos_id"]]
        for _ in range(length):
            tgt = torch.tensor([out], dtype=torch.long)
            logits = model.decoder(tgt, memory, src_pad_mask)[0, -1]
            logits[cfg["eos_id"]] = float("-inf")  # forced length: </s> never chosen
            out.append(int(torch.argmax(logits).item()))
    return out[1:]


def main():
    args = parse_args()
    t_load = time.perf_counter()
    import torch
    torch.set_num_threads(args.threads)
    model, cfg = load_model(args, torch)
    load_s = time.perf_counter() - t_load
    with open(args.input_ids) as f:
        sources = [[int(t) for t in line.split()] for line in f if line.strip()]
    if args.limit:
        sources = sources[: args.limit]
    if sources and args.warmup:
        greedy(torch, model, cfg, sources[0], args.length)
    outputs, times = [], []
    t0 = time.perf_counter()
    for src_ids in sources:
        s0 = time.perf_counter()
        outputs.append(greedy(torch, model, cfg, src_ids, args.length))
        times.append((time.perf_counter() - s0) * 1000.0)
    wall = time.perf_counter() - t0
    if args.output:
        with open(args.output, "w") as f:
            f.write("".join(" ".join(map(str, ids)) + "\n" for ids in outputs))
    tokens, n = sum(len(o) for o in outputs), len(times)
    print(json.dumps(dict(sentences=n, output_tokens=tokens, wall_s=round(wall, 4),
                          mean_ms_per_sentence=round(wall * 1000.0 / n, 3), median_sentence_ms=round(median(times), 3),
                          min_sentence_ms=round(min(times), 3), tokens_per_s=round(tokens / wall, 1),
                          load_s=round(load_s, 3), threads=args.threads, int8=args.int8,
                          torch=torch.__version__, kv_cache=False)))


if __name__ == "__main__":
    sys.exit(main())
