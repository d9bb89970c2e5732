"""model_ir.Model -> .edgemt bytes with the generated FlatBuffers builders.

Every Tensor.data vector is aligned to 64 bytes from the start of the file
(so a memory-mapped file can feed XNNPACK in place). FlatBuffers aligns
relative to the end of the buffer, and Finish() pads the whole buffer to the
largest alignment used, so aligning to 64 from the end is aligning to 64 from
the start. tests/test_writer_reader.py checks it on real files.
"""
import numpy as np

from . import model_ir as ir
from .int4_encoding import pack_nibbles, to_bfloat16
from .schema import fb

DATA_ALIGNMENT = 64


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


def _linear(b, lin, f):
    w = _tensor(b, lin.weight, f) if lin.weight is not None else None
    bias = _float_tensor(b, lin.bias, f) if lin.bias is not None else None
    f.Linear.LinearStart(b)
    if w is not None:
        f.Linear.LinearAddWeight(b, w)
    if bias is not None:
        f.Linear.LinearAddBias(b, bias)
    return f.Linear.LinearEnd(b)


def _layer_norm(b, ln, f):
    if ln is None:
        return None
    gamma, beta = _float_tensor(b, ln.gamma, f), _float_tensor(b, ln.beta, f)
    f.LayerNorm.LayerNormStart(b)
    f.LayerNorm.LayerNormAddGamma(b, gamma)
    f.LayerNorm.LayerNormAddBeta(b, beta)
    return f.LayerNorm.LayerNormEnd(b)


def _attention(b, att, f):
    q, k, v, o = (_linear(b, getattr(att, n), f) for n in ("query", "key", "value", "output"))
    f.Attention.AttentionStart(b)
    f.Attention.AttentionAddQuery(b, q)
    f.Attention.AttentionAddKey(b, k)
    f.Attention.AttentionAddValue(b, v)
    f.Attention.AttentionAddOutput(b, o)
    return f.Attention.AttentionEnd(b)


def _feed_forward(b, ffn, f):
    up, down = _linear(b, ffn.up, f), _linear(b, ffn.down, f)
    f.FeedForward.FeedForwardStart(b)
    f.FeedForward.FeedForwardAddUp(b, up)
    f.FeedForward.FeedForwardAddDown(b, down)
    return f.FeedForward.FeedForwardEnd(b)


def _encoder_layer(b, layer, f):
    sa = _attention(b, layer.self_attention, f)
    san = _layer_norm(b, layer.self_attention_norm, f)
    ff = _feed_forward(b, layer.feed_forward, f)
    ffn = _layer_norm(b, layer.feed_forward_norm, f)
    m = f.EncoderLayer
    m.EncoderLayerStart(b)
    m.EncoderLayerAddSelfAttention(b, sa)
    m.EncoderLayerAddSelfAttentionNorm(b, san)
    m.EncoderLayerAddFeedForward(b, ff)
    m.EncoderLayerAddFeedForwardNorm(b, ffn)
    return m.EncoderLayerEnd(b)


def _decoder_layer(b, layer, f):
    sa = _attention(b, layer.self_attention, f)
    san = _layer_norm(b, layer.self_attention_norm, f)
    ca = _attention(b, layer.cross_attention, f)
    can = _layer_norm(b, layer.cross_attention_norm, f)
    ff = _feed_forward(b, layer.feed_forward, f)
    ffn = _layer_norm(b, layer.feed_forward_norm, f)
    m = f.DecoderLayer
    m.DecoderLayerStart(b)
    m.DecoderLayerAddSelfAttention(b, sa)
    m.DecoderLayerAddSelfAttentionNorm(b, san)
    m.DecoderLayerAddCrossAttention(b, ca)
    m.DecoderLayerAddCrossAttentionNorm(b, can)
    m.DecoderLayerAddFeedForward(b, ff)
    m.DecoderLayerAddFeedForwardNorm(b, ffn)
    return m.DecoderLayerEnd(b)


def _offsets_vector(b, offsets, start_vector):
    start_vector(b, len(offsets))
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


def _encoder(b, enc, f):
    emb = _tensor(b, enc.token_embedding, f) if enc.token_embedding is not None else None
    pos = _float_tensor(b, enc.positions, f) if enc.positions is not None else None
    layers = _offsets_vector(b, [_encoder_layer(b, l, f) for l in enc.layers], f.Encoder.EncoderStartLayersVector)
    final = _layer_norm(b, enc.final_norm, f)
    f.Encoder.EncoderStart(b)
    if emb is not None:
        f.Encoder.EncoderAddTokenEmbedding(b, emb)
    if pos is not None:
        f.Encoder.EncoderAddPositions(b, pos)
    f.Encoder.EncoderAddLayers(b, layers)
    if final is not None:
        f.Encoder.EncoderAddFinalNorm(b, final)
    return f.Encoder.EncoderEnd(b)


def _decoder(b, dec, f):
    emb = _tensor(b, dec.token_embedding, f)
    pos = _float_tensor(b, dec.positions, f) if dec.positions is not None else None
    layers = _offsets_vector(b, [_decoder_layer(b, l, f) for l in dec.layers], f.Decoder.DecoderStartLayersVector)
    final = _layer_norm(b, dec.final_norm, f)
    proj = _linear(b, dec.output_projection, f)
    f.Decoder.DecoderStart(b)
    f.Decoder.DecoderAddTokenEmbedding(b, emb)
    if pos is not None:
        f.Decoder.DecoderAddPositions(b, pos)
    f.Decoder.DecoderAddLayers(b, layers)
    if final is not None:
        f.Decoder.DecoderAddFinalNorm(b, final)
    f.Decoder.DecoderAddOutputProjection(b, proj)
    return f.Decoder.DecoderEnd(b)


