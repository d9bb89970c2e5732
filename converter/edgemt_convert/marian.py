"""Hugging Face Marian checkpoints (OPUS-MT, as downloaded from the hub).

A directory with config.json ("model_type": "marian"), model.safetensors or
pytorch_model.bin, source.spm, target.spm, vocab.json (target_vocab.json
with separate_vocabs), tokenizer_config.json and optionally
generation_config.json becomes a float32 model_ir.Model that computes what
transformers' modeling_marian.py computes:

  embeddings scaled by sqrt(d_model) when scale_embedding, sinusoidal
  positions with sin in the first half of the dimensions and cos in the
  second, from position 0 on both sides; no LayerNorm after the embeddings;
  post-LN layers; activation_function (swish = SiLU, gelu, relu); logits =
  lm_head(x) + final_logits_bias (the output projection's bias).

Token ids are vocab.json's, not the SentencePiece models': the file keeps
the piece of every id (Tokenizer.source_vocabulary / target_vocabulary) for
the runtime's tokenizer. Decoding starts from decoder_start_token_id, never
produces pad (nor any single-token bad_words_ids), and takes its beam size
and length limit from the generation config.

Everything that does not fit is collected and reported in one error, so a
user sees every problem of a checkpoint at once.
"""
import json
import math
import os

import numpy as np

from .format import model_ir as ir
from .errors import ConversionError
from .format.positions import matches_sinusoid, sinusoid_table

CONFIG_NAME = "config.json"
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
ACTIVATIONS = {"swish": ir.ACT_SILU, "silu": ir.ACT_SILU, "gelu": ir.ACT_GELU, "relu": ir.ACT_RELU}
LAYER_NORM_EPS = 1e-5          # modeling_marian.py uses nn.LayerNorm's default
MAX_BANNED_IDS = 4             # schema: Config.banned_ids


def is_marian(checkpoint_dir):
    """True when the directory's config.json says model_type "marian"."""
    try:
        with open(os.path.join(checkpoint_dir, CONFIG_NAME), encoding="utf-8") as f:
            raw = json.load(f)
    except (OSError, ValueError):
        return False
    return isinstance(raw, dict) and raw.get("model_type") == "marian"


def weights_path(checkpoint_dir):
    """The weight file this converter reads (safetensors first), or None."""
    for name in WEIGHT_FILES:
        path = os.path.join(checkpoint_dir, name)
        if os.path.exists(path):
            return path
    return None


class Problems:
    """Every reason the checkpoint cannot be converted, reported together."""

    def __init__(self, checkpoint_dir):
        self.checkpoint_dir = checkpoint_dir
        self.items = []

    def add(self, message):
        self.items.append(message)

    def raise_if_any(self):
        if self.items:
            lines = ["%s: this Marian checkpoint cannot be converted (%d problem%s):"
                     % (self.checkpoint_dir, len(self.items), "" if len(self.items) == 1 else "s")]
            lines += ["  - " + m for m in self.items]
            raise ConversionError("\n".join(lines))


def _read_json(path, problems, required=True):
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        if required:
            problems.add("%s: not found" % name)
    except (OSError, ValueError) as e:
        problems.add("%s: cannot read (%s)" % (name, e))
    return None


