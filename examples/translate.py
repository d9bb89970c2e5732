#!/usr/bin/python3
"""Translates standard input line by line with the Python package `edgemt`:
exactly one output line per input line, in order, in batches, with bounded
memory however long the input is.

    PYTHONPATH=build/python examples/translate.py models/multi30k-ende.int8.edgemt < input.txt
    examples/translate.py MODEL --beam-size 4 < input.txt
    examples/translate.py MODEL --stream      # each line's translation piece by piece

(PYTHONPATH is not needed once the package is installed: docs/python.md.)
Input and output are UTF-8. From a terminal, each line is translated as
soon as it is typed; from a file or a pipe, batch_size lines at a time.
"""
import argparse
import sys

import edgemt


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="a model file (.edgemt)")
    parser.add_argument("--batch-size", type=int, default=32, help="lines translated together (default 32)")
    parser.add_argument("--beam-size", type=int, default=1, help="1: greedy (default); more: beam search")
    parser.add_argument("--threads", type=int, default=1, help="threads for the matrix products (0: all cores)")
    parser.add_argument("--stream", action="store_true", help="write each translation piece by piece (greedy)")
    args = parser.parse_args()
    sys.stdin.reconfigure(encoding="utf-8", errors="replace")
    sys.stdout.reconfigure(encoding="utf-8")
    try:
        translator = edgemt.Translator(args.model, threads=args.threads, max_batch_size=args.batch_size,
                                       max_beam_size=args.beam_size)
    except (OSError, RuntimeError, ValueError) as e:  # the runtime's message says why
        sys.exit("translate.py: %s: %s" % (args.model, e))

    if args.stream:
        for line in sys.stdin:
            for piece in translator.translate_stream(line.rstrip("\r\n")):
                sys.stdout.write(piece)
                sys.stdout.flush()  # show each piece as it comes
            sys.stdout.write("\n")
        return

    interactive = sys.stdin.isatty()
    for translation in translator.translate_iterable(sys.stdin, batch_size=1 if interactive else args.batch_size,
                                                     beam_size=args.beam_size):
        print(translation, flush=interactive)


if __name__ == "__main__":
    main()
