"""edgemt-convert: a trained seed-layout checkpoint, an OPUS-MT / Hugging Face
Marian model directory, a CTranslate2 model directory or an Argos Translate
package -> one .edgemt file."""
import argparse
import signal
import sys

from . import __version__
from .convert import Options, convert
from .errors import ConversionError

PROG = "edgemt-convert"

EPILOG = """\
examples (from the repository root, with the shared folder beside it):
  converter/edgemt-convert ../shared/models/multi30k-ende --out m.int8.edgemt \\
      --source-language en --target-language de
  converter/edgemt-convert ../shared/models/multi30k-ende --out m.f32.edgemt --dtype float32
  converter/edgemt-convert ../shared/models/multi30k-ende --out m.int4.edgemt --dtype int4
  converter/edgemt-convert opus-mt-en-de --out opus-mt-en-de.int8.edgemt   # a Marian model from the hub
  converter/edgemt-convert ende_ct2/ --out ende.int8.edgemt                   # a CTranslate2 directory
  converter/edgemt-convert translate-en_de-1_9.argosmodel --out en-de.int8.edgemt  # an Argos Translate package

int8 (format 2.0, docs/int8.md): weights symmetric per row; the runtime
quantizes each input row of an int8 Linear itself, so nothing is calibrated
and no data is needed. int4 (format 2.1, docs/int4.md): Linear weights in 4
bits with a bfloat16 scale per block of inputs, embeddings int8; a layer
whose int4 output error is too large stays int8. See converter/README.md.
"""


def parser():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint", help="checkpoint directory: model.pt, config.json [, spm.model]; a Marian model "
                                      "directory (config.json model_type marian); a CTranslate2 model directory "
                                      "(model.bin); or an Argos Translate package (.argosmodel, or its unpacked "
                                      "folder): converter/README.md")
    p.add_argument("--out", required=True, help="output .edgemt file")
    p.add_argument("--dtype", choices=("int8", "int4", "float32"), default="int8", help="weights (default: int8)")
    p.add_argument("--block-size", metavar="N", type=int,
                   help="int4: inputs per scale, a multiple of 32 (default: 256, docs/int4.md)")
    p.add_argument("--keep-float", metavar="none|NAMES", default="none",
                   help="Linears whose weight stays float32 in an int8 or int4 file: 'none' (default) or "
                        "comma-separated names as in the summary")
    p.add_argument("--source-language", metavar="CODE", help="e.g. en (default: config.json source_language; Marian: tokenizer_config.json source_lang)")
    p.add_argument("--target-language", metavar="CODE", help="e.g. de (default: config.json target_language; Marian: tokenizer_config.json target_lang)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--version", action="version", version="%s %s" % (PROG, __version__))
    return p


def _terminate(signum, frame):
    # SIGTERM takes the same path as Ctrl-C, so the temporary file is removed
    raise KeyboardInterrupt


def main(argv=None):
    args = parser().parse_args(argv)
    old = signal.signal(signal.SIGTERM, _terminate)
    try:
        convert(Options(
            checkpoint=args.checkpoint, out=args.out, dtype=args.dtype, keep_float=args.keep_float, block_size=args.block_size,
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