class _Config:
    """The config.json values the conversion uses, checked."""

    def __init__(self, raw, problems):
        self.problems = problems

        def integer(key, minimum=1, default=None):
            v = raw.get(key, default)
            if v is None:
                problems.add("config.json: missing %s" % key)
                return None
            if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
                problems.add("config.json: %s must be an integer >= %d, got %r" % (key, minimum, v))
                return None
            return v

        def flag(key, default):
            v = raw.get(key, default)
            if not isinstance(v, bool):
                problems.add("config.json: %s must be true or false, got %r" % (key, v))
                return default
            return v

        self.d_model = integer("d_model")
        self.encoder_layers = integer("encoder_layers")
        self.decoder_layers = integer("decoder_layers")
        self.heads = integer("encoder_attention_heads")
        decoder_heads = integer("decoder_attention_heads")
        self.d_ff = integer("encoder_ffn_dim")
        decoder_ff = integer("decoder_ffn_dim")
        self.max_positions = integer("max_position_embeddings", 2)
        self.vocab_size = integer("vocab_size")
        self.decoder_vocab_size = integer("decoder_vocab_size", 1, raw.get("vocab_size"))
        self.pad_id = integer("pad_token_id", 0)
        self.eos_id = integer("eos_token_id", 0)
        self.decoder_start_id = integer("decoder_start_token_id", 0, raw.get("pad_token_id"))
        self.scale_embedding = flag("scale_embedding", False)
        self.share_embeddings = flag("share_encoder_decoder_embeddings", True)
        self.tie_output = flag("tie_word_embeddings", True)
        if None not in (self.heads, decoder_heads) and self.heads != decoder_heads:
            problems.add("config.json: encoder_attention_heads %d and decoder_attention_heads %d differ "
                         "(EdgeMT models have one head count)" % (self.heads, decoder_heads))
        if None not in (self.d_ff, decoder_ff) and self.d_ff != decoder_ff:
            problems.add("config.json: encoder_ffn_dim %d and decoder_ffn_dim %d differ "
                         "(EdgeMT models have one feed-forward width)" % (self.d_ff, decoder_ff))
        if None not in (self.d_model, self.heads) and self.d_model % self.heads:
            problems.add("config.json: d_model %d is not a multiple of encoder_attention_heads %d"
                         % (self.d_model, self.heads))
        if self.d_model is not None and self.d_model % 2:
            problems.add("config.json: d_model %d must be even (sinusoidal positions)" % self.d_model)
        act = raw.get("activation_function", "gelu")
        self.activation = ACTIVATIONS.get(act) if isinstance(act, str) else None
        if self.activation is None:
            problems.add("config.json: activation_function %r is not one EdgeMT runs (%s)"
                         % (act, ", ".join(sorted(ACTIVATIONS))))
        # Layouts modeling_marian.py does not have: a BART/mBART-style checkpoint in Marian's clothes.
        for key, bad in (("normalize_before", True), ("normalize_embedding", True), ("add_final_layer_norm", True),
                         ("add_bias_logits", True), ("static_position_embeddings", False)):
            if key in raw and raw[key] == bad:
                problems.add("config.json: %s is %s; the Marian layout EdgeMT reproduces has it %s"
                             % (key, json.dumps(bad), json.dumps(not bad)))
        if self.share_embeddings and None not in (self.vocab_size, self.decoder_vocab_size) \
                and self.vocab_size != self.decoder_vocab_size:
            problems.add("config.json: share_encoder_decoder_embeddings needs vocab_size %d = decoder_vocab_size %d"
                         % (self.vocab_size, self.decoder_vocab_size))
        for key, value, size in (("pad_token_id", self.pad_id, self.decoder_vocab_size),
                                 ("eos_token_id", self.eos_id, self.decoder_vocab_size),
                                 ("decoder_start_token_id", self.decoder_start_id, self.decoder_vocab_size)):
            if None not in (value, size) and value >= size:
                problems.add("config.json: %s %d is outside the vocabulary (size %d)" % (key, value, size))

    @property
    def complete(self):
        return None not in (self.d_model, self.encoder_layers, self.decoder_layers, self.heads, self.d_ff,
                            self.max_positions, self.vocab_size, self.decoder_vocab_size)


def _expected_shapes(c):
    """{key: shape} of every tensor the layout has, without the embeddings (resolved separately)."""
    d, ff = c.d_model, c.d_ff
    shapes = {}
    for side, layers in (("encoder", c.encoder_layers), ("decoder", c.decoder_layers)):
        shapes["model.%s.embed_positions.weight" % side] = (c.max_positions, d)
        for i in range(layers):
            p = "model.%s.layers.%d." % (side, i)
            for block in ("self_attn",) + (("encoder_attn",) if side == "decoder" else ()):
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    shapes[p + "%s.%s.weight" % (block, proj)] = (d, d)
                    shapes[p + "%s.%s.bias" % (block, proj)] = (d,)
                shapes[p + block + "_layer_norm.weight"] = (d,)
                shapes[p + block + "_layer_norm.bias"] = (d,)
            shapes[p + "fc1.weight"], shapes[p + "fc1.bias"] = (ff, d), (ff,)
            shapes[p + "fc2.weight"], shapes[p + "fc2.bias"] = (d, ff), (d,)
            shapes[p + "final_layer_norm.weight"] = (d,)
            shapes[p + "final_layer_norm.bias"] = (d,)
    shapes["final_logits_bias"] = (1, c.decoder_vocab_size)
    return shapes


