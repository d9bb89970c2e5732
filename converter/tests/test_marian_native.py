"""Marian's own model files (sources/marian_native/): Firefox Translations'
models and OPUS-MT releases.

Without ../shared: tiny models written here by a small writer of Marian's
.bin (float32, intgemm8) and .npz formats, plain and gzip'd: the reader, the
names -> model_ir mapping (SSRU and self-attention decoders, every embedding
layout), the float model against a numpy forward pass written here from
Marian's equations (../shared/bench/bergamot/README.md, "What Marian
computes"), intgemm8 weights bit for bit in an int8 file, the alphas, the
shortlist with Bergamot's selection, Firefox's and OPUS-MT's folder layouts,
and every refusal (damaged files, vocabularies, unsupported options in one
message, no file written).

With ../shared (skipped without it): models written by the Bergamot kit's
export_marian.py (micro preset), converted with no option, decoded greedily
by the reference model and compared with the kit's independent
marian_reference.py on 20 Multi30k dev sentences; and the from-seed export
of the trained Multi30k model.
"""
import gzip
import io
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import unittest
import zipfile

import numpy as np

from helpers import SHARED, TempDir, convert, convert_error, run_cli, train_spm

from edgemt_convert.errors import ConversionError
from edgemt_convert.format import model_ir as ir
from edgemt_convert.format.reader import read
from edgemt_convert.format.tokenizer import TextCodec
from edgemt_convert.reference.decode import greedy, source_ids
from edgemt_convert.reference.model import ReferenceModel
from edgemt_convert.shortlist.bergamot import MAGIC, checksum
from edgemt_convert.shortlist.table import allowed
from edgemt_convert.sources import importer_for, load_checkpoint, marian_native
from edgemt_convert.sources.marian_native.model_file import read_model

KIT = os.path.join(SHARED, "bench", "bergamot")
DEV_EN = os.path.join(SHARED, "data", "multi30k", "dev.en")
SEED_MODEL = os.path.join(SHARED, "models", "multi30k-ende")
D, FF, HEADS = 16, 32, 2

# ------------------------------------------------------------------ a writer of Marian's files

FLOAT32, INT8, INTGEMM8 = 0x0404, 0x0101, 0x4101
META = "special:model.yml"


def is_intgemm8_name(name):
    """marian-conv's rule: the first "_W" 3 or 2 characters from the end, or "Wemb" in the name."""
    p = name.find("_W")
    return (p != -1 and p in (len(name) - 3, len(name) - 2)) or "Wemb" in name


def intgemm8(name, w):
    """(stored int8 bytes as marian-conv writes them, qm): transposed unless a Wemb name."""
    w = np.asarray(w, np.float32)
    qm = np.float32(127.0) / np.float32(np.abs(w).max())
    src = w if ("Wemb" in name or w.ndim < 2) else w.T
    q = np.clip(np.rint(src * qm), -127, 127).astype(np.int8)
    return np.ascontiguousarray(q).tobytes() + struct.pack("<f", float(qm)), qm


def bin_bytes(params, yml, gemm="float32"):
    """A Marian binary model: every tensor padded to 256 bytes, the data on a 256-byte boundary."""
    items = []
    for name in sorted(params):
        v = np.ascontiguousarray(params[name], np.float32)
        if gemm == "intgemm8" and is_intgemm8_name(name):
            items.append((name, v.shape, INTGEMM8, intgemm8(name, v)[0]))
        else:
            items.append((name, v.shape, FLOAT32, v.tobytes()))
    items.append((META, (len(yml) + 1,), INT8, yml.encode() + b"\0"))
    datas = [d if n == META else d + b"\0" * (-len(d) % 256) for n, _, _, d in items]
    head = struct.pack("<QQ", 1, len(items))
    for (name, shape, kind, _), data in zip(items, datas):
        head += struct.pack("<QQQQ", len(name.encode()) + 1, kind, len(shape), len(data))
    head += b"".join(n.encode() + b"\0" for n, _, _, _ in items)
    head += b"".join(struct.pack("<%di" % len(s), *s) for _, s, _, _ in items)
    offset = (-(len(head) + 8)) % 256
    return head + struct.pack("<Q", offset) + b"\0" * offset + b"".join(datas)


def npz_bytes(params, yml):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, v in sorted(params.items()):
            b = io.BytesIO()
            np.lib.format.write_array(b, np.asarray(v, np.float32))
            z.writestr(name + ".npy", b.getvalue())
        b = io.BytesIO()
        np.lib.format.write_array(b, np.frombuffer(yml.encode() + b"\0", np.int8))
        z.writestr(META + ".npy", b.getvalue())
    return out.getvalue()


def yml_text(options):
    lines = []
    for k, v in sorted(options.items()):
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, list):
            lines.append("%s:" % k + ("\n  []" if not v else "".join("\n  - %s" % x for x in v)))
            continue
        elif v == "":
            v = '""'
        lines.append("%s: %s" % (k, v))
    return "\n".join(lines) + "\n"


def model_options(vs, vt, decoder="ssru", embeddings="all", **extra):
    o = {"type": "transformer", "dim-emb": D, "transformer-heads": HEADS, "transformer-dim-ffn": FF,
         "enc-depth": 2, "dec-depth": 2, "dim-vocabs": [vs, vt], "transformer-ffn-activation": "relu",
         "transformer-ffn-depth": 2, "transformer-preprocess": "", "transformer-postprocess": "dan",
         "transformer-postprocess-emb": "d", "transformer-postprocess-top": "",
         "transformer-decoder-autoreg": "rnn" if decoder == "ssru" else "self-attention", "dec-cell": "ssru",
         "dec-cell-base-depth": 2, "enc-cell": "gru", "tied-embeddings-all": embeddings == "all",
         "tied-embeddings": embeddings == "split", "tied-embeddings-src": False, "right-left": False,
         "transformer-train-position-embeddings": False, "transformer-tied-layers": [], "lemma-dim-emb": 0,
         "output-omit-bias": False, "guided-alignment": "none", "version": "test writer"}
    o.update(extra)
    return o