def _int32_vector(b, values):
    return None if values is None else b.CreateNumpyVector(np.asarray(values, dtype=np.int32))


def _config(b, c, f):
    m = f.Config
    banned = _int32_vector(b, c.banned_ids)
    m.ConfigStart(b)
    m.ConfigAddDModel(b, c.d_model)
    m.ConfigAddNumHeads(b, c.num_heads)
    m.ConfigAddDFf(b, c.d_ff)
    m.ConfigAddEncoderLayers(b, c.encoder_layers)
    m.ConfigAddDecoderLayers(b, c.decoder_layers)
    m.ConfigAddSourceVocabSize(b, c.source_vocab_size)
    m.ConfigAddTargetVocabSize(b, c.target_vocab_size)
    m.ConfigAddMaxPositions(b, c.max_positions)
    m.ConfigAddNorm(b, c.norm)
    m.ConfigAddLayerNormEpsilon(b, c.layer_norm_epsilon)
    m.ConfigAddActivation(b, c.activation)
    m.ConfigAddEmbeddingScale(b, c.embedding_scale)
    m.ConfigAddPositionEncoding(b, c.position_encoding)
    m.ConfigAddSharedEmbeddings(b, c.shared_embeddings)
    m.ConfigAddTiedOutput(b, c.tied_output)
    m.ConfigAddPadId(b, c.pad_id)
    m.ConfigAddUnkId(b, c.unk_id)
    m.ConfigAddBosId(b, c.bos_id)
    m.ConfigAddEosId(b, c.eos_id)
    m.ConfigAddDecoderStartId(b, c.decoder_start_id)
    if banned is not None:
        m.ConfigAddBannedIds(b, banned)
    # Format 2.2 fields only when stated: a 2.0 or 2.1 file stays what it was.
    if c.default_beam_size:
        m.ConfigAddDefaultBeamSize(b, c.default_beam_size)
    if c.default_max_length:
        m.ConfigAddDefaultMaxLength(b, c.default_max_length)
    return m.ConfigEnd(b)


def _bytes_vector(b, data):
    return b.CreateNumpyVector(np.frombuffer(data, dtype=np.uint8))


def _tokenizer(b, tok, f):
    if tok is None:
        return None
    src = _bytes_vector(b, tok.source_model)
    tgt = _bytes_vector(b, tok.target_model) if tok.target_model is not None else None
    vocabularies = {}
    for side in ("source", "target"):
        pieces = getattr(tok, side + "_vocabulary")
        if pieces is not None:
            offsets = [b.CreateString(p) for p in pieces]
            b.StartVector(4, len(offsets), 4)
            for o in reversed(offsets):
                b.PrependUOffsetTRelative(o)
            vocabularies[side] = b.EndVector()
    f.Tokenizer.TokenizerStart(b)
    f.Tokenizer.TokenizerAddSourceModel(b, src)
    if tgt is not None:
        f.Tokenizer.TokenizerAddTargetModel(b, tgt)
    if "source" in vocabularies:
        f.Tokenizer.TokenizerAddSourceVocabulary(b, vocabularies["source"])
    if "target" in vocabularies:
        f.Tokenizer.TokenizerAddTargetVocabulary(b, vocabularies["target"])
    return f.Tokenizer.TokenizerEnd(b)


def _metadata(b, md, f):
    names = ("source_language", "target_language", "converter_version", "source_checkpoint",
             "dtype", "quantization_summary")
    strings = {n: b.CreateString(getattr(md, n)) for n in names}
    m = f.Metadata
    m.MetadataStart(b)
    m.MetadataAddSourceLanguage(b, strings["source_language"])
    m.MetadataAddTargetLanguage(b, strings["target_language"])
    m.MetadataAddConverterVersion(b, strings["converter_version"])
    m.MetadataAddSourceCheckpoint(b, strings["source_checkpoint"])
    m.MetadataAddDtype(b, strings["dtype"])
    m.MetadataAddQuantizationSummary(b, strings["quantization_summary"])
    return m.MetadataEnd(b)


def _size_estimate(model):
    n = 1 << 20
    for t in _all_arrays(model):
        n += t.nbytes + 2 * DATA_ALIGNMENT
    if model.tokenizer is not None:
        n += len(model.tokenizer.source_model) + len(model.tokenizer.target_model or b"")
        for pieces in (model.tokenizer.source_vocabulary, model.tokenizer.target_vocabulary):
            n += sum(len(p.encode("utf-8")) + 12 for p in pieces or ())
    return n


def _all_arrays(model):
    import dataclasses
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
    config = _config(b, model.config, f)
    encoder = _encoder(b, model.encoder, f)
    decoder = _decoder(b, model.decoder, f)
    tokenizer = _tokenizer(b, model.tokenizer, f)
    metadata = _metadata(b, model.metadata, f)
    f.Model.ModelStart(b)
    f.Model.ModelAddFormatMajor(b, model.format_major)
    f.Model.ModelAddFormatMinor(b, model.format_minor)
    f.Model.ModelAddConfig(b, config)
    f.Model.ModelAddEncoder(b, encoder)
    f.Model.ModelAddDecoder(b, decoder)
    if tokenizer is not None:
        f.Model.ModelAddTokenizer(b, tokenizer)
    f.Model.ModelAddMetadata(b, metadata)
    root = f.Model.ModelEnd(b)
    b.Finish(root, file_identifier=b"EDMT")
    return bytes(b.Output())