EMBEDDING_KEYS = ("model.shared.weight", "model.encoder.embed_tokens.weight",
                  "model.decoder.embed_tokens.weight", "lm_head.weight")
# Positions are a fixed sinusoid, and the logits bias a buffer that starts at zero: transformers may leave
# them out of a file (and then computes the sinusoid, or zeros).
OPTIONAL_KEYS = ("model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight", "final_logits_bias")


def _load_tensors(path, problems):
    """{name: float32 ndarray} from model.safetensors or pytorch_model.bin."""
    name = os.path.basename(path)
    if name.endswith(".safetensors"):
        from .safetensors import read
        try:
            tensors = read(path)
        except ConversionError as e:
            problems.add(str(e))
            return None
    else:
        import torch
        try:
            sd = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as e:  # torch raises many types (pickle, zip, runtime)
            problems.add("%s: cannot read (%s)" % (name, (str(e).strip().splitlines() or [type(e).__name__])[0][:200]))
            return None
        if not isinstance(sd, dict) or not all(isinstance(v, torch.Tensor) for v in sd.values()):
            problems.add("%s: not a state_dict of tensors" % name)
            return None
        tensors = {}
        for k, t in sd.items():
            if not t.is_floating_point():
                problems.add("%s: %s has dtype %s, expected floating point" % (name, k, t.dtype))
                continue
            tensors[k] = t.detach().to(torch.float32).contiguous().numpy()
    out = {}
    for k, a in tensors.items():
        a = np.asarray(a)
        if a.dtype.kind != "f":
            problems.add("%s: %s has dtype %s, expected floating point" % (name, k, a.dtype))
            continue
        out[k] = np.ascontiguousarray(a, dtype=np.float32)
    return out


def _shape_str(shape):
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _check_tensors(sd, c, problems, weights_name):
    """Resolves the embeddings (a tied weight may be stored once) and checks keys and shapes.
    Returns (source embedding, target embedding, output weight or None when tied) or None."""
    want = _expected_shapes(c)
    for key in want:
        if key not in sd and key not in OPTIONAL_KEYS:
            problems.add("%s: missing %s" % (weights_name, key))
    for key in sorted(set(sd) - set(want) - set(EMBEDDING_KEYS)):
        what = ""
        if "layernorm_embedding" in key:
            what = " (a LayerNorm after the embeddings, which the Marian layout does not have)"
        elif key.endswith("layer_norm.weight") or key.endswith("layer_norm.bias"):
            what = " (a final LayerNorm, which the Marian layout does not have)"
        problems.add("%s: unexpected key %s%s" % (weights_name, key, what))
    for key, shape in want.items():
        if key in sd and tuple(sd[key].shape) != shape:
            problems.add("%s: %s has shape %s, config.json implies %s"
                         % (weights_name, key, _shape_str(sd[key].shape), _shape_str(shape)))
    for key, a in sd.items():
        if not np.all(np.isfinite(a)):
            problems.add("%s: %s contains %s" % (weights_name, key, "NaN" if np.isnan(a).any() else "infinite values"))

    # Embeddings: the shared table, or the encoder's and decoder's own.
    def first(*keys):
        for k in keys:
            if k in sd:
                return k
        return None

    if c.share_embeddings:
        src_key = first("model.shared.weight", "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight")
        tgt_key = src_key
    else:
        src_key = first("model.encoder.embed_tokens.weight", "model.shared.weight")
        tgt_key = first("model.decoder.embed_tokens.weight")
    out_key = None if c.tie_output else first("lm_head.weight")
    for what, key, rows in (("encoder embeddings", src_key, c.vocab_size),
                            ("decoder embeddings", tgt_key, c.decoder_vocab_size)):
        if key is None:
            problems.add("%s: missing the %s (model.shared.weight or model.%s.embed_tokens.weight)"
                         % (weights_name, what, what.split()[0]))
        elif tuple(sd[key].shape) != (rows, c.d_model):
            problems.add("%s: %s has shape %s, config.json implies %s (%s)"
                         % (weights_name, key, _shape_str(sd[key].shape), _shape_str((rows, c.d_model)), what))
    if not c.tie_output:
        if out_key is None:
            problems.add("%s: missing lm_head.weight (config.json says tie_word_embeddings: false)" % weights_name)
        elif tuple(sd[out_key].shape) != (c.decoder_vocab_size, c.d_model):
            problems.add("%s: lm_head.weight has shape %s, config.json implies %s"
                         % (weights_name, _shape_str(sd[out_key].shape), _shape_str((c.decoder_vocab_size, c.d_model))))
    if problems.items:
        return None
    return sd[src_key], sd[tgt_key], (sd[out_key] if out_key else None)