def marian_params(vs, vt, decoder="ssru", embeddings="all", seed=0):
    """Random weights with Marian's names; embeddings: all (one Wemb), split
    (encoder_/decoder_Wemb, tied output), untied (+ decoder_ff_logit_out_W), untied-t (_Wt)."""
    rng = np.random.default_rng(seed)
    p = {}

    def mat(name, *shape):
        p[name] = (rng.standard_normal(shape) * math.sqrt(2.0 / sum(shape))).astype(np.float32)

    def vec(name, n, scale=0.1, base=0.0):
        p[name] = (base + scale * rng.standard_normal((1, n))).astype(np.float32)

    def attention(pre):
        for x in "qkvo":
            mat("%s_W%s" % (pre, x), D, D)
            vec("%s_b%s" % (pre, x), D)
        vec(pre + "_Wo_ln_scale", D, 0.3, 1.0)
        vec(pre + "_Wo_ln_bias", D)

    def ffn(pre):
        mat(pre + "_W1", D, FF)
        vec(pre + "_b1", FF)
        mat(pre + "_W2", FF, D)
        vec(pre + "_b2", D)
        vec(pre + "_ffn_ln_scale", D, 0.3, 1.0)
        vec(pre + "_ffn_ln_bias", D)

    if embeddings == "all":
        mat("Wemb", vs, D)
    else:
        mat("encoder_Wemb", vs, D)
        mat("decoder_Wemb", vt, D)
    for i in (1, 2):
        attention("encoder_l%d_self" % i)
        ffn("encoder_l%d_ffn" % i)
        if decoder == "ssru":
            mat("decoder_l%d_rnn_W" % i, D, D)
            mat("decoder_l%d_rnn_Wf" % i, D, D)
            vec("decoder_l%d_rnn_bf" % i, D, 0.5)
            vec("decoder_l%d_rnn_ffn_ln_scale" % i, D, 0.3, 1.0)
            vec("decoder_l%d_rnn_ffn_ln_bias" % i, D)
        else:
            attention("decoder_l%d_self" % i)
        attention("decoder_l%d_context" % i)
        ffn("decoder_l%d_ffn" % i)
    if embeddings == "untied":
        mat("decoder_ff_logit_out_W", D, vt)
    elif embeddings == "untied-t":
        mat("decoder_ff_logit_out_Wt", vt, D)
    vec("decoder_ff_logit_out_b", vt)
    return p


def dequantized(params):
    """The values an intgemm8 file holds: q * (1 / qm) in float32 for every intgemm8 item."""
    out = {}
    for name, w in params.items():
        if is_intgemm8_name(name):
            qm = np.float32(127.0) / np.float32(np.abs(w).max())
            q = np.clip(np.rint(np.asarray(w, np.float32) * qm), -127, 127)
            out[name] = (q.astype(np.float32) * (np.float32(1.0) / qm)).astype(np.float32)
        else:
            out[name] = w
    return out


def lex_bytes(lists, first=4, best=3):
    """A Bergamot binary shortlist: lists[i] the target ids of source id i."""
    offsets = np.concatenate([[0], np.cumsum([len(x) for x in lists])]).astype("<u8")
    ids = np.concatenate([np.sort(np.asarray(x, np.int64)) for x in lists]).astype("<u4")
    body = struct.pack("<QQQQ", first, best, len(offsets), len(ids)) + offsets.tobytes() + ids.tobytes()
    data = struct.pack("<QQ", MAGIC, 0) + body
    return struct.pack("<QQ", MAGIC, checksum(data)) + body


# ------------------------------------------------------------------ Marian's computation in numpy

def marian_logits(params, yml, src, inputs):
    """Marian's transformer (README "What Marian computes") in float64 for one
    source (ids with </s>) and the decoder's outputs so far: logits [len(inputs) + 1, V]."""
    P = {k: np.asarray(v, np.float64) for k, v in params.items()}
    d, heads = yml["dim-emb"], yml["transformer-heads"]
    half = d // 2
    w = np.exp(np.arange(half) * -(math.log(10000.0) / (half - 1)))

    def pos(n):
        a = np.arange(n)[:, None] * w
        return np.concatenate([np.sin(a), np.cos(a)], axis=1)

    def ln(pre, x):
        m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return P[pre + "_ln_scale"].reshape(-1) * (x - m) / np.sqrt(v + 1e-6) + P[pre + "_ln_bias"].reshape(-1)

    def mha(pre, x, mem, causal):
        dh = d // heads
        q, k, v = (a @ P["%s_W%s" % (pre, n)] + P["%s_b%s" % (pre, n)].reshape(-1)
                   for a, n in ((x, "q"), (mem, "k"), (mem, "v")))
        out = np.zeros_like(q)
        for h in range(heads):
            s = slice(h * dh, (h + 1) * dh)
            z = q[:, s] @ k[:, s].T / math.sqrt(dh)
            if causal:
                z = np.where(np.tril(np.ones(z.shape, bool)), z, -np.inf)
            z = np.exp(z - z.max(-1, keepdims=True))
            out[:, s] = (z / z.sum(-1, keepdims=True)) @ v[:, s]
        return out @ P[pre + "_Wo"] + P[pre + "_bo"].reshape(-1)

    def ffn(pre, x):
        h = np.maximum(x @ P[pre + "_W1"] + P[pre + "_b1"].reshape(-1), 0)
        return h @ P[pre + "_W2"] + P[pre + "_b2"].reshape(-1)

    src_e = P.get("encoder_Wemb", P.get("Wemb"))
    trg_e = P.get("decoder_Wemb", P.get("Wemb"))
    x = math.sqrt(d) * src_e[src] + pos(len(src))
    for i in range(1, yml["enc-depth"] + 1):
        x = ln("encoder_l%d_self_Wo" % i, x + mha("encoder_l%d_self" % i, x, x, False))
        x = ln("encoder_l%d_ffn_ffn" % i, x + ffn("encoder_l%d_ffn" % i, x))
    enc = x
    T = len(inputs) + 1
    y = np.zeros((T, d))
    if inputs:
        y[1:] = math.sqrt(d) * trg_e[inputs]
    y = y + pos(T)
    for i in range(1, yml["dec-depth"] + 1):
        pre = "decoder_l%d" % i
        if yml["transformer-decoder-autoreg"] == "rnn":
            f = 1 / (1 + np.exp(-(y @ P[pre + "_rnn_Wf"] + P[pre + "_rnn_bf"].reshape(-1))))
            xw = y @ P[pre + "_rnn_W"]
            c, hs = np.zeros(d), []
            for t in range(T):
                c = f[t] * c + (1 - f[t]) * xw[t]
                hs.append(np.maximum(c, 0))
            y = ln(pre + "_rnn_ffn", np.array(hs) + y)
        else:
            y = ln(pre + "_self_Wo", y + mha(pre + "_self", y, y, True))
        y = ln(pre + "_context_Wo", y + mha(pre + "_context", y, enc, False))
        y = ln(pre + "_ffn_ffn", y + ffn(pre + "_ffn", y))
    if "decoder_ff_logit_out_W" in P:
        out = y @ P["decoder_ff_logit_out_W"]
    elif "decoder_ff_logit_out_Wt" in P:
        out = y @ P["decoder_ff_logit_out_Wt"].T
    else:
        out = y @ trg_e.T
    return out + P["decoder_ff_logit_out_b"].reshape(-1)


