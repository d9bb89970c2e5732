"""The conversion pipeline: checkpoint directory -> .edgemt file, with summary.

  load + validate (config.json, tokenizer, model.pt)  -> float model_ir
  float32: write it.
  int8:    calibrate (float greedy outputs, teacher-forced statistics),
           quantize, choose Linears to keep float (auto: see choose_keep_float),
           check int8 against float greedy output on the calibration inputs,
           write it with the calibration report in Metadata.
"""
import os
import sys
import time
from dataclasses import dataclass, field
from typing import List, Optional

import torch

from . import __version__
from . import model_ir as ir
from .build import build_float_model
from .calibration_data import calibration_sources
from .checkpoint import load_state_dict
from .config import load_config
from .decode import greedy
from .errors import ConversionError
from .outfile import check_writable, write_atomic
from .reference_model import ReferenceModel
from .tokenizer import load_processor, load_tokenizer

# auto keep-float: a Linear whose int8 output error (alone, on calibration
# data) exceeds this stays float, worst first, while the file fits the budget.
AUTO_FLOAT_ERROR = 0.04
DEFAULT_MAX_SIZE_RATIO = 0.30


@dataclass
class Options:
    checkpoint: str
    out: str
    dtype: str = "int8"
    calibration: Optional[str] = None
    calibration_ids: Optional[str] = None
    calibration_size: Optional[int] = None
    keep_float: str = "auto"              # "auto", "none" or comma-separated Linear names
    max_size_ratio: float = DEFAULT_MAX_SIZE_RATIO
    source_language: Optional[str] = None
    target_language: Optional[str] = None
    batch_size: int = 32
    progress: bool = True


@dataclass
class Result:
    model: ir.Model
    size: int
    summary: str
    notes: List[str] = field(default_factory=list)


