"""edgemt-convert: a trained seed-layout checkpoint -> one .edgemt file."""
import argparse
import os
import signal
import sys

from . import __version__
from .calibration_data import DEFAULT_RANDOM_SEQUENCES, DEFAULT_TEXT_LINES
from .convert import DEFAULT_MAX_SIZE_RATIO, Options, convert
from .errors import ConversionError

PROG = "edgemt-convert"

EPILOG = """\
examples (from the repository root, with the shared folder beside it):
  converter/edgemt-convert ../shared/models/multi30k-ende --out m.int8.edgemt \\
      --calibration ../shared/data/multi30k/train.en
  converter/edgemt-convert ../shared/models/multi30k-ende --out m.f32.edgemt --dtype float32

calibration (int8): --calibration FILE (sentences; --calibration-size lines
spread over it, default %d) or --calibration-ids FILE (encoder id lines); with
neither, %d deterministic random id sequences (right for random checkpoints,
not for trained ones). See converter/README.md.
""" % (DEFAULT_TEXT_LINES, DEFAULT_RANDOM_SEQUENCES)


def parser():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint", help="checkpoint directory: model.pt, config.json [, spm.model]")
    p.add_argument("--out", required=True, help="output .edgemt file")
    p.add_argument("--dtype", choices=("int8", "float32"), default="int8", help="weights (default: int8)")
    p.add_argument("--calibration", metavar="FILE", help="source sentences, one per line (int8)")
    p.add_argument("--calibration-ids", metavar="FILE",
                   help="encoder inputs as space-separated ids, one per line, used as given (int8)")
    p.add_argument("--calibration-size", metavar="N", type=int,
                   help="calibration inputs to use (default: %d lines of a file, %d random sequences)"
                        % (DEFAULT_TEXT_LINES, DEFAULT_RANDOM_SEQUENCES))
    p.add_argument("--keep-float", metavar="auto|none|NAMES", default="auto",
                   help="Linears to keep float32 in an int8 file: 'auto' (default: those whose int8 error is "
                        "large, within --max-size-ratio), 'none', or comma-separated names as in the summary")
    p.add_argument("--max-size-ratio", metavar="R", type=float, default=DEFAULT_MAX_SIZE_RATIO,
                   help="auto keep-float keeps the file within R x model.pt's size (default %.2f)"
                        % DEFAULT_MAX_SIZE_RATIO)
    p.add_argument("--source-language", metavar="CODE", help="e.g. en (default: config.json source_language)")
    p.add_argument("--target-language", metavar="CODE", help="e.g. de (default: config.json target_language)")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads (default 1: the work is many small matrix products)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--version", action="version", version="%s %s" % (PROG, __version__))
    return p


def _terminate(signum, frame):
    # SIGTERM takes the same path as Ctrl-C, so the temporary file is removed
    raise KeyboardInterrupt


def main(argv=None):
    args = parser().parse_args(argv)
    if args.calibration_size is not None and args.calibration_size < 1:
        parser().error("--calibration-size must be >= 1")
    if args.threads < 1:
        parser().error("--threads must be >= 1")
    old = signal.signal(signal.SIGTERM, _terminate)
    try:
        import torch
        torch.set_num_threads(args.threads)
        convert(Options(
            checkpoint=args.checkpoint, out=args.out, dtype=args.dtype, calibration=args.calibration,
            calibration_ids=args.calibration_ids, calibration_size=args.calibration_size,
            keep_float=args.keep_float, max_size_ratio=args.max_size_ratio,
            source_language=args.source_language, target_language=args.target_language,
            progress=not args.quiet))
    except ConversionError as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("%s: interrupted; no output written" % PROG, file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, old)
    return 0
