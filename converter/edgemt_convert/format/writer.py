"""model_ir.Model -> .edgemt bytes with the generated FlatBuffers builders.

Every Tensor.data vector is aligned to 64 bytes from the start of the file
(so a memory-mapped file can feed XNNPACK in place). FlatBuffers aligns
relative to the end of the buffer, and Finish() pads the whole buffer to the
largest alignment used, so aligning to 64 from the end is aligning to 64 from
the start. tests/test_writer_reader.py checks it on real files.
"""
import dataclasses

import numpy as np

from . import model_ir as ir
from .int4_encoding import pack_nibbles, to_bfloat16
from .schema import accessor, fb
from .shortlist import output_sums
from .shortlist import validate as validate_shortlist

DATA_ALIGNMENT = 64
# Config fields a file has only when they are not their default (formats 2.2
# and 2.3), so that an older file written again stays what it was.
_UNLESS_DEFAULT = {"default_beam_size": 0, "default_max_length": 0, "source_bos": False, "source_eos": True,
                   "default_length_penalty": 1.0, "source_language_name": "", "target_language_name": "",
                   "decoder_starts_from_zero": False, "default_max_length_factor": 0.0,
                   "shrinking_beam": False}


def _tensor(b, t, f):
    data = np.ascontiguousarray(t.data)
    if t.is_int4:
        raw, ttype = pack_nibbles(data).tobytes(), ir.TYPE_INT4
    elif t.is_int8:
        raw, ttype = data.astype(np.int8, copy=False).tobytes(), ir.TYPE_INT8
    else:
        raw, ttype = data.astype("<f4", copy=False).tobytes(), ir.TYPE_FLOAT32
    # data: a byte vector aligned to 64, filled in one copy
    b.StartVector(1, len(raw), DATA_ALIGNMENT)
    b.head = b.head - len(raw)
    b.Bytes[b.head:b.head + len(raw)] = raw
    data_off = b.EndVector()
    shape_off = b.CreateNumpyVector(np.asarray(data.shape, dtype="<u4"))
    scales_off = None
    if t.is_int8:
        scales_off = b.CreateNumpyVector(np.asarray(t.scales, dtype="<f4"))   # 4-byte aligned
    elif t.is_int4:
        scales_off = b.CreateNumpyVector(to_bfloat16(t.scales).reshape(-1).astype("<u2"))
    f.Tensor.TensorStart(b)
    f.Tensor.TensorAddType(b, ttype)
    f.Tensor.TensorAddShape(b, shape_off)
    f.Tensor.TensorAddData(b, data_off)
    if t.is_int8:
        f.Tensor.TensorAddScales(b, scales_off)
    elif t.is_int4:
        f.Tensor.TensorAddBlockSize(b, t.block_size)
        f.Tensor.TensorAddBlockScales(b, scales_off)
    return f.Tensor.TensorEnd(b)


def _float_tensor(b, array, f):
    return _tensor(b, ir.Tensor(np.asarray(array, dtype=np.float32)), f)


def _offsets_vector(b, offsets):
    b.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


def _value(b, v, f):
    """The offset of a field's value, written before its table starts (None:
    absent); a scalar is returned as it is, to be added in place."""
    if v is None or isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, ir.Tensor):
        return _tensor(b, v, f)
    if isinstance(v, np.ndarray):
        return _float_tensor(b, v, f)
    if isinstance(v, bytes):
        return b.CreateNumpyVector(np.frombuffer(v, dtype=np.uint8))
    if isinstance(v, str):
        return b.CreateString(v)
    if isinstance(v, list) and all(isinstance(x, int) for x in v):     # (an empty list: the same bytes)
        return b.CreateNumpyVector(np.asarray(v, dtype=np.int32))
    if isinstance(v, list):
        return _offsets_vector(b, [_value(b, x, f) for x in v])
    return _table(b, v, f)


def _table(b, obj, f):
    """The table of a model_ir dataclass, whose fields are the schema's, in
    its order: every value written first, then each field added in turn."""
    name = type(obj).__name__
    fields = [(fld.name, _value(b, getattr(obj, fld.name), f)) for fld in dataclasses.fields(obj)
              if not (fld.name in _UNLESS_DEFAULT and getattr(obj, fld.name) == _UNLESS_DEFAULT[fld.name])]
    module = getattr(f, name)
    getattr(module, name + "Start")(b)
    for field, value in fields:
        if value is None:
            continue
        getattr(module, name + "Add" + accessor(field))(b, value)
    return getattr(module, name + "End")(b)


