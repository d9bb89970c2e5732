"""Writes CTranslate2 model directories for tests, without CTranslate2: a
model.bin of any binary version (1-6) from named numpy arrays, the layout
CTranslate2's models/model.cc reads (our own writer, the inverse of
converter/edgemt_convert/sources/ctranslate2/model_bin.py), and random
TransformerSpec variables with vocabularies and config.json.

    variables = transformer(d_model=16, heads=2, ...)
    write_directory(path, variables, source_vocab, target_vocab, version=6)
"""
import json
import os
import struct

import numpy as np

TYPE_IDS = {"float32": 0, "int8": 1, "int16": 2, "int32": 3, "float16": 4, "bfloat16": 5}
ITEM_SIZES = {"float32": 4, "int16": 2, "int8": 1}


def _string(text):
    raw = text.encode("utf-8") + b"\0"
    return struct.pack("<H", len(raw)) + raw


def model_bin(variables, version=6, spec="TransformerSpec", revision=7, aliases=None, types=None):
    """The bytes of a model.bin. variables: {name: ndarray} (written in name
    order, as CTranslate2's writer does); types: {name: "bfloat16"} for arrays
    of raw bfloat16 bits (uint16); aliases: {alias: target} (version 3 and later)."""
    out = [struct.pack("<I", version)]
    if version >= 2:
        out += [_string(spec), struct.pack("<I", revision)]
    out.append(struct.pack("<I", len(variables)))
    for name in sorted(variables):
        value = np.asarray(variables[name])
        value = value if value.flags.c_contiguous else value.copy()   # (ascontiguousarray makes scalars 1-D)
        kind = (types or {}).get(name) or str(value.dtype)
        out += [_string(name), struct.pack("<B", value.ndim), struct.pack("<%dI" % value.ndim, *value.shape)]
        if version >= 4:
            out.append(struct.pack("<BI", TYPE_IDS[kind], value.nbytes))
        else:
            out.append(struct.pack("<BI", ITEM_SIZES[kind], value.size))
        out.append(value.astype(value.dtype.newbyteorder("<"), copy=False).tobytes())
    if version >= 3:
        aliases = aliases or {}
        out.append(struct.pack("<I", len(aliases)))
        for alias, target in aliases.items():
            out += [_string(alias), _string(target)]
    return b"".join(out)


def transformer(d_model=16, heads=2, d_ff=32, encoder_layers=2, decoder_layers=2, source_vocab=20, target_vocab=24,
                pre_norm=True, activation=0, seed=0):
    """Random float32 variables of a current-revision TransformerSpec."""
    rng = np.random.default_rng(seed)
    d = d_model

    def w(*shape):
        return (rng.standard_normal(shape) * 0.3).astype(np.float32)

    v = {"encoder/embeddings_0/weight": w(source_vocab, d), "decoder/embeddings/weight": w(target_vocab, d),
         "decoder/projection/weight": w(target_vocab, d), "decoder/projection/bias": w(target_vocab)}
    for side in ("encoder", "decoder"):
        v.update({side + "/num_heads": np.array(heads, np.int16), side + "/pre_norm": np.array(pre_norm, np.int8),
                  side + "/activation": np.array(activation, np.int8),
                  side + "/scale_embeddings": np.array(True, np.int8)})
        if pre_norm:
            v.update({side + "/layer_norm/gamma": 1 + w(d), side + "/layer_norm/beta": w(d)})

    def norm(scope):
        v[scope + "/layer_norm/gamma"], v[scope + "/layer_norm/beta"] = 1 + w(d), w(d)

    def linear(scope, out, inp):
        v[scope + "/weight"], v[scope + "/bias"] = w(out, inp), w(out)

    for side, layers in (("encoder", encoder_layers), ("decoder", decoder_layers)):
        for i in range(layers):
            s = "%s/layer_%d" % (side, i)
            linear(s + "/self_attention/linear_0", 3 * d, d)
            linear(s + "/self_attention/linear_1", d, d)
            norm(s + "/self_attention")
            if side == "decoder":
                linear(s + "/attention/linear_0", d, d)
                linear(s + "/attention/linear_1", 2 * d, d)
                linear(s + "/attention/linear_2", d, d)
                norm(s + "/attention")
            linear(s + "/ffn/linear_0", d_ff, d)
            linear(s + "/ffn/linear_1", d, d_ff)
            norm(s + "/ffn")
    return v


def quantize_int8(variables):
    """CTranslate2's int8 (version 5 and later): every 2-D weight becomes q =
    rint(w * scale) with scale = 127 / max|row| per row, and gets "_scale"."""
    out = dict(variables)
    for name, value in variables.items():
        if name.endswith("weight") and value.ndim == 2:
            amax = np.abs(value).max(axis=1)
            scale = np.where(amax == 0, 1.0, 127.0 / np.where(amax == 0, 1, amax)).astype(np.float32)
            out[name] = np.rint(value * scale[:, None]).astype(np.int8)
            out[name + "_scale"] = scale
    return out


def vocabulary(n, specials=("<blank>", "<s>", "</s>", "<unk>")):
    return list(specials) + ["t%d" % i for i in range(n - len(specials))]


def write_directory(path, variables, source_vocab, target_vocab, version=6, config=None, aliases=None,
                    types=None, spec="TransformerSpec", revision=7, vocab_format="txt"):
    """A CTranslate2 model directory: model.bin, the vocabularies and (version 6) config.json."""
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "model.bin"), "wb") as f:
        f.write(model_bin(variables, version, spec, revision, aliases, types))
    pairs = [("shared_vocabulary", source_vocab)] if source_vocab is target_vocab else \
        [("source_vocabulary", source_vocab), ("target_vocabulary", target_vocab)]
    for name, tokens in pairs:
        if vocab_format == "json":
            with open(os.path.join(path, name + ".json"), "w", encoding="utf-8") as f:
                json.dump(tokens, f, ensure_ascii=False)
        else:
            with open(os.path.join(path, name + ".txt"), "w", encoding="utf-8") as f:
                f.write("".join(t + "\n" for t in tokens))
    if version >= 6:
        base = dict(unk_token="<unk>", bos_token="<s>", eos_token="</s>", decoder_start_token="<s>",
                    add_source_bos=False, add_source_eos=False, layer_norm_epsilon=None)
        with open(os.path.join(path, "config.json"), "w") as f:
            json.dump(dict(base, **(config or {})), f)
