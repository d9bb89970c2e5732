""".edgemt bytes -> model_ir.Model with the generated FlatBuffers reader.

Used to check written files and to run a file in the reference model (the
int8 simulation uses the int8 weights and row scales of the file itself).
"""
import dataclasses

import numpy as np

from ..errors import ConversionError, read_bytes
from . import model_ir as ir
from .int4_encoding import from_bfloat16, unpack_nibbles, valid_block_size
from .schema import accessor, fb
from .shortlist import validate as validate_shortlist


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


def _linears(cls, t, what):
    """An Attention or a FeedForward: a table of Linears, one per field."""
    return cls(**{fld.name: _linear(getattr(t, accessor(fld.name))(), "%s.%s" % (what, fld.name))
                  for fld in dataclasses.fields(cls)})


_PART_TYPES = {"self_attention": ir.Attention, "cross_attention": ir.Attention, "feed_forward": ir.FeedForward,
               "ssru": ir.SSRU}


def _part(field, t, what):
    """A layer's part, by its field name: a norm, an attention, a feed-forward block or an SSRU."""
    if field.endswith("_norm"):
        return _norm(t, what)
    if t is None and field in ("ssru", "self_attention"):
        return None         # format 2.8: a decoder layer has one of them (_layer checks)
    return _linears(_PART_TYPES[field], t, what)


def _layer(cls, t, what):
    layer = cls(**{fld.name: _part(fld.name, getattr(t, accessor(fld.name))(), "%s.%s" % (what, fld.name))
                   for fld in dataclasses.fields(cls)})
    if cls is ir.DecoderLayer and (layer.self_attention is None) == (layer.ssru is None):
        raise ConversionError("%s: a decoder layer needs self_attention or ssru, one of them" % what)
    return layer


def _stack(t, side):
    """The ir.Encoder or ir.Decoder of a side's table."""
    cls, layer = (ir.Encoder, ir.EncoderLayer) if side == "encoder" else (ir.Decoder, ir.DecoderLayer)
    parts = dict(
        token_embedding=_tensor(t.TokenEmbedding(), side + ".token_embedding"),
        positions=_array(t.Positions(), side + ".positions"),
        layers=[_layer(layer, t.Layers(i), "%s.layers.%d" % (side, i)) for i in range(t.LayersLength())],
        final_norm=_norm(t.FinalNorm(), side + ".final_norm"),
        embedding_norm=_norm(t.EmbeddingNorm(), side + ".embedding_norm"))
    if side == "decoder":
        parts["output_projection"] = _linear(t.OutputProjection(), "decoder.output_projection")
    return cls(**parts)


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


def _config(c):
    return ir.Config(
        d_model=c.DModel(), num_heads=c.NumHeads(), d_ff=c.DFf(), encoder_layers=c.EncoderLayers(),
        decoder_layers=c.DecoderLayers(), source_vocab_size=c.SourceVocabSize(),
        target_vocab_size=c.TargetVocabSize(), max_positions=c.MaxPositions(), norm=c.Norm(),
        layer_norm_epsilon=float(np.float32(c.LayerNormEpsilon())), activation=c.Activation(),
        embedding_scale=float(np.float32(c.EmbeddingScale())), position_encoding=c.PositionEncoding(),
        shared_embeddings=bool(c.SharedEmbeddings()), tied_output=bool(c.TiedOutput()),
        pad_id=c.PadId(), unk_id=c.UnkId(), bos_id=c.BosId(), eos_id=c.EosId(),
        decoder_start_id=c.DecoderStartId(),
        banned_ids=None if c.BannedIdsIsNone() else [int(i) for i in c.BannedIdsAsNumpy()],
        default_beam_size=c.DefaultBeamSize(), default_max_length=c.DefaultMaxLength(),
        source_bos=bool(c.SourceBos()), source_eos=bool(c.SourceEos()),
        default_length_penalty=float(np.float32(c.DefaultLengthPenalty())),
        decoder_starts_from_zero=bool(c.DecoderStartsFromZero()),
        default_max_length_factor=float(np.float32(c.DefaultMaxLengthFactor())),
        shrinking_beam=bool(c.ShrinkingBeam()))