def _shortlist(b, model, f):
    """Format 2.5: the Shortlist table, after checking its rules (format/shortlist.py),
    with 2.7's sums of the output projection, derived from the weights being written."""
    sl = validate_shortlist(model.shortlist, model.config)
    row_sum, bias_sum = output_sums(model)
    vectors = [b.CreateNumpyVector(np.asarray(a, dtype=dtype))
               for a, dtype in ((sl.frequent, "<i4"), (sl.offsets, "<u4"), (sl.candidates, "<i4"), (row_sum, "<f4"))]
    description = b.CreateString(sl.description)
    f.Shortlist.ShortlistStart(b)
    f.Shortlist.ShortlistAddFrequent(b, vectors[0])
    f.Shortlist.ShortlistAddOffsets(b, vectors[1])
    f.Shortlist.ShortlistAddCandidates(b, vectors[2])
    f.Shortlist.ShortlistAddDescription(b, description)
    f.Shortlist.ShortlistAddOutputRowSum(b, vectors[3])
    f.Shortlist.ShortlistAddOutputBiasSum(b, bias_sum)
    if sl.pad_multiple > 1:  # format 2.9, written only when it pads
        f.Shortlist.ShortlistAddPadMultiple(b, sl.pad_multiple)
        f.Shortlist.ShortlistAddPadFrom(b, sl.pad_from)
        f.Shortlist.ShortlistAddPadUncounted(b, sl.pad_uncounted)
    return f.Shortlist.ShortlistEnd(b)


def _size_estimate(model):
    n = 1 << 20
    for t in _all_arrays(model):
        n += t.nbytes + 2 * DATA_ALIGNMENT
    if model.tokenizer is not None:
        n += len(model.tokenizer.source_model or b"") + len(model.tokenizer.target_model or b"")
        for pieces in (model.tokenizer.source_vocabulary, model.tokenizer.target_vocabulary):
            n += sum(len(p.encode("utf-8")) + 12 for p in pieces or ())
    return n


def _all_arrays(model):
    stack = [model]
    while stack:
        x = stack.pop()
        if isinstance(x, np.ndarray):
            yield x
        elif isinstance(x, list):
            stack.extend(x)
        elif dataclasses.is_dataclass(x):
            stack.extend(getattr(x, fld.name) for fld in dataclasses.fields(x))


def serialize(model):
    """The complete .edgemt file contents as bytes."""
    import flatbuffers
    f = fb()
    b = flatbuffers.Builder(_size_estimate(model))
    # Write every scalar, also those equal to the schema default, so that a
    # file is self-describing even for readers of a different schema version.
    b.ForceDefaults(True)
    config = model.config
    if model.has_embedding_norm():
        config = dataclasses.replace(config, norm=ir.NORM_WITH_EMBEDDING_NORM[config.norm])
    config, encoder, decoder, tokenizer, metadata = (
        _value(b, part, f) for part in (config, model.encoder, model.decoder, model.tokenizer, model.metadata))
    shortlist, minor = None, model.format_minor
    if model.shortlist is not None:
        shortlist = _shortlist(b, model, f)
        minor = max(minor, ir.FORMAT_MINOR_SHORTLIST_SUMS)
        if model.shortlist.pad_multiple > 1:
            minor = max(minor, ir.FORMAT_MINOR_SHORTLIST_PADDING)
    if model.has_int4_embedding():
        minor = max(minor, ir.FORMAT_MINOR_INT4_EMBEDDINGS)
    if model.uses_marian_features():
        minor = max(minor, ir.FORMAT_MINOR_MARIAN)
    f.Model.ModelStart(b)
    f.Model.ModelAddFormatMajor(b, model.format_major)
    f.Model.ModelAddFormatMinor(b, minor)
    f.Model.ModelAddConfig(b, config)
    f.Model.ModelAddEncoder(b, encoder)
    f.Model.ModelAddDecoder(b, decoder)
    if tokenizer is not None:
        f.Model.ModelAddTokenizer(b, tokenizer)
    f.Model.ModelAddMetadata(b, metadata)
    if shortlist is not None:
        f.Model.ModelAddShortlist(b, shortlist)
    root = f.Model.ModelEnd(b)
    b.Finish(root, file_identifier=b"EDMT")
    return bytes(b.Output())
