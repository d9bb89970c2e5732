"""The conversion summary printed by edgemt-convert (and, for int8 files,
stored as Metadata.quantization_summary), the shortlist's lines included."""
import os

from .format import model_ir as ir
from .shortlist.table import describe as describe_shortlist


def _tensors(model):
    """(count, quantized count, parameters, quantized parameters) of the Tensors written."""
    out = []

    def add(x, quantized=False):
        if x is not None:
            out.append((x.size, quantized))

    def tensor(t):
        if t is not None:
            add(t.data, t.is_quantized)

    def linear(l):
        tensor(l.weight)
        add(l.bias)

    def norm(n):
        if n is not None:
            add(n.gamma)
            add(n.beta)

    for part in (model.encoder, model.decoder):
        tensor(part.token_embedding)
        add(part.positions)
        norm(part.final_norm)
        norm(part.embedding_norm)
    for layer in model.encoder.layers + model.decoder.layers:
        for field in ("self_attention", "cross_attention"):
            att = getattr(layer, field, None)
            if att is not None:
                for p in (att.query, att.key, att.value, att.output):
                    linear(p)
        ssru = getattr(layer, "ssru", None)
        if ssru is not None:
            linear(ssru.transform)
            linear(ssru.forget_gate)
        linear(layer.feed_forward.up)
        linear(layer.feed_forward.down)
        for field in ("self_attention_norm", "cross_attention_norm", "feed_forward_norm"):
            norm(getattr(layer, field, None))
    linear(model.decoder.output_projection)
    n8 = [s for s, q in out if q]
    return len(out), len(n8), sum(s for s, _ in out), sum(n8)


_ACT_DISPLAY = {ir.ACT_RELU: "ReLU", ir.ACT_GELU: "GELU (erf)", ir.ACT_SILU: "SiLU", ir.ACT_GELU_TANH: "GELU (tanh)",
                ir.ACT_GELU_SIGMOID: "GELU (sigmoid)"}


def describe_model(model):
    c = model.config
    pos = ir.POS_NAMES[c.position_encoding]
    pos = "learned table" if pos == "learned" else "sinusoidal (%s)" % pos
    tok = "none (token ids only)"
    if model.tokenizer is not None and model.tokenizer.source_model is None:
        tok = "tokens separated by spaces"
    elif model.tokenizer is not None:
        tok = "SentencePiece, %s bytes%s" % (format(len(model.tokenizer.source_model), ","),
                                             "" if model.tokenizer.target_model is None else " + target model")
    vocab = model.tokenizer is not None and model.tokenizer.source_vocabulary is not None
    if vocab:
        tok += ", ids from the model's vocabulary (%s)" % ("one for both sides" if model.tokenizer.target_vocabulary is None
                                                           else "one per side")
    c_gen = []
    if c.banned_ids is not None:
        c_gen.append("never produces ids %s" % ", ".join(map(str, c.banned_ids)))
    if c.default_beam_size:
        c_gen.append("beam size %d" % c.default_beam_size)
    if c.default_max_length:
        c_gen.append("at most %d output ids" % c.default_max_length)
    if c.default_max_length_factor:
        c_gen.append("at most %g x the source's ids" % c.default_max_length_factor)
    if c.shrinking_beam:
        c_gen.append("Marian's beam search (a finished hypothesis leaves the beam)")
    start = "a zero embedding" if c.decoder_starts_from_zero else "id %d" % c.decoder_start_id
    decoding = ("\n       decoding: starts from %s, %s" % (start, ", ".join(c_gen))) if c_gen else ""
    ssru = any(layer.ssru is not None for layer in model.decoder.layers)
    return ("model: %s-LN, %s, d_model %d, %d heads, d_ff %d, %d encoder + %d decoder layers%s, "
            "vocabularies %d/%d, max_positions %d\n"
            "       positions %s, embeddings %s, output projection %s, embedding scale %.4g, tokenizer %s"
            % (ir.NORM_NAMES[c.norm], _ACT_DISPLAY[c.activation], c.d_model, c.num_heads, c.d_ff, c.encoder_layers,
               c.decoder_layers, " (SSRU)" if ssru else "", c.source_vocab_size, c.target_vocab_size,
               c.max_positions, pos,
               "shared" if c.shared_embeddings else "separate",
               "tied to the decoder embedding" if c.tied_output else "separate",
               c.embedding_scale, tok)) + decoding


def _percent(x):
    return "%.3f%%" % (100.0 * x)


