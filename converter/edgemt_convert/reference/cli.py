"""edgemt-reference: greedy decoding or beam search with the PyTorch reference model.

--checkpoint DIR runs the float model of a checkpoint; --model FILE runs a
.edgemt file as the runtime does: float32 files in float, int8 files with the
exact int8 arithmetic of docs/int8.md (the file's int8 weights; every input
row quantized with its own range). A float32 file gives the same results as
its checkpoint.

Input: --input-ids FILE, one encoder input per line as space-separated ids,
used as given (like the shared reference/dev.src.ids: the final </s>
included; an empty line is just </s>; longer than max_positions is cut), or
--input FILE, text lines tokenized with the model's SentencePiece model
(and, for Marian models, its vocabulary: tokenizer.TextCodec; ids cut to
max_positions - 1, then </s>).
Output (stdout): one line per input line, the produced ids without <s> and
</s> (--text: detokenized text instead). --beam-size N (beam.py, the rule of
runtime/include/edgemt/translator.h) with --n-best K prints K lines per
input line, "INDEX ||| OUTPUT ||| SCORE" (INDEX counts input lines from 0;
SCORE is the normalized score, %.9g); --scores prefixes each single line
with its score and a tab. Without --beam-size and --max-length, a model's
own defaults (Config.default_beam_size, default_max_length) apply.
--dump-npz F --dump-count K: for the first K inputs, s{i}_src_ids [S],
s{i}_encoder_out [S, d], s{i}_logits [steps, V] (the last position's logits
at each step, the step that produced </s> included; int8 files: the float
output of the int8 output projection) and
s{i}_out_ids [steps], like ../shared/models/multi30k-ende/reference/golden.npz.
"""
import argparse
import sys

import numpy as np

from ..errors import ConversionError

PROG = "edgemt-reference"


def parser():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--checkpoint", metavar="DIR", help="checkpoint directory (float model)")
    src.add_argument("--model", metavar="FILE", help=".edgemt file (float32 or int8)")
    inp = p.add_mutually_exclusive_group(required=True)
    inp.add_argument("--input-ids", metavar="FILE", help="encoder inputs, space-separated ids per line")
    inp.add_argument("--input", metavar="FILE", help="source text, one sentence per line")
    p.add_argument("--text", action="store_true", help="print detokenized text instead of ids")
    p.add_argument("--max-length", type=int, metavar="N", help="exactly N decoding steps at most (default: min(2S+10, max_positions))")
    p.add_argument("--min-length", type=int, default=0, metavar="N", help="no </s> before N tokens")
    p.add_argument("--beam-size", type=int, metavar="N", help="1: greedy (default: the model's, else 1)")
    p.add_argument("--length-penalty", type=float, default=1.0, metavar="A", help="beam search: score / length^A")
    p.add_argument("--n-best", type=int, default=0, metavar="K", help="K hypotheses per input (beam search)")
    p.add_argument("--scores", action="store_true", help="prefix each line with its score and a tab")
    p.add_argument("--dump-npz", metavar="FILE", help="write encoder outputs and step logits of the first inputs")
    p.add_argument("--dump-count", type=int, default=3, metavar="K")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--threads", type=int, default=1)
    return p


def _load(args):
    from ..sources import load_checkpoint
    from ..format.reader import read
    if args.checkpoint:
        model = load_checkpoint(args.checkpoint).model
    else:
        model = read(args.model)
    return model


def parse_id_line(line, vocab_size, where):
    try:
        ids = [int(t) for t in line.split()]
    except ValueError:
        raise ConversionError("%s: not a list of integer ids" % where)
    bad = [i for i in ids if not 0 <= i < vocab_size]
    if bad:
        raise ConversionError("%s: id %d is outside the source vocabulary (size %d)" % (where, bad[0], vocab_size))
    return ids


def _read_inputs(args, model, codec):
    from .decode import source_ids
    c = model.config
    path = args.input_ids or args.input
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise ConversionError("%s: cannot read (%s)" % (path, e.strerror or e))
    if lines and lines[-1] == "":
        lines.pop()
    if args.input:
        return [source_ids(codec, l, c) for l in lines]
    out = []
    for n, line in enumerate(lines, 1):
        ids = parse_id_line(line, c.source_vocab_size, "%s:%d" % (path, n))[: c.max_positions]
        out.append(ids or [c.eos_id])
    return out


def _print_hypotheses(ref, sources, args, codec):
    from .beam import beam_search
    n = max(1, args.n_best)
    for index, source in enumerate(sources):
        hyps = beam_search(ref, source, args.beam_size, length_penalty=args.length_penalty, num_hypotheses=n,
                           max_length=args.max_length, min_length=args.min_length)
        for h in hyps:
            out = codec.decode(h.ids) if args.text else " ".join(map(str, h.ids))
            if args.n_best:
                sys.stdout.write("%d ||| %s ||| %.9g\n" % (index, out, h.score))
            else:
                sys.stdout.write("%.9g\t%s\n" % (h.score, out))


def main(argv=None):
    args = parser().parse_args(argv)
    for name in ("max_length", "min_length", "batch_size", "threads", "dump_count", "beam_size", "n_best"):
        v = getattr(args, name)
        if v is not None and v < (1 if name in ("max_length", "batch_size", "threads", "beam_size") else 0):
            parser().error("--%s is out of range" % name.replace("_", "-"))
    try:
        import torch
        torch.set_num_threads(args.threads)
        from .decode import greedy
        from .model import ReferenceModel
        from ..format.tokenizer import TextCodec
        model = _load(args)
        if args.beam_size is None:
            args.beam_size = model.config.default_beam_size or 1
        if args.max_length is None and model.config.default_max_length:
            args.max_length = model.config.default_max_length
        if args.n_best > args.beam_size:
            raise ConversionError("--n-best must be at most the beam size (%d)" % args.beam_size)
        if (args.n_best or args.scores or args.beam_size > 1) and args.dump_npz:
            raise ConversionError("--dump-npz is for greedy decoding without scores (--beam-size 1)")
        codec = None
        if args.input or args.text:
            if model.tokenizer is None:
                raise ConversionError("the model has no tokenizer: use --input-ids and ids output")
            codec = TextCodec(model)
        sources = _read_inputs(args, model, codec)
        if args.beam_size > 1 or args.n_best or args.scores:
            _print_hypotheses(ReferenceModel(model), sources, args, codec)
            return 0
        record = args.dump_count if args.dump_npz else 0
        outputs, records = greedy(ReferenceModel(model), sources, max_length=args.max_length,
                                  min_length=args.min_length, batch_size=args.batch_size, record=record)
        for ids in outputs:
            sys.stdout.write((codec.decode(ids) if args.text else " ".join(map(str, ids))) + "\n")
        if args.dump_npz:
            arrays = {}
            for i, rec in enumerate(records):
                arrays["s%d_src_ids" % i] = np.array(sources[i], dtype=np.int32)
                arrays["s%d_encoder_out" % i] = rec["encoder_out"].astype(np.float32)
                arrays["s%d_logits" % i] = rec["logits"]
                arrays["s%d_out_ids" % i] = rec["out_ids"]
            np.savez(args.dump_npz, **arrays)
    except ConversionError as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
