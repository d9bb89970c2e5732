""".edgemt bytes -> model_ir.Model with the generated FlatBuffers reader.

Used to check written files and to run a file in the reference model (the
int8 simulation uses the int8 weights and row scales of the file itself).
"""
import numpy as np

from . import model_ir as ir
from ..errors import ConversionError
from .int4_encoding import from_bfloat16, unpack_nibbles, valid_block_size
from .schema import fb


def _tensor(t, what):
    if t is None:
        return None
    shape = tuple(int(x) for x in t.ShapeAsNumpy()) if not t.ShapeIsNone() else ()
    raw = t.DataAsNumpy() if not t.DataIsNone() else np.zeros(0, np.uint8)
    block = 0
    if t.Type() == ir.TYPE_INT8:
        data = raw.view(np.int8)
        scales = np.array(t.ScalesAsNumpy(), dtype=np.float32) if not t.ScalesIsNone() else None
        if scales is None or scales.shape != (shape[0],):
            raise ConversionError("%s: int8 tensor without one scale per row" % what)
    elif t.Type() == ir.TYPE_INT4:
        block = int(t.BlockSize())
        if len(shape) != 2 or not valid_block_size(block, shape[1]):
            raise ConversionError("%s: int4 tensor of shape %s with block size %d" % (what, list(shape), block))
        if raw.size * 2 != int(np.prod(shape)):
            raise ConversionError("%s: %d bytes for int4 shape %s" % (what, raw.size, list(shape)))
        data = unpack_nibbles(raw, shape)
        bits = np.array(t.BlockScalesAsNumpy(), dtype=np.uint16) if not t.BlockScalesIsNone() else None
        if bits is None or bits.size != shape[0] * (shape[1] // block):
            raise ConversionError("%s: int4 tensor without one scale per row and block" % what)
        scales = from_bfloat16(bits).reshape(shape[0], shape[1] // block)
    elif t.Type() == ir.TYPE_FLOAT32:
        data, scales = raw.view("<f4").astype(np.float32), None
    else:
        raise ConversionError("%s: unknown tensor type %d" % (what, t.Type()))
    if data.size != int(np.prod(shape)):
        raise ConversionError("%s: %d elements for shape %s" % (what, data.size, list(shape)))
    return ir.Tensor(data.reshape(shape).copy(), scales, block)


def _array(t, what):
    x = _tensor(t, what)
    return None if x is None else x.data


def _linear(l, what):
    if l is None:
        raise ConversionError("%s: missing" % what)
    return ir.Linear(weight=_tensor(l.Weight(), what + ".weight"), bias=_array(l.Bias(), what + ".bias"))


def _norm(n, what):
    if n is None:
        return None
    return ir.LayerNorm(gamma=_array(n.Gamma(), what + ".gamma"), beta=_array(n.Beta(), what + ".beta"))


def _attention(a, what):
    return ir.Attention(*(_linear(getattr(a, n)(), "%s.%s" % (what, n.lower()))
                          for n in ("Query", "Key", "Value", "Output")))


def _ffn(f, what):
    return ir.FeedForward(up=_linear(f.Up(), what + ".up"), down=_linear(f.Down(), what + ".down"))


def _string(s):
    return s.decode("utf-8") if s is not None else ""


def _strings(table, name):
    """A [string] field as a list of str, None when absent."""
    if getattr(table, name + "IsNone")():
        return None
    get = getattr(table, name)
    return [get(i).decode("utf-8") for i in range(getattr(table, name + "Length")())]


def check_format(major, minor):
    """Raises unless this reader knows format major.x."""
    if major == 1:
        raise ConversionError(
            "format %d.%d is no longer supported: it holds calibrated int8 activation ranges, and format %d.x "
            "quantizes activations per row at run time (docs/int8.md); convert the checkpoint again with "
            "this edgemt-convert" % (major, minor, ir.FORMAT_MAJOR))
    if major != ir.FORMAT_MAJOR:
        raise ConversionError("format %d.%d is not supported (this reader knows %d.x)"
                              % (major, minor, ir.FORMAT_MAJOR))


def parse(buf):
    """model_ir.Model from the bytes of a .edgemt file."""
    f = fb()
    buf = bytearray(buf) if not isinstance(buf, (bytes, bytearray)) else buf
    if len(buf) < 8 or not f.Model.Model.ModelBufferHasIdentifier(buf, 0):
        raise ConversionError("not an EdgeMT model (no EDMT file identifier)")
    m = f.Model.Model.GetRootAs(buf, 0)
    # format_major and format_minor are the first two fields in every version
    check_format(m.FormatMajor(), m.FormatMinor())
    c = m.Config()
    config = ir.Config(
        d_model=c.DModel(), num_heads=c.NumHeads(), d_ff=c.DFf(), encoder_layers=c.EncoderLayers(),
        decoder_layers=c.DecoderLayers(), source_vocab_size=c.SourceVocabSize(),
        target_vocab_size=c.TargetVocabSize(), max_positions=c.MaxPositions(), norm=c.Norm(),
        layer_norm_epsilon=float(np.float32(c.LayerNormEpsilon())), activation=c.Activation(),
        embedding_scale=float(np.float32(c.EmbeddingScale())), position_encoding=c.PositionEncoding(),
        shared_embeddings=bool(c.SharedEmbeddings()), tied_output=bool(c.TiedOutput()),
        pad_id=c.PadId(), unk_id=c.UnkId(), bos_id=c.BosId(), eos_id=c.EosId(),
        decoder_start_id=c.DecoderStartId(),
        banned_ids=None if c.BannedIdsIsNone() else [int(i) for i in c.BannedIdsAsNumpy()],
        default_beam_size=c.DefaultBeamSize(), default_max_length=c.DefaultMaxLength())
    e, d = m.Encoder(), m.Decoder()
    encoder = ir.Encoder(
        token_embedding=_tensor(e.TokenEmbedding(), "encoder.token_embedding"),
        positions=_array(e.Positions(), "encoder.positions"),
        layers=[ir.EncoderLayer(
            self_attention=_attention(l.SelfAttention(), "encoder.layers.%d.self_attention" % i),
            self_attention_norm=_norm(l.SelfAttentionNorm(), "encoder.layers.%d.self_attention_norm" % i),
            feed_forward=_ffn(l.FeedForward(), "encoder.layers.%d.feed_forward" % i),
            feed_forward_norm=_norm(l.FeedForwardNorm(), "encoder.layers.%d.feed_forward_norm" % i))
            for i, l in ((i, e.Layers(i)) for i in range(e.LayersLength()))],
        final_norm=_norm(e.FinalNorm(), "encoder.final_norm"))
    decoder = ir.Decoder(
        token_embedding=_tensor(d.TokenEmbedding(), "decoder.token_embedding"),
        positions=_array(d.Positions(), "decoder.positions"),
        layers=[ir.DecoderLayer(
            self_attention=_attention(l.SelfAttention(), "decoder.layers.%d.self_attention" % i),
            self_attention_norm=_norm(l.SelfAttentionNorm(), "decoder.layers.%d.self_attention_norm" % i),
            cross_attention=_attention(l.CrossAttention(), "decoder.layers.%d.cross_attention" % i),
            cross_attention_norm=_norm(l.CrossAttentionNorm(), "decoder.layers.%d.cross_attention_norm" % i),
            feed_forward=_ffn(l.FeedForward(), "decoder.layers.%d.feed_forward" % i),
            feed_forward_norm=_norm(l.FeedForwardNorm(), "decoder.layers.%d.feed_forward_norm" % i))
            for i, l in ((i, d.Layers(i)) for i in range(d.LayersLength()))],
        final_norm=_norm(d.FinalNorm(), "decoder.final_norm"),
        output_projection=_linear(d.OutputProjection(), "decoder.output_projection"))
    tok = m.Tokenizer()
    tokenizer = None
    if tok is not None:
        tokenizer = ir.Tokenizer(
            source_model=tok.SourceModelAsNumpy().tobytes(),
            target_model=None if tok.TargetModelIsNone() else tok.TargetModelAsNumpy().tobytes(),
            source_vocabulary=_strings(tok, "SourceVocabulary"),
            target_vocabulary=_strings(tok, "TargetVocabulary"))
    md = m.Metadata()
    metadata = ir.Metadata()
    if md is not None:
        metadata = ir.Metadata(
            source_language=_string(md.SourceLanguage()), target_language=_string(md.TargetLanguage()),
            converter_version=_string(md.ConverterVersion()), source_checkpoint=_string(md.SourceCheckpoint()),
            dtype=_string(md.Dtype()), quantization_summary=_string(md.QuantizationSummary()))
    return ir.Model(config=config, encoder=encoder, decoder=decoder, tokenizer=tokenizer,
                    metadata=metadata, format_major=m.FormatMajor(), format_minor=m.FormatMinor())


def read(path):
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise ConversionError("%s: cannot read (%s)" % (path, e.strerror or e))
    try:
        return parse(data)
    except ConversionError as e:
        raise ConversionError("%s: %s" % (path, e))


def tensor_data_offsets(buf):
    """(name, byte offset from file start, nbytes, scales offset or None) of
    every Tensor.data vector, for the alignment checks in the tests."""
    f = fb()
    m = f.Model.Model.GetRootAs(buf, 0)
    found = []

    def visit(name, t):
        if t is None:
            return
        tab = t._tab
        o = tab.Offset(8)          # Tensor.data is field 2 (vtable offset 8)
        start = tab.Vector(o) if o else None
        so = tab.Offset(10)        # Tensor.scales
        found.append((name, start, tab.VectorLen(o) if o else 0, tab.Vector(so) if so else None))

    def linear(name, l):
        visit(name + ".weight", l.Weight())
        visit(name + ".bias", l.Bias())

    def norm(name, n):
        if n is not None:
            visit(name + ".gamma", n.Gamma())
            visit(name + ".beta", n.Beta())

    def attention(name, a):
        for part in ("Query", "Key", "Value", "Output"):
            linear(name + "." + part.lower(), getattr(a, part)())

    def ffn(name, x):
        linear(name + ".up", x.Up())
        linear(name + ".down", x.Down())

    e, d = m.Encoder(), m.Decoder()
    visit("encoder.token_embedding", e.TokenEmbedding())
    visit("encoder.positions", e.Positions())
    for i in range(e.LayersLength()):
        l, p = e.Layers(i), "encoder.layers.%d." % i
        attention(p + "self_attention", l.SelfAttention())
        norm(p + "self_attention_norm", l.SelfAttentionNorm())
        ffn(p + "feed_forward", l.FeedForward())
        norm(p + "feed_forward_norm", l.FeedForwardNorm())
    norm("encoder.final_norm", e.FinalNorm())
    visit("decoder.token_embedding", d.TokenEmbedding())
    visit("decoder.positions", d.Positions())
    for i in range(d.LayersLength()):
        l, p = d.Layers(i), "decoder.layers.%d." % i
        attention(p + "self_attention", l.SelfAttention())
        norm(p + "self_attention_norm", l.SelfAttentionNorm())
        attention(p + "cross_attention", l.CrossAttention())
        norm(p + "cross_attention_norm", l.CrossAttentionNorm())
        ffn(p + "feed_forward", l.FeedForward())
        norm(p + "feed_forward_norm", l.FeedForwardNorm())
    norm("decoder.final_norm", d.FinalNorm())
    linear("decoder.output_projection", d.OutputProjection())
    return found