# ------------------------------------------------------------------ fixtures

_SPMS = {}


def firefox_spm(size):
    """A SentencePiece model with Firefox's ids (</s> 0, <unk> 1, no <s> or <pad>), trained once per size."""
    if size not in _SPMS:
        path = train_spm(_CACHE.path, size, name="v%d.model" % size, pad_id=-1, bos_id=-1, unk_id=1, eos_id=0)
        with open(path, "rb") as f:
            _SPMS[size] = f.read()
    return _SPMS[size]


class _Cache:
    path = None


_CACHE = _Cache()


def setUpModule():
    import tempfile
    _CACHE.tmp = tempfile.TemporaryDirectory(prefix="edgemt-marian-native-")
    _CACHE.path = _CACHE.tmp.name


def tearDownModule():
    _CACHE.tmp.cleanup()


class Base(unittest.TestCase):
    VS, VT = 64, 72

    def setUp(self):
        self.tmp = TempDir(self)
        os.makedirs(self.tmp("out"))
        self.out = self.tmp("out", "m.edgemt")

    def write(self, name, data):
        path = self.tmp(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(gzip.compress(data, mtime=0) if name.endswith(".gz") else data)
        return path

    def firefox(self, folder="ff", decoder="ssru", embeddings="all", gemm="float32", fmt="bin", gz=False,
                options=None, params=None, alphas=False, lex=None, seed=0):
        """A Firefox-style folder: model.ende.*, vocab.ende.spm (or srcvocab/trgvocab), lex (optional).
        Returns (folder, params, options)."""
        split = embeddings != "all"
        vs, vt = (self.VS, self.VT) if split else (self.VS, self.VS)
        o = model_options(vs, vt, decoder, embeddings)
        o.update(options or {})
        p = params if params is not None else marian_params(vs, vt, decoder, embeddings, seed)
        stored = dict(p)
        if alphas:
            for name in p:
                if is_intgemm8_name(name):
                    stored[name + "_QuantMultA"] = np.array([20.0 + len(name) % 7], np.float32)
            stored["none_QuantMultA"] = np.array([3.5], np.float32)
        yml = yml_text(o)
        gzs = ".gz" if gz else ""
        if fmt == "bin":
            kind = ".intgemm.alphas" if gemm == "intgemm8" and alphas else ".intgemm" if gemm == "intgemm8" else ""
            self.write("%s/model.ende%s.bin%s" % (folder, kind, gzs), bin_bytes(stored, yml, gemm))
        else:
            self.write("%s/model.ende%s.npz%s" % (folder, ".alphas" if alphas else "", gzs), npz_bytes(stored, yml))
        if split:
            self.write("%s/srcvocab.ende.spm%s" % (folder, gzs), firefox_spm(self.VS))
            self.write("%s/trgvocab.ende.spm%s" % (folder, gzs), firefox_spm(self.VT))
        else:
            self.write("%s/vocab.ende.spm%s" % (folder, gzs), firefox_spm(self.VS))
        if lex is not None:
            self.write("%s/lex.50.50.ende.s2t.bin%s" % (folder, gzs), lex)
        return self.tmp(folder), p, o

    def converted(self, path, dtype="float32", *extra):
        summary = convert(path, self.out, "--dtype", dtype, *extra)
        return read(self.out), summary

    def assertRefused(self, path, *messages, extra=()):
        err = convert_error(self, path, self.out, *extra)
        for m in messages:
            self.assertIn(m, err)
        self.assertFalse(os.path.exists(self.out))
        return err


# ------------------------------------------------------------------ the reader

class Reader(Base):
    def test_bin_npz_and_gzip_read_the_same_items(self):
        p = marian_params(self.VS, self.VS)
        yml = yml_text(model_options(self.VS, self.VS))
        files = {"m.bin": bin_bytes(p, yml), "m.npz": npz_bytes(p, yml),
                 "m.bin.gz": bin_bytes(p, yml), "m.npz.gz": npz_bytes(p, yml),
                 "gzipped-without-suffix.bin": gzip.compress(bin_bytes(p, yml))}
        for name, data in files.items():
            with self.subTest(name=name):
                m = read_model(self.write(name, data))
                self.assertEqual(m.format, "npz" if ".npz" in name else "bin")
                self.assertEqual(m.gzipped, name.endswith(".gz") or name.startswith("gzipped"))
                self.assertEqual(m.yml_text, yml)
                self.assertEqual(sorted(m.items), sorted(p))
                for k, v in p.items():
                    self.assertEqual(m.items[k].kind, "float32")
                    np.testing.assert_array_equal(m.items[k].values, v, err_msg=k)

    def test_bin_layout_is_aligned_as_marian_writes_it(self):
        data = bin_bytes(marian_params(self.VS, self.VS), yml_text(model_options(self.VS, self.VS)))
        from edgemt_convert.sources.marian_native.model_file import bin_headers
        heads = bin_headers(data, "m.bin")
        for name, _, _, start, length in heads:
            self.assertEqual(start % 256, 0, name)
            if name != META:
                self.assertEqual(length % 256, 0, name)
        self.assertEqual(heads[-1][3] + heads[-1][4], len(data))

    def test_intgemm8_keeps_q_and_qm(self):
        p = marian_params(self.VS, self.VT, embeddings="untied")
        m = read_model(self.write("m.bin", bin_bytes(p, yml_text(model_options(self.VS, self.VT)), "intgemm8")))
        for name in ("encoder_l1_self_Wq", "decoder_l2_ffn_W1", "decoder_l1_rnn_W", "encoder_Wemb",
                     "decoder_ff_logit_out_W"):
            item = m.items[name]
            self.assertEqual(item.kind, "intgemm8", name)
            self.assertEqual(item.shape, p[name].shape, name)            # the untransposed shape
            raw, qm = intgemm8(name, p[name])
            self.assertEqual(np.float32(item.qm), qm)
            stored = item.q if "Wemb" in name else item.q.T              # bytes: transposed unless Wemb
            self.assertEqual(np.ascontiguousarray(stored).tobytes(), raw[:-4], name)
            np.testing.assert_array_equal(item.values, item.q.astype(np.float32) * (np.float32(1) / qm))
            np.testing.assert_allclose(item.values, p[name], atol=float(np.abs(p[name]).max()) / 127)
        self.assertEqual(m.items["encoder_l1_self_bq"].kind, "float32")
        self.assertEqual(m.items["encoder_l1_self_Wo_ln_scale"].kind, "float32")

    def test_damaged_files_are_refused_with_their_name(self):
        p = marian_params(self.VS, self.VS)
        yml = yml_text(model_options(self.VS, self.VS))
        good = bin_bytes(p, yml, "intgemm8")
        for cut in (3, 20, 100, 3000, len(good) // 2, len(good) - 5):
            with self.subTest(cut=cut):
                with self.assertRaisesRegex(ConversionError, r"^m\.bin: (truncated|damaged|\d+ bytes, too short)"):
                    read_model(self.write("m.bin", good[:cut]))
        with self.assertRaisesRegex(ConversionError, r"^m\.bin: not a Marian binary model \(it starts with version 2"):
            read_model(self.write("m.bin", struct.pack("<Q", 2) + good[8:]))
        with self.assertRaisesRegex(ConversionError, r"^m\.bin: damaged Marian binary model \(\d+ items"):
            read_model(self.write("m.bin", good[:8] + struct.pack("<Q", 10 ** 9) + good[16:]))
        bad = bytearray(good)
        bad[24:32] = struct.pack("<Q", 0x0C01)             # the first item's type: a packed CPU-specific one
        with self.assertRaisesRegex(ConversionError, r"^m\.bin: item \S+ is stored as a processor-specific packed "
                                                     r"type \(type 0x0c01\)"):
            read_model(self.write("m.bin", bytes(bad)))
        with self.assertRaisesRegex(ConversionError, r"^cut\.bin: damaged gzip data"):
            read_model(self.write("cut.bin", gzip.compress(good)[:-100]))       # (write gzips only a .gz name)
        npz = npz_bytes(p, yml)
        with self.assertRaisesRegex(ConversionError, r"^m\.npz: damaged \.npz"):
            read_model(self.write("m.npz", npz[:len(npz) // 2]))

    def test_damaged_file_through_the_cli_is_one_line_and_no_file(self):
        folder, _, _ = self.firefox(gemm="intgemm8")
        path = os.path.join(folder, "model.ende.intgemm.bin")
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data[:len(data) // 3])
        err = self.assertRefused(folder, "model.ende.intgemm.bin: truncated Marian model file")
        self.assertEqual(err.count("\n"), 1, err)
        self.assertNotIn("Traceback", err)


# ------------------------------------------------------------------ the import

class Import(Base):
    def check_forward(self, model, params, options, n=4):
        """The float model's greedy logits equal Marian's numpy forward pass on its own outputs."""
        ref = ReferenceModel(model)
        rng = np.random.default_rng(5)
        for _ in range(n):
            src = [int(i) for i in rng.integers(2, model.config.source_vocab_size, size=int(rng.integers(2, 7)))] + [0]
            limit = math.ceil(model.config.default_max_length_factor * len(src))
            outs, records = greedy(ref, [src], max_length=limit, record=1)
            produced = [int(i) for i in records[0]["out_ids"]]
            self.assertLessEqual(len(produced), limit)
            want = marian_logits(params, options, src, produced[:-1])
            np.testing.assert_allclose(records[0]["logits"], want, rtol=1e-4, atol=1e-4)
            masked = want.copy()
            masked[:, model.config.unk_id] = -np.inf
            np.testing.assert_array_equal(np.argmax(masked, -1), produced)

    def test_ssru_decoder_names_map_onto_the_model(self):
        folder, p, o = self.firefox()
        m, summary = self.converted(folder)
        c = m.config
        self.assertEqual((c.d_model, c.num_heads, c.d_ff, c.encoder_layers, c.decoder_layers), (D, HEADS, FF, 2, 2))
        self.assertEqual((c.norm, c.layer_norm_epsilon, c.activation, c.position_encoding),
                         (ir.NORM_POST, np.float32(1e-6), ir.ACT_RELU, ir.POS_MARIAN))
        self.assertEqual(c.embedding_scale, np.float32(4.0))
        self.assertEqual((c.shared_embeddings, c.tied_output, c.source_bos, c.source_eos), (True, True, False, True))
        self.assertEqual((c.eos_id, c.unk_id, c.pad_id, c.bos_id, c.decoder_start_id, c.banned_ids),
                         (0, 1, 0, 0, 0, [1]))
        self.assertEqual((c.decoder_starts_from_zero, c.default_max_length_factor, c.max_positions), (True, 2.0, 512))
        self.assertEqual(m.format_minor, ir.FORMAT_MINOR_MARIAN)
        self.assertIsNone(m.tokenizer.target_model)
        self.assertIsNone(m.tokenizer.source_vocabulary)
        self.assertEqual(m.tokenizer.source_model, firefox_spm(self.VS))
        self.assertEqual((m.metadata.source_language, m.metadata.target_language), ("en", "de"))
        np.testing.assert_array_equal(m.decoder.token_embedding.data, p["Wemb"])
        self.assertIsNone(m.encoder.token_embedding)
        enc = m.encoder.layers[1]
        np.testing.assert_array_equal(enc.self_attention.key.weight.data, p["encoder_l2_self_Wk"].T)
        np.testing.assert_array_equal(enc.self_attention.key.bias, p["encoder_l2_self_bk"][0])
        np.testing.assert_array_equal(enc.feed_forward.up.weight.data, p["encoder_l2_ffn_W1"].T)
        np.testing.assert_array_equal(enc.feed_forward_norm.gamma, p["encoder_l2_ffn_ffn_ln_scale"][0])
        np.testing.assert_array_equal(enc.self_attention_norm.beta, p["encoder_l2_self_Wo_ln_bias"][0])
        dec = m.decoder.layers[0]
        self.assertIsNone(dec.self_attention)
        np.testing.assert_array_equal(dec.ssru.transform.weight.data, p["decoder_l1_rnn_W"].T)
        self.assertIsNone(dec.ssru.transform.bias)
        np.testing.assert_array_equal(dec.ssru.forget_gate.weight.data, p["decoder_l1_rnn_Wf"].T)
        np.testing.assert_array_equal(dec.ssru.forget_gate.bias, p["decoder_l1_rnn_bf"][0])
        np.testing.assert_array_equal(dec.self_attention_norm.gamma, p["decoder_l1_rnn_ffn_ln_scale"][0])
        np.testing.assert_array_equal(dec.cross_attention.output.weight.data, p["decoder_l1_context_Wo"].T)
        np.testing.assert_array_equal(dec.cross_attention_norm.gamma, p["decoder_l1_context_Wo_ln_scale"][0])
        np.testing.assert_array_equal(m.decoder.output_projection.bias, p["decoder_ff_logit_out_b"][0])
        self.assertIn("length limit: ceil(2.0 x source ids", summary)
        self.check_forward(m, p, o)

    def test_self_attention_decoder_and_every_embedding_layout(self):
        for embeddings in ("split", "untied", "untied-t"):
            with self.subTest(embeddings=embeddings):
                folder, p, o = self.firefox(folder=embeddings, decoder="self-attention", embeddings=embeddings)
                m, _ = self.converted(folder)
                c = m.config
                self.assertEqual((c.shared_embeddings, c.tied_output, c.source_vocab_size, c.target_vocab_size),
                                 (False, embeddings == "split", self.VS, self.VT))
                dec = m.decoder.layers[1]
                self.assertIsNone(dec.ssru)
                np.testing.assert_array_equal(dec.self_attention.query.weight.data, p["decoder_l2_self_Wq"].T)
                np.testing.assert_array_equal(dec.self_attention_norm.gamma, p["decoder_l2_self_Wo_ln_scale"][0])
                np.testing.assert_array_equal(m.encoder.token_embedding.data, p["encoder_Wemb"])
                np.testing.assert_array_equal(m.decoder.token_embedding.data, p["decoder_Wemb"])
                if embeddings == "untied":
                    np.testing.assert_array_equal(m.decoder.output_projection.weight.data,
                                                  p["decoder_ff_logit_out_W"].T)
                elif embeddings == "untied-t":
                    np.testing.assert_array_equal(m.decoder.output_projection.weight.data,
                                                  p["decoder_ff_logit_out_Wt"])
                self.assertEqual(m.tokenizer.target_model, firefox_spm(self.VT))
                self.check_forward(m, p, o, n=2)

    def test_npz_and_gzip_give_the_same_model(self):
        folder, p, o = self.firefox(folder="bin")
        want, _ = self.converted(folder)
        for fmt, gz in (("npz", False), ("npz", True), ("bin", True)):
            with self.subTest(fmt=fmt, gz=gz):
                folder, _, _ = self.firefox(folder="%s%d" % (fmt, gz), fmt=fmt, gz=gz, params=p)
                m, _ = self.converted(folder)
                for (name, a), (_, b) in zip(want.named_linears(), m.named_linears()):
                    np.testing.assert_array_equal(a.weight.data if a.weight else 0, b.weight.data if b.weight else 0,
                                                  err_msg=name)
                np.testing.assert_array_equal(m.decoder.token_embedding.data, want.decoder.token_embedding.data)

    def test_intgemm8_weights_stay_bit_for_bit_in_an_int8_file(self):
        folder, p, o = self.firefox(gemm="intgemm8", alphas=True, embeddings="untied")
        items = read_model(os.path.join(folder, "model.ende.intgemm.alphas.bin")).items
        m, summary = self.converted(folder, "int8")
        names = {"encoder.token_embedding": ("encoder_Wemb", False),
                 "decoder.token_embedding": ("decoder_Wemb", False),
                 "decoder.output_projection": ("decoder_ff_logit_out_W", True),
                 "encoder.layers.0.self_attention.query": ("encoder_l1_self_Wq", True),
                 "encoder.layers.1.feed_forward.down": ("encoder_l2_ffn_W2", True),
                 "decoder.layers.1.ssru.transform": ("decoder_l2_rnn_W", True),
                 "decoder.layers.0.ssru.forget_gate": ("decoder_l1_rnn_Wf", True),
                 "decoder.layers.0.cross_attention.value": ("decoder_l1_context_Wv", True)}
        tensors = dict(m.token_embeddings())
        tensors.update({n: m.linear_weight(l) for n, l in m.named_linears()})
        for ir_name, (marian, transposed) in names.items():
            t = tensors[ir_name]
            raw, qm = intgemm8(marian, p[marian])
            self.assertTrue(t.is_int8, ir_name)
            self.assertEqual(t.data.tobytes(), raw[:-4], ir_name)          # marian-conv's bytes, unchanged
            np.testing.assert_array_equal(t.scales, np.full(t.shape[0], np.float32(1) / qm, np.float32))
            item = items[marian]
            np.testing.assert_array_equal(t.dequantize(), item.values.T if transposed else item.values)
        # every Linear of the file is one of Marian's intgemm8 matrices: none was quantized again
        for name, lin in m.named_linears():
            self.assertTrue(m.linear_weight(lin).is_int8, name)
        self.assertIn("intgemm8: 31 weights kept as Marian quantized them", summary)
        top = max(20.0 + len(n) % 7 for n in p if is_intgemm8_name(n))
        self.assertIn("alphas: 32 activation scales (<matrix>_QuantMultA, Bergamot's fixed int8 input ranges, 3.5 to "
                      "%g) are not used" % top, summary)
        # float32: the dequantized values; int4: re-quantized from them
        f32, _ = self.converted(folder, "float32")
        np.testing.assert_array_equal(f32.decoder.layers[1].ssru.transform.weight.data,
                                      dequantized(p)["decoder_l2_rnn_W"].T)
        i4, _ = self.converted(folder, "int4")
        self.assertTrue(any(m.linear_weight(l).is_int4 for _, l in i4.named_linears()))
        self.check_forward(f32, dequantized(p), o, n=2)

    def test_intgemm8_wt_output_layer_and_no_output_bias(self):
        p = marian_params(self.VS, self.VT, embeddings="untied-t")
        del p["decoder_ff_logit_out_b"]
        folder, p, o = self.firefox(gemm="intgemm8", embeddings="untied-t", params=p,
                                    options={"output-omit-bias": True})
        m, _ = self.converted(folder, "int8")
        raw, qm = intgemm8("decoder_ff_logit_out_Wt", p["decoder_ff_logit_out_Wt"])
        stored = np.frombuffer(raw[:-4], np.int8).reshape(D, self.VT)       # [V, d] stored transposed
        projection = m.decoder.output_projection
        np.testing.assert_array_equal(projection.weight.data, stored.T)
        self.assertIsNone(projection.bias)
        f32, _ = self.converted(folder)
        values = dequantized(p)
        values["decoder_ff_logit_out_b"] = np.zeros((1, self.VT), np.float32)
        self.check_forward(f32, values, o, n=2)

    def test_alphas_are_kept_on_the_import(self):
        folder, p, o = self.firefox(gemm="intgemm8", alphas=True)
        imported = load_checkpoint(folder)
        self.assertEqual(imported.activation_scales["none_QuantMultA"], 3.5)
        self.assertEqual(len(imported.activation_scales), 1 + sum(is_intgemm8_name(n) for n in p))
        self.assertAlmostEqual(imported.activation_scales["Wemb_QuantMultA"], 20.0 + len("Wemb") % 7, places=4)

    def test_firefox_folder_as_shipped_and_the_choice_of_file(self):
        lists = [[2, 5, 9]] + [[(i * 7) % self.VS, (i * 3 + 1) % self.VS] for i in range(1, self.VS)]
        folder, p, o = self.firefox(gemm="intgemm8", alphas=True, gz=True, lex=lex_bytes(lists))
        self.firefox(folder="ff", params=p)                                   # model.ende.bin, vocab.ende.spm
        self.firefox(folder="ff", params=p, fmt="npz")
        self.assertEqual(importer_for(folder), marian_native)
        m, summary = self.converted(folder, "float32")
        self.assertIn("note: model: model.ende.intgemm.alphas.bin.gz (intgemm8 with alphas, what Firefox ships); the "
                      "folder also has model.ende.bin, model.ende.npz", summary)
        self.assertIn("gzip'd model.ende.intgemm.alphas.bin.gz", summary)
        self.assertIn("lex.50.50.ende.s2t.bin.gz: the shortlist beside the model (--no-shortlist leaves it out)",
                      summary)
        self.assertEqual((m.metadata.source_language, m.metadata.target_language), ("en", "de"))
        # Bergamot's selection: ids below firstNum, </s>'s list, each source id's list and the id itself
        sl = m.shortlist
        self.assertEqual(sl.frequent.tolist(), [0, 2, 3, 5, 9])           # 0..3 and </s>'s list, <unk> banned
        self.assertEqual((sl.pad_multiple, sl.pad_from, sl.pad_uncounted), (8, 4, 1))   # <unk> counts, unlisted
        for src in ([4, 7, 0], [10, 11, 12, 0], [1, 0]):
            want = set(range(4)) | {2, 5, 9} | set(src)
            for i in src:
                want |= set(lists[i])
            i = 4
            while len(want) % 8:  # Marian's padding: the lowest missing ids from firstNum
                want.add(i)
                i += 1
            self.assertEqual(set(allowed(sl, src, 0, self.VS).tolist()), want - {1}, src)
        # a file's path chooses it; --no-shortlist leaves the shortlist out; explicit languages win
        m, summary = self.converted(os.path.join(folder, "model.ende.bin"), "float32", "--no-shortlist",
                                    "--source-language", "xx")
        self.assertIn("Marian binary model model.ende.bin:", summary)
        self.assertIn("left out (--no-shortlist)", summary)
        self.assertIsNone(m.shortlist)
        self.assertEqual((m.metadata.source_language, m.metadata.target_language), ("xx", "de"))
        self.assertEqual(m.metadata.source_checkpoint, "model.ende.bin")
        self.write("lex.bin", lex_bytes([[7]] * self.VS, first=2))          # another, given explicitly
        m, summary = self.converted(folder, "float32", "--shortlist-bergamot", self.tmp("lex.bin"))
        self.assertIn("lex.bin: a Bergamot shortlist, imported with Bergamot's selection", summary)
        self.assertEqual(m.shortlist.frequent.tolist(), [0, 7])
        from edgemt_convert.cli import main
        code, _, err = run_cli(main, [folder, "--out", self.out, "--no-shortlist", "--shortlist-bergamot", "x.bin"])
        self.assertEqual(code, 2)
        self.assertIn("--no-shortlist and --shortlist-bergamot: one or the other", err)

    def test_split_vocabularies_shortlist_has_no_copies(self):
        lists = [[3]] + [[(i * 5) % self.VT] for i in range(1, self.VS)]
        folder, _, _ = self.firefox(embeddings="split", lex=lex_bytes(lists, first=2))
        m, summary = self.converted(folder)
        self.assertEqual(m.shortlist.frequent.tolist(), [0, 3])
        self.assertEqual(set(allowed(m.shortlist, [7, 0], 0, self.VT).tolist()), {0, 3, 35} | {2, 4, 5, 6})  # padded
        self.assertNotIn("each source id itself", summary)

    def test_opus_mt_release_layout(self):
        """An OPUS-MT release: the .npz decoder.yml names, a Marian .yml vocabulary (the model's ids, not
        SentencePiece's), source.spm and target.spm, README.md's languages, decoder.yml's decoding options."""
        src_spm, trg_spm = firefox_spm(self.VS), firefox_spm(self.VT)
        import sentencepiece as spm
        pieces = set()
        for data in (src_spm, trg_spm):
            sp = spm.SentencePieceProcessor(model_proto=data)
            pieces |= {sp.id_to_piece(i) for i in range(2, sp.get_piece_size())}
        vocab = ["</s>", "<unk>"] + sorted(pieces, reverse=True)
        v = len(vocab)
        o = model_options(v, v, "self-attention", "all", **{"transformer-ffn-activation": "swish"})
        p = marian_params(v, v, "self-attention", "all")
        name = "opus.spm32k-spm32k.transformer-align.model1.npz.best-perplexity.npz"
        self.write("opus/" + name, npz_bytes(p, yml_text(o)))
        self.write("opus/opus.spm32k-spm32k.vocab.yml",
                   "".join("%s: %d\n" % (json.dumps(piece), i) for i, piece in enumerate(vocab)).encode())
        self.write("opus/source.spm", src_spm)
        self.write("opus/target.spm", trg_spm)
        self.write("opus/decoder.yml", ("models:\n  - %s\nvocabs:\n  - opus.spm32k-spm32k.vocab.yml\n"
                                        "  - opus.spm32k-spm32k.vocab.yml\nbeam-size: 6\nnormalize: 0.6\n"
                                        "word-penalty: 0\nmini-batch: 1\nmaxi-batch: 1\nmaxi-batch-sort: src\n"
                                        "relative-paths: true\n" % name).encode())
        self.write("opus/README.md", b"# opus-2021-02-22.zip\n\n* dataset: opus\n* model: transformer-align\n"
                                     b"* source language(s): eng\n* target language(s): deu\n")
        m, summary = self.converted(self.tmp("opus"))
        c = m.config
        self.assertEqual((c.activation, c.default_beam_size, c.default_length_penalty, c.default_max_length_factor),
                         (ir.ACT_SILU, 6, np.float32(0.6), 2.0))
        self.assertEqual(m.tokenizer.source_vocabulary, vocab)
        self.assertIsNone(m.tokenizer.target_vocabulary)
        self.assertEqual((m.tokenizer.source_model, m.tokenizer.target_model), (src_spm, trg_spm))
        self.assertEqual((m.metadata.source_language, m.metadata.target_language), ("eng", "deu"))
        self.assertIn("model: %s, as decoder.yml names it" % name, summary)
        self.assertIn("decoder.yml: beam-size 6, normalize 0.6", summary)
        codec = TextCodec(m)
        sp = spm.SentencePieceProcessor(model_proto=src_spm)
        text = "abc defgh ij"
        self.assertEqual(codec.encode(text),
                         [vocab.index(x) if x in vocab else 1 for x in sp.encode(text, out_type=str)])

    def test_marian_and_ctranslate2_folders_are_not_taken(self):
        folder, _, _ = self.firefox()
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump({"model_type": "marian"}, f)
        from edgemt_convert.sources import ctranslate2, marian
        self.assertIs(importer_for(folder), marian)
        import ct2_model_bin as ct2
        ct2.write_directory(self.tmp("ct2"), ct2.transformer(), ct2.vocabulary(20), ct2.vocabulary(24))
        self.assertIs(importer_for(self.tmp("ct2")), ctranslate2)
        self.assertFalse(marian_native.detect(os.path.join(self.tmp("ct2"), "model.bin")))
        self.assertFalse(marian_native.detect(self.tmp("ct2")))


# ------------------------------------------------------------------ refusals

class Refusals(Base):
    def test_unsupported_options_are_listed_in_one_message(self):
        folder, _, _ = self.firefox(options={
            "transformer-decoder-autoreg": "average-attention", "right-left": True, "transformer-preprocess": "n",
            "transformer-postprocess": "da", "transformer-postprocess-emb": "dn", "transformer-ffn-depth": 3,
            "transformer-tied-layers": [1, 1], "transformer-train-position-embeddings": True, "lemma-dim-emb": 8,
            "transformer-decoder-dim-ffn": 64, "transformer-ffn-activation": "tanh", "guided-alignment": "align.txt"})
        err = self.assertRefused(
            folder, "this Marian model cannot be converted (11 problems)",
            "transformer-decoder-autoreg average-attention", "right-left true", "transformer-preprocess n",
            "transformer-postprocess da", "transformer-postprocess-emb dn", "transformer-ffn-depth 3",
            "transformer-tied-layers", "transformer-train-position-embeddings true", "lemma-dim-emb 8",
            "transformer-decoder-dim-ffn 64 differs", "transformer-ffn-activation tanh")
        self.assertNotIn("guided", err)
        folder, _, _ = self.firefox(folder="t", options={"type": "s2s", "dec-cell": "gru"})
        self.assertRefused(folder, "type s2s: EdgeMT runs Marian's transformer only",
                           "transformer-decoder-autoreg rnn with dec-cell gru")

    def test_weights_that_do_not_fit_are_listed(self):
        p = marian_params(self.VS, self.VS)
        p["Wpos"] = np.zeros((8, D), np.float32)
        p["decoder_l3_ffn_W1"] = np.zeros((D, FF), np.float32)
        p["encoder_l1_self_Wq"] = np.zeros((D, D + 1), np.float32)
        del p["decoder_l2_rnn_Wf"]
        folder, _, _ = self.firefox(params=p)
        self.assertRefused(folder, "(4 problems)", "has learned positions (Wpos)",
                           "encoder_l1_self_Wq has shape [16, 17], the model's options imply [16, 16]",
                           "missing decoder_l2_rnn_Wf", "2 items EdgeMT has no place for", "Wpos, decoder_l3_ffn_W1")

    def test_vocabulary_problems(self):
        folder, _, _ = self.firefox()
        os.remove(os.path.join(folder, "vocab.ende.spm"))
        self.assertRefused(folder, "no vocabulary: expected vocab.ende.spm, or srcvocab.ende.spm and "
                                   "trgvocab.ende.spm")
        folder, _, _ = self.firefox(folder="size", options={"dim-vocabs": [self.VS + 1, self.VS + 1]})
        self.assertRefused(folder, "vocab.ende.spm: %d pieces, but the model's dim-vocabs gives the source side %d ids"
                           % (self.VS, self.VS + 1), "Wemb has shape [64, 16], the model's options imply [65, 16]")
        folder, _, _ = self.firefox(folder="notspm")
        with open(os.path.join(folder, "vocab.ende.spm"), "wb") as f:
            f.write(b"not a model")
        self.assertRefused(folder, "vocab.ende.spm: not a SentencePiece model")

    def test_no_model_file_and_no_options(self):
        os.makedirs(self.tmp("empty"))
        with open(self.tmp("empty", "decoder.yml"), "w") as f:
            f.write("models:\n  - missing.npz\n")
        self.assertRefused(self.tmp("empty"), "decoder.yml: its model missing.npz is not in the folder")
        p = marian_params(self.VS, self.VS)
        data = bin_bytes(p, "")                  # an empty model.yml: no options
        self.write("noyml/model.ende.bin", data)
        self.write("noyml/vocab.ende.spm", firefox_spm(self.VS))
        self.assertRefused(self.tmp("noyml"), "expected a YAML mapping of options")


# ------------------------------------------------------------------ against the Bergamot kit

@unittest.skipUnless(os.path.isdir(KIT) and os.path.isfile(DEV_EN),
                     "the Bergamot kit %s or %s is missing" % (KIT, DEV_EN))
class Kit(Base):
    LINES = 20

    def kit(self, script, *args):
        subprocess.run([sys.executable, os.path.join(KIT, script), *args], check=True, stdout=subprocess.DEVNULL)

    def marian_ids(self, model, vocabs, lines):
        args = ["translate", "--model", model, "--ids-out", self.tmp("r.ids")]
        for v in vocabs:
            args += ["--vocab", v]
        subprocess.run([sys.executable, os.path.join(KIT, "marian_reference.py"), *args], input="\n".join(lines) + "\n",
                       text=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(self.tmp("r.ids")) as f:
            return [[int(x) for x in line.split()] for line in f.read().splitlines()]

    def edgemt_ids(self, model, lines):
        """Greedy ids of the reference model with Marian's length rule (ceil(factor x W) steps)."""
        ref, codec = ReferenceModel(model), TextCodec(model)
        out = []
        for line in lines:
            src = source_ids(codec, line, model.config)
            ids, _ = greedy(ref, [src], max_length=math.ceil(model.config.default_max_length_factor * len(src)))
            out.append(ids[0])
        return out

    def dev(self):
        with open(DEV_EN, encoding="utf-8") as f:
            return f.read().splitlines()[:self.LINES]

    def test_firefox_folder_as_shipped_decodes_as_marian(self):
        """export_marian.py's micro model with alphas and a shortlist, only the .gz files Firefox ships, converted with
        no option: float32 greedy ids equal marian_reference.py's on the same intgemm8 file, and the shortlist
        allows what Bergamot's selection allows, padded to a multiple of 8 as it is."""
        work = self.tmp("kit")
        self.kit("make_shortlist.py", "random", "--src-size", "8000", "--trg-size", "8000", "--out",
                 self.tmp("lex.bin"))
        self.kit("export_marian.py", "random", "--preset", "micro", "--eos-rate", "0.05", "--calib-lines", "20",
                 "--shortlist", self.tmp("lex.bin"), "--out-dir", work)
        os.makedirs(self.tmp("firefox"))
        for name in ("model.ende.intgemm.alphas.bin.gz", "lex.50.50.ende.s2t.bin.gz", "vocab.ende.spm.gz"):
            shutil.copyfile(os.path.join(work, name), self.tmp("firefox", name))
        m, summary = self.converted(self.tmp("firefox"))
        self.assertIn("alphas: 30 activation scales", summary)
        self.assertEqual((m.metadata.source_language, m.metadata.target_language), ("en", "de"))
        lines = self.dev()
        want = self.marian_ids(os.path.join(work, "model.ende.intgemm.alphas.bin"),
                               [os.path.join(work, "vocab.ende.spm")], lines)
        self.assertEqual(self.edgemt_ids(m, lines), want)
        sys.path.insert(0, KIT)
        try:
            import marian_reference
        finally:
            sys.path.remove(KIT)
        kit_shortlist = marian_reference.Shortlist(os.path.join(work, "lex.50.50.ende.s2t.bin"), True)
        codec = TextCodec(m)
        for line in lines:
            src = codec.encode(line) + [0]
            ours = set(allowed(m.shortlist, src, 0, 8000).tolist())
            bergamot = set(kit_shortlist.indices(np.array(src), 8000).tolist())
            self.assertEqual(ours | {1}, bergamot)  # <unk> is never a candidate here

    def test_self_attention_decoder_split_vocabularies(self):
        work = self.tmp("sa")
        self.kit("export_marian.py", "random", "--preset", "micro", "--no-alphas", "--decoder", "self-attention",
                 "--split-vocab", "--eos-rate", "0.05", "--out-dir", work)
        m, _ = self.converted(work)
        self.assertFalse(m.config.shared_embeddings)
        self.assertIsNotNone(m.tokenizer.target_model)
        lines = self.dev()
        for model_name in ("model.ende.intgemm.bin", "model.ende.bin"):
            with self.subTest(model=model_name):
                m, _ = self.converted(os.path.join(work, model_name))
                want = self.marian_ids(os.path.join(work, model_name), [os.path.join(work, "srcvocab.ende.spm"),
                                                                        os.path.join(work, "trgvocab.ende.spm")], lines)
                self.assertEqual(self.edgemt_ids(m, lines), want)

    @unittest.skipUnless(os.path.isdir(SEED_MODEL), "the Multi30k model %s is missing" % SEED_MODEL)
    def test_from_seed_multi30k(self):
        """The trained Multi30k model as a Marian model (self-attention decoder, separate embeddings, the legacy
        untied decoder_ff_logit_out_W, the seed vocabulary's </s> 3): converts, and decodes as marian_reference.py."""
        work = self.tmp("seed")
        self.kit("export_marian.py", "from-seed", SEED_MODEL, "--no-alphas", "--out-dir", work)
        m, summary = self.converted(work)
        self.assertIn("model: model.ende.intgemm.bin", summary)
        c = m.config
        self.assertEqual((c.shared_embeddings, c.tied_output, c.eos_id, c.unk_id), (False, False, 3, 1))
        lines = self.dev()
        want = self.marian_ids(os.path.join(work, "model.ende.intgemm.bin"), [os.path.join(work, "vocab.ende.spm")],
                               lines)
        self.assertEqual(self.edgemt_ids(m, lines), want)


if __name__ == "__main__":
    unittest.main()
