#!/usr/bin/python3
"""CTranslate2 itself (../shared/bench/ct2, run with its env.sh) translating
token ids, for tests/e2e/test_ctranslate2.py: the peer an import is held to.

    ct2_translate.py MODEL_DIR IDS_IN IDS_OUT --beam-size N --max-length N --min-length N

IDS_IN: one source a line, space-separated ids as the model takes them (with
</s> when the model's sources end with one); IDS_OUT: the best hypothesis's
ids, without </s>. Ids map to the vocabularies' lines one to one.
"""
import argparse
import json
import os

import ctranslate2


def vocabulary(model_dir, side):
    for name in ("shared_vocabulary", "%s_vocabulary" % side):
        for ext in (".json", ".txt"):
            path = os.path.join(model_dir, name + ext)
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    return json.load(f) if ext == ".json" else f.read().split("\n")[:-1]
    raise SystemExit("no %s vocabulary in %s" % (side, model_dir))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir")
    ap.add_argument("ids_in")
    ap.add_argument("ids_out")
    ap.add_argument("--beam-size", type=int, default=1)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--min-length", type=int, default=1)
    ap.add_argument("--compute-type", default="default")
    args = ap.parse_args()
    source, target = vocabulary(args.model_dir, "source"), vocabulary(args.model_dir, "target")
    target_ids = {t: i for i, t in reversed(list(enumerate(target)))}
    with open(args.ids_in) as f:
        sources = [[source[int(i)] for i in line.split()] for line in f.read().split("\n")[:-1]]
    translator = ctranslate2.Translator(args.model_dir, compute_type=args.compute_type, intra_threads=1)
    results = translator.translate_batch(sources, beam_size=args.beam_size, max_decoding_length=args.max_length,
                                         min_decoding_length=args.min_length, max_batch_size=32)
    with open(args.ids_out, "w") as f:
        for r in results:
            f.write(" ".join(str(target_ids[t]) for t in r.hypotheses[0]) + "\n")


if __name__ == "__main__":
    main()
