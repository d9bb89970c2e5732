"""The conversion pipeline: checkpoint directory -> .edgemt file, with summary.

  load + validate -> float model_ir: the importer of the directory's format
  (sources/: the seed layout, a Hugging Face Marian directory)
  float32: write it.
  int8:    quantize the weights per row (quantize/model.py), keeping the
           Linears named by --keep-float in float32 and the int8 weights a
           format stored quantized (CTranslate2's) as they are; write it
           with the quantization report in Metadata.quantization_summary.
  int4:    measure each Linear's int4 error on the model's own activations
           (quantize/int4_plan.py, recorded by reference/record.py), then
           quantize as int8 with the Linears that pass in int4 (docs/int4.md);
           the report names the layers kept in int8.
  shortlist (--shortlist-*, format 2.7, docs/shortlist.md): built from a
           parallel corpus or imported (shortlist/), given to the model before
           quantization; --export-vmap writes it as a CTranslate2 vmap.txt too.
           A model that comes with one (a Firefox model's lex.*.s2t.bin) gets it
           without an option, unless --no-shortlist.

Nothing is calibrated (docs/int8.md, format 2.0): a quantized file is a
function of the checkpoint alone.
"""
import os
import sys
import time
from dataclasses import dataclass, field
from typing import List, Optional

from .errors import ConversionError
from .format import model_ir as ir
from .outfile import check_writable, write_atomic
from .progress import Steps
from .shortlist.request import Request, make_shortlist, vmap_bytes
from .sources import load_checkpoint


@dataclass
class Options:
    checkpoint: str
    out: str
    dtype: str = "int8"
    keep_float: str = "none"              # "none" or comma-separated Linear names
    block_size: Optional[int] = None      # int4: inputs per scale (default int4_plan.DEFAULT_BLOCK)
    int8_embeddings: bool = False         # int4: token embeddings int8 (--int8-embeddings)
    embedding_block_size: Optional[int] = None  # int4: inputs per scale of the embeddings (int4_plan's default)
    source_language: Optional[str] = None
    target_language: Optional[str] = None
    progress: bool = True
    shortlist: Request = field(default_factory=Request)     # --shortlist-* and --export-vmap
    no_shortlist: bool = False            # --no-shortlist: not the shortlist the model comes with


@dataclass
class Result:
    model: ir.Model
    size: int
    summary: str
    notes: List[str] = field(default_factory=list)


def convert(opts, out=None):
    """Runs the conversion and writes opts.out; returns a Result."""
    out = out or sys.stdout
    from .format.writer import serialize
    if opts.dtype not in ("int8", "int4", "float32"):
        raise ConversionError("unknown --dtype %r (expected int8, int4 or float32)" % opts.dtype)
    if opts.block_size is not None and (opts.dtype != "int4" or opts.block_size <= 0 or opts.block_size % 32):
        raise ConversionError("--block-size applies to int4 files and must be a positive multiple of 32")
    if opts.int8_embeddings and opts.dtype != "int4":
        raise ConversionError("--int8-embeddings applies to int4 files only (int8 files have int8 embeddings)")
    eb = opts.embedding_block_size
    if eb is not None and (opts.dtype != "int4" or opts.int8_embeddings or eb <= 0 or eb % 32):
        raise ConversionError("--embedding-block-size applies to int4 files with int4 embeddings and must be a "
                              "positive multiple of 32")
    check_writable(opts.out)
    opts.shortlist.source()                    # conflicting shortlist options fail before loading
    if opts.shortlist.export_vmap is not None:
        check_writable(opts.shortlist.export_vmap)
    steps = Steps(opts.progress)
    t0 = time.perf_counter()
    imported = load_checkpoint(opts.checkpoint, opts.source_language, opts.target_language, opts.dtype)
    model, weights, notes = imported.model, imported.weights, list(imported.notes)
    keep = parse_keep_float(opts.keep_float, model)
    if keep and opts.dtype == "float32":
        raise ConversionError("--keep-float applies to int8 and int4 files only")
    steps.timed("load", t0)
    weights = (os.path.basename(weights), os.path.getsize(weights))
    shortlist, shortlist_notes, seconds = _shortlist(model, imported, opts)
    notes += shortlist_notes
    if shortlist is not None:
        model.set_shortlist(shortlist)
        steps.timings.append(("shortlist", seconds))
    vmap, vmap_notes = vmap_bytes(model, opts.shortlist)
    notes += vmap_notes

    quant = None
    if opts.dtype == "int8":
        model, quant = to_int8(model, keep, steps, stored=imported.quantized)
    elif opts.dtype == "int4":
        model, quant = to_int4(model, keep, opts.block_size, steps, stored=imported.quantized,
                               int8_embeddings=opts.int8_embeddings, embedding_block=eb)

    from .summary import summarize
    t0 = time.perf_counter()
    data = serialize(model)
    text = summarize(model, len(data), weights, notes, quant, opts)
    if quant is not None:
        # A quantized file carries its own quantization report, which states the
        # file's size: settle the size with the report inside (the number
        # of digits rarely changes, so this loops once or twice).
        for _ in range(5):
            model.metadata.quantization_summary = text
            data = serialize(model)
            again = summarize(model, len(data), weights, notes, quant, opts)
            if again == text:
                break
            text = again
    write_atomic(opts.out, data)
    if vmap is not None:
        write_atomic(opts.shortlist.export_vmap, vmap)
    steps.timed("write", t0)
    timing = ", ".join("%s %.1fs" % t for t in steps.timings)
    print(text, file=out)
    print("time: %s" % timing, file=out)
    return Result(model=model, size=len(data), summary=text, notes=notes)