def _tokenizer(tok):
    if tok is None:
        return None
    return ir.Tokenizer(
        source_model=None if tok.SourceModelIsNone() else tok.SourceModelAsNumpy().tobytes(),
        target_model=None if tok.TargetModelIsNone() else tok.TargetModelAsNumpy().tobytes(),
        source_vocabulary=_strings(tok, "SourceVocabulary"),
        target_vocabulary=_strings(tok, "TargetVocabulary"))


def _metadata(md):
    if md is None:
        return ir.Metadata()
    return ir.Metadata(**{fld.name: _string(getattr(md, accessor(fld.name))())
                          for fld in dataclasses.fields(ir.Metadata)})


def _embedding_norms(config, encoder, decoder):
    """Format 2.4: config.norm back to NORM_POST / NORM_PRE; an embedding_norm
    table only where the norm placement declares one (as the runtime checks)."""
    declared = {v: k for k, v in ir.NORM_WITH_EMBEDDING_NORM.items()}
    if config.norm in declared:
        config.norm = declared[config.norm]
        return
    for side, stack in (("encoder", encoder), ("decoder", decoder)):
        if stack.embedding_norm is not None:
            raise ConversionError("%s.embedding_norm is present but the norm placement declares no embedding norm"
                                  % side)


def _vector(table, name, dtype):
    """An integer vector field as a numpy array (empty when absent)."""
    if getattr(table, name + "IsNone")():
        return np.zeros(0, dtype)
    return np.array(getattr(table, name + "AsNumpy")(), dtype=dtype)


def _shortlist(sl, config):
    """Format 2.5: the ir.Shortlist, checked as the writer checks it; None when absent."""
    if sl is None:
        return None
    shortlist = ir.Shortlist(frequent=_vector(sl, "Frequent", np.int32), offsets=_vector(sl, "Offsets", np.uint32),
                             candidates=_vector(sl, "Candidates", np.int32), description=_string(sl.Description()),
                             pad_multiple=sl.PadMultiple(), pad_from=sl.PadFrom(), pad_uncounted=sl.PadUncounted())
    return validate_shortlist(shortlist, config)


def parse(buf):
    """model_ir.Model from the bytes of a .edgemt file."""
    f = fb()
    buf = bytearray(buf) if not isinstance(buf, (bytes, bytearray)) else buf
    if len(buf) < 8 or not f.Model.Model.ModelBufferHasIdentifier(buf, 0):
        raise ConversionError("not an EdgeMT model (no EDMT file identifier)")
    m = f.Model.Model.GetRootAs(buf, 0)
    # format_major and format_minor are the first two fields in every version
    check_format(m.FormatMajor(), m.FormatMinor())
    config = _config(m.Config())
    encoder, decoder = _stack(m.Encoder(), "encoder"), _stack(m.Decoder(), "decoder")
    _embedding_norms(config, encoder, decoder)
    return ir.Model(config=config, encoder=encoder, decoder=decoder, tokenizer=_tokenizer(m.Tokenizer()),
                    metadata=_metadata(m.Metadata()), format_major=m.FormatMajor(), format_minor=m.FormatMinor(),
                    shortlist=_shortlist(m.Shortlist(), config))


def read(path):
    data = read_bytes(path)
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

    for side, t, layer in (("encoder", m.Encoder(), ir.EncoderLayer), ("decoder", m.Decoder(), ir.DecoderLayer)):
        visit(side + ".token_embedding", t.TokenEmbedding())
        visit(side + ".positions", t.Positions())
        for i in range(t.LayersLength()):
            for part in dataclasses.fields(layer):
                name, table = "%s.layers.%d.%s" % (side, i, part.name), getattr(t.Layers(i), accessor(part.name))()
                if part.name.endswith("_norm"):
                    norm(name, table)
                    continue
                if table is None:
                    continue        # a decoder layer's absent self_attention or ssru
                for sub in dataclasses.fields(_PART_TYPES[part.name]):
                    linear(name + "." + sub.name, getattr(table, accessor(sub.name))())
        norm(side + ".final_norm", t.FinalNorm())
        norm(side + ".embedding_norm", t.EmbeddingNorm())
    linear("decoder.output_projection", m.Decoder().OutputProjection())
    return found
