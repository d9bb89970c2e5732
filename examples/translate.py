#!/usr/bin/python3
"""Translates standard input line by line with the Python package `edgemt`:
exactly one output line per input line, in batches, with bounded memory.

    PYTHONPATH=build/python examples/translate.py models/multi30k-ende.int8.edgemt < input.txt
    examples/translate.py MODEL --stream      # each line's translation piece by piece
"""
import argparse
import sys

import edgemt


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--beam-size", type=int, default=1)
    parser.add_argument("--stream", action="store_true", help="write pieces as they come, a line at a time")
    args = parser.parse_args()
    translator = edgemt.Translator(args.model, max_batch_size=args.batch_size, max_beam_size=args.beam_size)
    if args.stream:
        for line in sys.stdin:
            for piece in translator.translate_stream(line.rstrip("\r\n")):
                sys.stdout.write(piece)
                sys.stdout.flush()
            sys.stdout.write("\n")
        return
    for translation in translator.translate_iterable(sys.stdin, batch_size=args.batch_size,
                                                     beam_size=args.beam_size):
        print(translation)


if __name__ == "__main__":
    main()