def summarize(model, size, weights, notes, quant, opts):
    """The conversion report; `weights`: (file name, size) of the checkpoint's weight file."""
    md = model.metadata
    # the output file by name only: the summary is stored in the file, the folder is the user's business
    lines = ["%s: %s -> %s (%s)" % (md.converter_version, md.source_checkpoint, os.path.basename(opts.out), md.dtype),
             describe_model(model)]
    n, n8, p, p8 = _tensors(model)
    lines.append("file: %s bytes (%.1f%% of %s, %s bytes)" % (format(size, ","), 100.0 * size / weights[1],
                                                                weights[0], format(weights[1], ",")))
    q = "int4/int8" if quant is not None and quant.int4 is not None else "int8"
    lines.append("tensors: %d (%d %s, %d float32); values: %s (%s %s, %s float32)"
                 % (n, n8, q, n - n8, format(p, ","), format(p8, ","), q, format(p - p8, ",")))
    if md.source_language or md.target_language:
        lines.append("languages: %s -> %s" % (md.source_language or "?", md.target_language or "?"))
    for note in notes:
        lines.append("note: " + note)
    if model.shortlist is not None:
        lines.extend(describe_shortlist(model.shortlist))
    if quant is None:
        return "\n".join(lines)

    if quant.int4 is not None:
        lines.extend(_int4_lines(model, quant.int4))
    lines.append("int8 (format %d.%d, docs/int8.md): %s symmetric per row; each input "
                 "row of an int8 Linear is quantized at run time with its own range (asymmetric); int32 "
                 "accumulation, float32 output; biases, LayerNorm, attention and logits float32; no calibration"
                 % (model.format_major, model.format_minor,
                    "weights and token embeddings" if quant.int4 is None else "int8 tensors"))
    if quant.kept_float:
        lines.append("kept float32 (--keep-float): %s" % ", ".join(quant.kept_float))
    else:
        lines.append("kept float32: none")
    # int4 files add the type column; int8 files keep the layout they always had
    typed = quant.int4 is not None
    lines.append("per-tensor %sweight error: relative RMS error ||W - q*s|| / ||W|| of the tensor and of its "
                 "worst row" % ("" if typed else "int8 "))
    w = max(len(r.name) for r in quant.reports)
    kind = (lambda r: "%-5s  " % r.dtype) if typed else (lambda r: "")
    lines.append("  %-*s  %-12s  %s%-9s  %s" % (w, "tensor", "shape", "type   " if typed else "", "error", "worst row"))
    for r in quant.reports:
        shape = "x".join(str(d) for d in r.shape)
        if r.kept_float:
            lines.append("  %-*s  %-12s  %s" % (w, r.name, shape, "kept float32"))
        else:
            lines.append("  %-*s  %-12s  %s%-9s  %s" % (w, r.name, shape, kind(r), _percent(r.error),
                                                        _percent(r.worst_row)))
    return "\n".join(lines)


def _int4_lines(model, plan):
    linears = [m for m in plan.layers if m.name in plan.int4]
    embeddings = [e for e in plan.embeddings if e.int4]

    def blocks(names):
        return "/".join(str(b) for b in sorted(set(plan.int4[n].block_size for n in names))) or "-"
    kept = ["%s (%s)" % (m.name, m.reason) for m in plan.layers if m.kept_int8]
    kept += ["%s (%s)" % (e.name, e.reason) for e in plan.embeddings if not e.int4]
    if plan.limit == float("inf"):
        limit = "no limit: every layer a block size fits is int4"
    else:
        limit = "a layer above %s stays int8 with the layers fused with it" % _percent(plan.limit)
    lines = ["int4 (format %d.%d, docs/int4.md): %d of %d Linears (block %s) and %d of %d token embeddings "
             "(block %s) in 4 bits with a bfloat16 scale per block of inputs; the others int8"
             % (model.format_major, model.format_minor, len(linears), len(plan.layers),
                blocks(m.name for m in linears), len(embeddings), len(plan.embeddings),
                blocks(e.name for e in embeddings)),
             "int4 layer output error: relative RMS error against the float layer on %s; %s" % (plan.sample, limit),
             "kept int8: " + (", ".join(kept) if kept else "none")]
    for e in plan.embeddings:
        if e.projection_errors is not None:
            lines.append("tied output projection (%s): int4 output error %s, int8 %s"
                         % (e.name, _percent(e.projection_errors[0]), _percent(e.projection_errors[1])))
    w = max(len(m.name) for m in plan.layers)
    lines.append("  %-*s  %-5s  %-9s  %s" % (w, "layer", "block", "int4", "int8"))
    for m in plan.layers:
        e4 = "-" if m.int4_error is None else _percent(m.int4_error)
        e8 = "-" if m.int8_error is None else _percent(m.int8_error)
        lines.append("  %-*s  %-5s  %-9s  %s" % (w, m.name, m.block or "-", e4, e8))
    return lines