class Steps:
    """Progress bars (tqdm, stderr) and step timings."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.timings = []

    def bar(self, desc, total, unit="sent"):
        from tqdm import tqdm
        return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=not self.enabled,
                    leave=False, dynamic_ncols=True)

    def timed(self, name, t0):
        self.timings.append((name, time.perf_counter() - t0))


def load_float_model(checkpoint_dir, source_language=None, target_language=None, dtype="float32"):
    """(float model_ir.Model, checkpoint config, notes) with every check applied."""
    if not os.path.isdir(checkpoint_dir):
        raise ConversionError("%s: not a checkpoint directory" % checkpoint_dir)
    cfg = load_config(checkpoint_dir)
    tok = load_tokenizer(checkpoint_dir, cfg)
    sd = load_state_dict(checkpoint_dir, cfg)
    metadata = ir.Metadata(
        source_language=source_language if source_language is not None else cfg.source_language,
        target_language=target_language if target_language is not None else cfg.target_language,
        converter_version="edgemt-convert " + __version__,
        source_checkpoint=os.path.basename(os.path.normpath(os.path.abspath(checkpoint_dir))),
        dtype=dtype)
    model, notes = build_float_model(cfg, sd, tok, metadata)
    return model, cfg, notes


def convert(opts, out=None):
    """Runs the conversion and writes opts.out; returns a Result."""
    out = out or sys.stdout
    from .writer import serialize
    if opts.dtype not in ("int8", "float32"):
        raise ConversionError("unknown --dtype %r (expected int8 or float32)" % opts.dtype)
    check_writable(opts.out)
    steps = Steps(opts.progress)
    t0 = time.perf_counter()
    model, cfg, notes = load_float_model(opts.checkpoint, opts.source_language, opts.target_language, opts.dtype)
    steps.timed("load", t0)
    checkpoint_size = os.path.getsize(os.path.join(opts.checkpoint, "model.pt"))

    calib = None
    if opts.dtype == "int8":
        model, calib = _to_int8(model, cfg, opts, steps, checkpoint_size, notes)

    from .summary import summarize
    t0 = time.perf_counter()
    data = serialize(model)
    text = summarize(model, len(data), checkpoint_size, notes, calib, opts)
    if calib is not None:
        # An int8 file carries its own calibration report, which states the
        # file's size: settle the size with the report inside (the number
        # of digits rarely changes, so this loops once or twice).
        for _ in range(5):
            model.metadata.calibration_summary = text
            data = serialize(model)
            again = summarize(model, len(data), checkpoint_size, notes, calib, opts)
            if again == text:
                break
            text = again
    write_atomic(opts.out, data)
    steps.timed("write", t0)
    timing = ", ".join("%s %.1fs" % t for t in steps.timings)
    print(text, file=out)
    print("time: %s" % timing, file=out)
    return Result(model=model, size=len(data), summary=text, notes=notes)


@dataclass
class Calibration:
    description: str
    sentences: int
    encoder_positions: int
    decoder_positions: int
    reports: list
    kept_float: List[str]
    keep_reason: str
    check_identical: float           # % of calibration inputs with int8 greedy == float greedy
    warnings: List[str] = field(default_factory=list)


def _to_int8(model, cfg, opts, steps, checkpoint_size, notes):
    from . import calibrate
    from .int8_model import quantize_model
    from .writer import serialize
    sp = load_processor(model.tokenizer.source_model) if model.tokenizer is not None else None
    sources, desc = calibration_sources(model, opts.calibration, opts.calibration_ids, opts.calibration_size, sp)
    warnings = []
    if sp is not None and not (opts.calibration or opts.calibration_ids):
        warnings.append("no --calibration text given: calibrated on random token ids; a trained model "
                        "loses accuracy that way, pass a few hundred source sentences")

    t0 = time.perf_counter()
    float_ref = ReferenceModel(model)
    with steps.bar("float greedy decoding", len(sources)) as bar:
        targets, _ = greedy(float_ref, sources, batch_size=opts.batch_size, progress=bar.update)
    steps.timed("float decode", t0)

    t0 = time.perf_counter()
    with steps.bar("activation statistics", len(sources)) as bar:
        stats = calibrate.record(lambda rec: ReferenceModel(model, rec), sources, targets,
                                 model.config.decoder_start_id, opts.batch_size, progress=bar.update)
    steps.timed("statistics", t0)

    t0 = time.perf_counter()
    names = [n for n, _ in model.named_linears()]
    with steps.bar("int8 ranges", 2 * len(names), unit="tensor") as bar:
        keep, reason = _parse_keep_float(opts.keep_float, names, model)
        qmodel, reports = quantize_model(model, stats, keep_float=keep, progress=bar.update)
        if opts.keep_float == "auto":
            keep, reason = choose_keep_float(model, qmodel, reports, checkpoint_size, opts.max_size_ratio,
                                             serialize)
            if keep:
                qmodel, reports = quantize_model(model, stats, keep_float=keep)
    steps.timed("quantize", t0)

    t0 = time.perf_counter()
    with steps.bar("int8 check", len(sources)) as bar:
        outs, _ = greedy(ReferenceModel(qmodel), sources, batch_size=opts.batch_size, progress=bar.update)
    same = 100.0 * sum(a == b for a, b in zip(outs, targets)) / len(sources)
    steps.timed("int8 check", t0)
    calib = Calibration(
        description=desc, sentences=len(sources),
        encoder_positions=stats["encoder.layers.0.self_attention.query"].count,
        decoder_positions=stats["decoder.output_projection"].count,
        reports=reports, kept_float=keep, keep_reason=reason, check_identical=same, warnings=warnings)
    qmodel.metadata.dtype = "int8"
    return qmodel, calib


def _parse_keep_float(value, names, model):
    if value in ("auto", "none", ""):
        return [], ""
    keep = [v.strip() for v in value.split(",") if v.strip()]
    for k in keep:
        if k not in names:
            raise ConversionError("--keep-float: no Linear named %r (names look like %s)" % (k, names[4]))
        if k == "decoder.output_projection" and model.config.tied_output:
            raise ConversionError("--keep-float: the tied output projection is the decoder embedding; "
                                  "it is int8 in an int8 file")
    return keep, "--keep-float"


def choose_keep_float(model, qmodel, reports, checkpoint_size, max_ratio, serialize):
    """Linears to keep float: those whose int8 error alone exceeds
    AUTO_FLOAT_ERROR, worst first, while the file stays within max_ratio of
    the checkpoint's size. Returns (names, reason text)."""
    budget = int(max_ratio * checkpoint_size)
    size = len(serialize(qmodel))
    linears = dict(model.named_linears())
    keep = []
    for rep in sorted(reports, key=lambda r: -(r.error or 0.0)):
        if rep.kept_float or rep.name == "decoder.output_projection" or (rep.error or 0.0) <= AUTO_FLOAT_ERROR:
            continue
        w = model.linear_weight(linears[rep.name])
        extra = 3 * w.data.size - 4 * w.shape[0]        # float32 instead of int8 + row scales
        if size + extra > budget:
            continue
        size += extra
        keep.append(rep.name)
    reason = ("auto: int8 output error above %.0f%%, within %.0f%% of model.pt's size"
              % (100 * AUTO_FLOAT_ERROR, 100 * max_ratio))
    return keep, reason
