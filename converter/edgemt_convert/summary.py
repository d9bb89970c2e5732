"""The conversion summary printed by edgemt-convert (and, for int8 files,
stored as Metadata.calibration_summary)."""
from . import model_ir as ir


def _tensors(model):
    """(count, int8 count, parameters, int8 parameters) of the Tensors written."""
    out = []

    def add(x, is_int8=False):
        if x is not None:
            out.append((x.size, is_int8))

    def tensor(t):
        if t is not None:
            add(t.data, t.is_int8)

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
    for layer in model.encoder.layers + model.decoder.layers:
        for field in ("self_attention", "cross_attention"):
            att = getattr(layer, field, None)
            if att is not None:
                for p in (att.query, att.key, att.value, att.output):
                    linear(p)
        linear(layer.feed_forward.up)
        linear(layer.feed_forward.down)
        for field in ("self_attention_norm", "cross_attention_norm", "feed_forward_norm"):
            norm(getattr(layer, field, None))
    linear(model.decoder.output_projection)
    n8 = [s for s, q in out if q]
    return len(out), len(n8), sum(s for s, _ in out), sum(n8)


_ACT_DISPLAY = {ir.ACT_RELU: "ReLU", ir.ACT_GELU: "GELU (erf)", ir.ACT_SILU: "SiLU"}


def _range(choice):
    if choice is None:
        return ""
    return "[%.3g, %.3g] %s" % (choice.lo, choice.hi, choice.method)


def describe_model(model):
    c = model.config
    pos = ir.POS_NAMES[c.position_encoding]
    pos = "learned table" if pos == "learned" else "sinusoidal (%s)" % pos
    tok = "none (token ids only)"
    if model.tokenizer is not None:
        tok = "SentencePiece, %s bytes%s" % (format(len(model.tokenizer.source_model), ","),
                                             "" if model.tokenizer.target_model is None else " + target model")
    return ("model: %s-LN, %s, d_model %d, %d heads, d_ff %d, %d encoder + %d decoder layers, "
            "vocabularies %d/%d, max_positions %d\n"
            "       positions %s, embeddings %s, output projection %s, embedding scale %.4g, tokenizer %s"
            % (ir.NORM_NAMES[c.norm], _ACT_DISPLAY[c.activation], c.d_model, c.num_heads, c.d_ff, c.encoder_layers,
               c.decoder_layers, c.source_vocab_size, c.target_vocab_size, c.max_positions, pos,
               "shared" if c.shared_embeddings else "separate",
               "tied to the decoder embedding" if c.tied_output else "separate",
               c.embedding_scale, tok))


def summarize(model, size, checkpoint_size, notes, calib, opts):
    md = model.metadata
    lines = ["%s: %s -> %s (%s)" % (md.converter_version, md.source_checkpoint, opts.out, md.dtype),
             describe_model(model)]
    n, n8, p, p8 = _tensors(model)
    lines.append("file: %s bytes (%.1f%% of model.pt, %s bytes)" % (format(size, ","), 100.0 * size / checkpoint_size,
                                                                       format(checkpoint_size, ",")))
    lines.append("tensors: %d (%d int8, %d float32); values: %s (%s int8, %s float32)"
                 % (n, n8, n - n8, format(p, ","), format(p8, ","), format(p - p8, ",")))
    if md.source_language or md.target_language:
        lines.append("languages: %s -> %s" % (md.source_language or "?", md.target_language or "?"))
    for note in notes:
        lines.append("note: " + note)
    if calib is None:
        return "\n".join(lines)

    lines.append("calibration: %s; decoder inputs: the float model's greedy outputs; "
                 "%s encoder and %s decoder positions"
                 % (calib.description, format(calib.encoder_positions, ","), format(calib.decoder_positions, ",")))
    for w in calib.warnings:
        lines.append("warning: " + w)
    lines.append("ranges: per tensor; clip points searched on a sample to minimise the quantization error "
                 "(channel-weighted MSE; post-LN residual outputs: error after the LayerNorm); "
                 "'minmax' where clipping did not help")
    if calib.kept_float:
        lines.append("kept float32 (%s): %s" % (calib.keep_reason, ", ".join(calib.kept_float)))
    else:
        lines.append("kept float32: none")
    lines.append("int8 check: greedy output identical to the float model's on %.1f%% of the %d calibration inputs"
                 % (calib.check_identical, calib.sentences))
    lines.append("per-layer int8 error: each Linear alone on calibration data, relative RMS error of its output "
                 "(output projection: share of positions whose greedy token changes)")
    w = max(len(r.name) for r in calib.reports)
    lines.append("  %-*s  %-26s  %-26s  %s" % (w, "Linear", "input range", "output range", "error"))
    for r in calib.reports:
        if r.kept_float:
            lines.append("  %-*s  %-26s  %-26s  %s" % (w, r.name, "float32", "float32", "kept float"))
            continue
        err = "%.2f%%" % (100.0 * r.error)
        if r.note:
            err += "  (" + r.note + ")"
        lines.append("  %-*s  %-26s  %-26s  %s" % (w, r.name, _range(r.input_range), _range(r.output_range), err))
    return "\n".join(lines)