def _vocabulary(path, size, problems, where):
    """The piece of each id of a vocab.json ({piece: id}), checked to be 0..size-1 once each."""
    raw = _read_json(path, problems)
    if raw is None:
        return None
    name = os.path.basename(path)
    if not isinstance(raw, dict) or not all(isinstance(k, str) for k in raw):
        problems.add("%s: expected a JSON object {piece: id}" % name)
        return None
    pieces = [None] * len(raw)
    for piece, i in raw.items():
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(raw) or pieces[i] is not None:
            problems.add("%s: the ids are not 0..%d, each once (%r: %r)" % (name, len(raw) - 1, piece, i))
            return None
        pieces[i] = piece
    if size is not None and len(pieces) != size:
        problems.add("%s: %d pieces, config.json %s is %d" % (name, len(pieces), where, size))
    for special in ("</s>", "<unk>"):
        if special not in raw:
            problems.add("%s: has no %s" % (name, special))
    return pieces


def _spm(path, problems):
    from .format.tokenizer import load_processor
    name = os.path.basename(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        problems.add("%s: not found" % name)
        return None
    except OSError as e:
        problems.add("%s: cannot read (%s)" % (name, e.strerror or e))
        return None
    try:
        load_processor(data)
    except Exception as e:  # sentencepiece raises RuntimeError/OSError variants
        problems.add("%s: not a SentencePiece model (%s)" % (name, (str(e).splitlines() or [type(e).__name__])[0][:120]))
        return None
    return data


def _generation(checkpoint_dir, raw_config, c, problems, notes):
    """(banned ids, default beam size, default max_length in output ids) from
    generation_config.json, or config.json's generation keys without one."""
    gen = _read_json(os.path.join(checkpoint_dir, "generation_config.json"), problems, required=False)
    source = "generation_config.json" if gen is not None else "config.json"
    if gen is None:
        gen = raw_config
    if not isinstance(gen, dict):
        problems.add("%s: expected a JSON object" % source)
        return [], 0, 0
    banned = [c.pad_id] if c.pad_id is not None and c.pad_id < (c.decoder_vocab_size or 0) else []
    for seq in gen.get("bad_words_ids") or []:
        if isinstance(seq, list) and len(seq) == 1 and isinstance(seq[0], int) and not isinstance(seq[0], bool) \
                and 0 <= seq[0] < (c.decoder_vocab_size or 0):
            if seq[0] not in banned:
                banned.append(seq[0])
        else:
            notes.append("%s: bad_words_ids entry %r is not a single id of the vocabulary; ignored" % (source, seq))
    if len(banned) > MAX_BANNED_IDS:
        problems.add("%s: %d banned ids (bad_words_ids and pad); EdgeMT files hold at most %d"
                     % (source, len(banned), MAX_BANNED_IDS))
    beams = gen.get("num_beams", 0) or 0
    if isinstance(beams, bool) or not isinstance(beams, int) or beams < 0:
        problems.add("%s: num_beams must be a positive integer, got %r" % (source, beams))
        beams = 0
    length = gen.get("max_length", 0) or 0
    if isinstance(length, bool) or not isinstance(length, int) or length < 0:
        problems.add("%s: max_length must be a positive integer, got %r" % (source, length))
        length = 0
    # transformers counts the decoder start token in max_length; EdgeMT counts output ids.
    max_output = max(length - 1, 0)
    if max_output and c.max_positions:
        max_output = min(max_output, c.max_positions)
    return banned, beams, max_output


def load_float_model(checkpoint_dir, make_metadata):
    """(float32 model_ir.Model, notes) of a Marian checkpoint directory; one
    ConversionError lists every problem found. make_metadata((source, target))
    gets tokenizer_config.json's language codes ("" when unknown)."""
    problems = Problems(checkpoint_dir)
    notes = []
    raw = _read_json(os.path.join(checkpoint_dir, CONFIG_NAME), problems)
    if not isinstance(raw, dict):
        problems.raise_if_any()
        raise ConversionError("%s: config.json is not a JSON object" % checkpoint_dir)
    c = _Config(raw, problems)
    tok_config = _read_json(os.path.join(checkpoint_dir, "tokenizer_config.json"), problems, required=False) or {}
    if not isinstance(tok_config, dict):
        tok_config = {}
    separate = bool(tok_config.get("separate_vocabs", False))
    languages = tuple(v if isinstance(v, str) else "" for v in (tok_config.get("source_lang"),
                                                                tok_config.get("target_lang")))
    if separate and c.share_embeddings:
        problems.add("tokenizer_config.json says separate_vocabs, config.json share_encoder_decoder_embeddings")

    src_vocab = _vocabulary(os.path.join(checkpoint_dir, "vocab.json"), c.vocab_size, problems, "vocab_size")
    tgt_vocab = src_vocab
    if separate:
        tgt_vocab = _vocabulary(os.path.join(checkpoint_dir, "target_vocab.json"), c.decoder_vocab_size, problems,
                                "decoder_vocab_size")
    elif src_vocab is not None and c.decoder_vocab_size is not None and len(src_vocab) != c.decoder_vocab_size:
        problems.add("vocab.json: %d pieces, config.json decoder_vocab_size is %d (and there is no "
                     "target_vocab.json)" % (len(src_vocab), c.decoder_vocab_size))
    ids = {}
    if src_vocab is not None and tgt_vocab is not None:
        for piece in ("</s>", "<unk>"):
            if piece in src_vocab and piece in tgt_vocab and src_vocab.index(piece) != tgt_vocab.index(piece):
                problems.add("%s has id %d in vocab.json and %d in target_vocab.json (EdgeMT models give it one id)"
                             % (piece, src_vocab.index(piece), tgt_vocab.index(piece)))
        if "</s>" in tgt_vocab:
            ids["eos"] = tgt_vocab.index("</s>")
            if c.eos_id is not None and ids["eos"] != c.eos_id:
                problems.add("config.json: eos_token_id %d, but </s> is id %d in the vocabulary" % (c.eos_id, ids["eos"]))
        if "<unk>" in src_vocab:
            ids["unk"] = src_vocab.index("<unk>")
    source_spm = _spm(os.path.join(checkpoint_dir, "source.spm"), problems)
    target_spm = _spm(os.path.join(checkpoint_dir, "target.spm"), problems)
    banned, beams, max_length = _generation(checkpoint_dir, raw, c, problems, notes)

    path = weights_path(checkpoint_dir)
    tensors = None
    if path is None:
        problems.add("no weights: neither %s" % " nor ".join(WEIGHT_FILES))
    elif c.complete:
        sd = _load_tensors(path, problems)
        if sd is not None:
            tensors = _check_tensors(sd, c, problems, os.path.basename(path))
    problems.raise_if_any()

    src_emb, tgt_emb, out_weight = tensors
    d = c.d_model
    positions = {}
    layout = "halves"
    for side in ("encoder", "decoder"):
        table = sd.get("model.%s.embed_positions.weight" % side)
        if table is None:
            positions[side] = None
            continue
        ok, diff = matches_sinusoid(table, layout)
        positions[side] = None if ok else table
        if not ok:
            notes.append("positions: model.%s.embed_positions differs from the sinusoid by up to %.3g; "
                         "stored as Learned tables" % (side, diff))
    if any(t is not None for t in positions.values()):
        exact = sinusoid_table(c.max_positions, d, layout)
        positions = {s: np.ascontiguousarray(t if t is not None else exact) for s, t in positions.items()}
        position_encoding = ir.POS_LEARNED
    else:
        position_encoding = ir.POS_HALVES

    def linear(prefix):
        return ir.Linear(weight=ir.Tensor(sd[prefix + ".weight"]), bias=sd[prefix + ".bias"])

    def attention(prefix):
        return ir.Attention(query=linear(prefix + ".q_proj"), key=linear(prefix + ".k_proj"),
                            value=linear(prefix + ".v_proj"), output=linear(prefix + ".out_proj"))

    def norm(prefix):
        return ir.LayerNorm(gamma=sd[prefix + ".weight"], beta=sd[prefix + ".bias"])

    def feed_forward(prefix):
        return ir.FeedForward(up=linear(prefix + "fc1"), down=linear(prefix + "fc2"))

    enc_layers = []
    for i in range(c.encoder_layers):
        p = "model.encoder.layers.%d." % i
        enc_layers.append(ir.EncoderLayer(
            self_attention=attention(p + "self_attn"), self_attention_norm=norm(p + "self_attn_layer_norm"),
            feed_forward=feed_forward(p), feed_forward_norm=norm(p + "final_layer_norm")))
    dec_layers = []
    for i in range(c.decoder_layers):
        p = "model.decoder.layers.%d." % i
        dec_layers.append(ir.DecoderLayer(
            self_attention=attention(p + "self_attn"), self_attention_norm=norm(p + "self_attn_layer_norm"),
            cross_attention=attention(p + "encoder_attn"), cross_attention_norm=norm(p + "encoder_attn_layer_norm"),
            feed_forward=feed_forward(p), feed_forward_norm=norm(p + "final_layer_norm")))

    shared = src_emb is tgt_emb or (src_emb.shape == tgt_emb.shape and np.array_equal(src_emb, tgt_emb))
    if shared:
        notes.append("embeddings: encoder and decoder token embeddings are one table; stored once")
    if "final_logits_bias" in sd:
        logits_bias = np.ascontiguousarray(sd["final_logits_bias"][0])
    else:
        logits_bias = np.zeros(c.decoder_vocab_size, np.float32)
        notes.append("final_logits_bias: not in the file; zeros, as transformers starts it")
    projection = ir.Linear(weight=None if out_weight is None else ir.Tensor(out_weight), bias=logits_bias)
    config = ir.Config(
        d_model=d, num_heads=c.heads, d_ff=c.d_ff, encoder_layers=c.encoder_layers,
        decoder_layers=c.decoder_layers, source_vocab_size=c.vocab_size, target_vocab_size=c.decoder_vocab_size,
        max_positions=c.max_positions, norm=ir.NORM_POST, layer_norm_epsilon=LAYER_NORM_EPS,
        activation=c.activation, embedding_scale=math.sqrt(d) if c.scale_embedding else 1.0,
        position_encoding=position_encoding, shared_embeddings=shared, tied_output=out_weight is None,
        pad_id=src_vocab.index("<pad>") if "<pad>" in src_vocab else c.pad_id, unk_id=ids["unk"], bos_id=c.decoder_start_id, eos_id=c.eos_id,
        decoder_start_id=c.decoder_start_id, banned_ids=banned, default_beam_size=beams,
        default_max_length=max_length)
    tokenizer = ir.Tokenizer(
        source_model=source_spm, target_model=None if target_spm == source_spm else target_spm,
        source_vocabulary=src_vocab, target_vocabulary=None if tgt_vocab is src_vocab else tgt_vocab)
    model = ir.Model(
        config=config,
        encoder=ir.Encoder(token_embedding=None if shared else ir.Tensor(src_emb), positions=positions.get("encoder"),
                           layers=enc_layers),
        decoder=ir.Decoder(token_embedding=ir.Tensor(tgt_emb), positions=positions.get("decoder"), layers=dec_layers,
                           final_norm=None, output_projection=projection),
        tokenizer=tokenizer, metadata=make_metadata(languages), format_minor=ir.FORMAT_MINOR_VOCABULARY)
    return model, notes