def _shortlist(model, imported, opts):
    """(model_ir.Shortlist or None, notes, seconds): the --shortlist-* option's,
    else the one the model comes with (Imported.shortlist) unless --no-shortlist;
    a Bergamot file through the importer's own reader when it has one."""
    request = opts.shortlist
    if opts.no_shortlist and request.source() is not None:
        raise ConversionError("--no-shortlist and %s: one or the other" % request.source())
    path, shipped = request.bergamot, False
    if request.source() is None and imported.shortlist is not None:
        if opts.no_shortlist:
            return None, ["%s: the shortlist beside the model is left out (--no-shortlist)"
                          % os.path.basename(imported.shortlist)], 0.0
        path, shipped = imported.shortlist, True
    if path is None or imported.read_shortlist is None:
        return make_shortlist(model, request)
    t0 = time.perf_counter()
    shortlist, notes = imported.read_shortlist(path, model, shipped)
    return shortlist, notes, time.perf_counter() - t0


@dataclass
class Quantization:
    reports: list                    # quantize.model.TensorReport per tensor
    kept_float: List[str]
    int4: Optional[object] = None    # quantize.int4_plan.Int4Plan for int4 files


def to_int8(model, keep, steps, int4=None, stored=None):
    """(int8 model, Quantization) with the Linears in `keep` left float32,
    those in `int4` ({name: int4 ir.Tensor}) in int4, and those in `stored`
    (int8 as the source format quantized them) unchanged."""
    from .quantize.model import linear_names, quantize_model
    t0 = time.perf_counter()
    n = len(linear_names(model)) - len(keep) + 1 + (model.encoder.token_embedding is not None)
    with steps.bar("int4 weights" if int4 else "int8 weights", n) as bar:
        qmodel, reports = quantize_model(model, keep_float=keep, int4=int4, progress=bar.update, stored=stored)
    steps.timed("quantize", t0)
    return qmodel, Quantization(reports=reports, kept_float=list(keep))


def to_int4(model, keep, block, steps, stored=None, int8_embeddings=False, embedding_block=None):
    """(int4 model, Quantization): int4_plan decides which Linears are int4;
    the token embeddings are int4 (at embedding_block, None: int4_plan's
    default) unless int8_embeddings."""
    from .quantize.int4_plan import DEFAULT_BLOCK, plan_int4
    from .quantize.model import linear_names
    from .reference.record import record_linear_inputs
    t0 = time.perf_counter()
    with steps.bar("int4 layer errors", len(linear_names(model)) - len(keep)) as bar:
        plan = plan_int4(model, block or DEFAULT_BLOCK, record_linear_inputs, keep_float=keep, progress=bar.update,
                         int8_embeddings=int8_embeddings, embedding_block=embedding_block)
    steps.timed("measure", t0)
    qmodel, quant = to_int8(model, keep, steps, int4=plan.int4, stored=stored)
    quant.int4 = plan
    return qmodel, quant


def parse_keep_float(value, model):
    """The --keep-float value as a list of Linear names ("none" or "": [])."""
    from .quantize.model import linear_names
    if value in ("none", ""):
        return []
    names = linear_names(model)
    keep = []
    for k in (v.strip() for v in value.split(",")):
        if not k or k in keep:
            continue
        if k == "decoder.output_projection" and model.config.tied_output:
            raise ConversionError("--keep-float: the tied output projection is the decoder embedding; "
                                  "it is int8 in an int8 file")
        if k not in names:
            raise ConversionError("--keep-float: no Linear named %r (names look like %s)" % (k, names[4]))
        keep.append(k)
    return keep
