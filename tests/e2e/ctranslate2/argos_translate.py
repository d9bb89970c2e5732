#!/usr/bin/python3
"""Argos Translate's pipeline on an unpacked package, with CTranslate2
itself (../shared/bench/ct2, run with its env.sh), one sentence a line, as
argostranslate 1.11's translate.py runs it (apply_packaged_translation):
SentencePiece pieces in, translate_batch with beam_size 4, length_penalty
0.2, replace_unknowns, batches of 32 tokens, then decode_pieces with "▁"
and "_" made spaces and one leading space dropped. Argos Translate itself
is not installed here; this is its call, read from its source.

    argos_translate.py PACKAGE_DIR IN OUT
"""
import os
import sys

import ctranslate2
import sentencepiece


def main():
    package, source, target = sys.argv[1:4]
    sp = sentencepiece.SentencePieceProcessor(model_file=os.path.join(package, "sentencepiece.model"))
    translator = ctranslate2.Translator(os.path.join(package, "model"), device="cpu", inter_threads=1, intra_threads=1)
    with open(source, encoding="utf-8") as f:
        lines = f.read().split("\n")[:-1]
    pieces = [sp.encode(line, out_type=str) for line in lines]
    results = translator.translate_batch(pieces, replace_unknowns=True, max_batch_size=32, batch_type="tokens",
                                         beam_size=4, num_hypotheses=1, length_penalty=0.2, return_scores=True)
    with open(target, "w", encoding="utf-8") as f:
        for r in results:
            value = sp.decode_pieces(r.hypotheses[0]).replace("\u2581", " ").replace("_", " ")
            f.write((value[1:] if value.startswith(" ") else value) + "\n")


if __name__ == "__main__":
    main()
