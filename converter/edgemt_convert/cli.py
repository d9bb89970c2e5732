"""edgemt-convert: a trained seed-layout checkpoint, an OPUS-MT / Hugging Face
Marian model directory, a Marian model (Firefox Translations, OPUS-MT
releases), a CTranslate2 model directory or an Argos Translate
package -> one .edgemt file, optionally with a vocabulary shortlist; or an
existing .edgemt file given a shortlist."""
import argparse
import signal
import sys

from . import __version__
from .amend import amend, is_edgemt_file
from .convert import Options, convert
from .errors import ConversionError
from .shortlist.request import Request

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
  converter/edgemt-convert ende/ --out ende.int8.edgemt    # Firefox Translations: model.ende.intgemm.alphas.bin.gz, ...
  converter/edgemt-convert ../shared/models/multi30k-ende --out m.int8.edgemt \\
      --shortlist-corpus ../shared/data/multi30k/train.en ../shared/data/multi30k/train.de
  converter/edgemt-convert m.int8.edgemt --out m.sl.edgemt --shortlist-vmap vmap.txt  # a shortlist for a file
  converter/edgemt-convert m.sl.edgemt --export-vmap vmap.txt       # its shortlist for CTranslate2's use_vmap

int8 (format 2.0, docs/int8.md): weights symmetric per row; the runtime
quantizes each input row of an int8 Linear itself, so nothing is calibrated
and no data is needed. int4 (format 2.1, docs/int4.md): Linear weights and
(format 2.6) token embeddings in 4 bits with a bfloat16 scale per block of
inputs; --int8-embeddings keeps the embeddings int8. A shortlist (format 2.7,
docs/shortlist.md) limits the output layer to the target ids a source's
tokens allow. See converter/README.md.
"""


def parser():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint", help="checkpoint directory: model.pt, config.json [, spm.model]; a Marian model "
                                      "directory (config.json model_type marian); a CTranslate2 model directory "
                                      "(model.bin); an Argos Translate package (.argosmodel, or its unpacked "
                                      "folder); a Marian model folder or file (Firefox Translations' model.*.bin, "
                                      "an OPUS-MT release's .npz and decoder.yml): converter/README.md; or a .edgemt "
                                      "file, to give it a shortlist")
    p.add_argument("--out", help="output .edgemt file (for a .edgemt input: with a --shortlist-* option)")
    p.add_argument("--dtype", choices=("int8", "int4", "float32"), help="weights (default: int8)")
    p.add_argument("--block-size", metavar="N", type=int,
                   help="int4: inputs per scale, a multiple of 32 (default: 256, docs/int4.md)")
    p.add_argument("--int8-embeddings", action="store_true",
                   help="int4: keep the token embeddings (and a projection tied to them) int8, as before format "
                        "2.6: a larger file (docs/int4.md)")
    p.add_argument("--embedding-block-size", metavar="N", type=int,
                   help="int4: inputs per scale of the token embeddings, a multiple of 32 (default: 32; an "
                        "embedding the output projection is tied to: --block-size's; docs/int4.md)")
    p.add_argument("--keep-float", metavar="none|NAMES", default="none",
                   help="Linears whose weight stays float32 in an int8 or int4 file: 'none' (default) or "
                        "comma-separated names as in the summary")
    p.add_argument("--source-language", metavar="CODE", help="e.g. en (default: config.json source_language; Marian: tokenizer_config.json source_lang)")
    p.add_argument("--target-language", metavar="CODE", help="e.g. de (default: config.json target_language; Marian: tokenizer_config.json target_lang)")
    g = p.add_argument_group("vocabulary shortlist (format 2.7, docs/shortlist.md)")
    g.add_argument("--shortlist-corpus", nargs=2, metavar=("SRC", "TGT"),
                   help="learn one from a parallel corpus: two aligned UTF-8 text files, one sentence per line "
                        "(IBM model 1)")
    g.add_argument("--shortlist-k", metavar="K", type=int, help="candidates per source id (default: 50)")
    g.add_argument("--shortlist-frequent", metavar="N", type=int,
                   help="most frequent target ids every translation may use (default: 100)")
    g.add_argument("--shortlist-iterations", metavar="N", type=int, help="EM iterations (default: 5)")
    g.add_argument("--shortlist-vmap", metavar="FILE", help="import a CTranslate2 vocabulary map (vmap.txt)")
    g.add_argument("--shortlist-bergamot", metavar="FILE", help="import a Bergamot/marian binary shortlist (lex.*.bin)")
    g.add_argument("--no-shortlist", action="store_true",
                   help="leave out the shortlist the model comes with (a Firefox model's lex.*.s2t.bin)")
    g.add_argument("--export-vmap", metavar="FILE",
                   help="also write the file's shortlist as a CTranslate2 vmap.txt (for use_vmap)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--version", action="version", version="%s %s" % (PROG, __version__))
    return p


def _terminate(signum, frame):
    # SIGTERM takes the same path as Ctrl-C, so the temporary file is removed
    raise KeyboardInterrupt


def _options(p, args):
    """Options from the arguments; usage errors (exit 2) for what does not fit the input."""
    request = Request(corpus=tuple(args.shortlist_corpus) if args.shortlist_corpus else None, k=args.shortlist_k,
                      frequent=args.shortlist_frequent, iterations=args.shortlist_iterations,
                      vmap=args.shortlist_vmap, bergamot=args.shortlist_bergamot, export_vmap=args.export_vmap)
    edgemt = is_edgemt_file(args.checkpoint)
    if edgemt:
        given = [o for o, v in (("--dtype", args.dtype), ("--block-size", args.block_size)) if v is not None]
        if args.keep_float != "none":
            given.append("--keep-float")
        if args.int8_embeddings:
            given.append("--int8-embeddings")
        if args.embedding_block_size is not None:
            given.append("--embedding-block-size")
        if args.no_shortlist:
            given.append("--no-shortlist")
        if given:
            p.error("%s: not for a .edgemt input (it only gets a shortlist or its languages)" % ", ".join(given))
    elif args.out is None:
        p.error("the following arguments are required: --out")
    chosen = [o for o, v in (("--shortlist-corpus", args.shortlist_corpus), ("--shortlist-vmap", args.shortlist_vmap),
                             ("--shortlist-bergamot", args.shortlist_bergamot)) if v is not None]
    if args.no_shortlist and chosen:
        p.error("--no-shortlist and %s: one or the other" % " and ".join(chosen))
    opts = Options(checkpoint=args.checkpoint, out=args.out, dtype=args.dtype or "int8", keep_float=args.keep_float,
                   block_size=args.block_size, int8_embeddings=args.int8_embeddings,
                   embedding_block_size=args.embedding_block_size,
                   source_language=args.source_language,
                   target_language=args.target_language, progress=not args.quiet, shortlist=request,
                   no_shortlist=args.no_shortlist)
    return opts, edgemt


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    opts, edgemt = _options(p, args)
    old = signal.signal(signal.SIGTERM, _terminate)
    try:
        (amend if edgemt else convert)(opts)
    except ConversionError as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 1
    except OSError as e:
        # A file that could not be read or written, wherever it was met: one
        # line naming it (no traceback); write_atomic left no partial output.
        where = e.filename if e.filename is not None else (opts.out or opts.checkpoint)
        print("%s: error: %s: %s" % (PROG, where, e.strerror or e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("%s: interrupted; no output written" % PROG, file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, old)
    return 0
