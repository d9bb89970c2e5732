"""Test helpers: small random seed-layout checkpoints (the logic of
../shared/bench/make_random_checkpoint.py, copied so that the tests do not
need ../shared), a tiny SentencePiece model, and in-process CLI runs."""
import contextlib
import io
import json
import math
import os
import sys
import tempfile

import numpy as np
import torch

CONVERTER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(CONVERTER)
SHARED = os.environ.get("EDGEMT_SHARED", os.path.join(os.path.dirname(REPO), "shared"))
if CONVERTER not in sys.path:
    sys.path.insert(0, CONVERTER)

torch.set_num_threads(1)

# Small enough to convert in about a second, large enough to have every part.
TINY = dict(d_model=64, n_heads=4, d_ff=128, n_encoder_layers=2, n_decoder_layers=2,
            src_vocab_size=120, tgt_vocab_size=130, max_seq_len=48)

VARIANT_KEYS = ("norm", "activation", "position_layout", "tie_output")


def sinusoid(max_len, d_model, layout="interleaved"):
    pe = np.zeros((max_len, d_model), dtype=np.float32)
    pos = np.arange(max_len, dtype=np.float32)[:, None]
    div = np.exp(np.arange(0, d_model, 2, dtype=np.float32) * (-math.log(10000.0) / d_model))
    if layout == "interleaved":
        pe[:, 0::2] = np.sin(pos * div)
        pe[:, 1::2] = np.cos(pos * div)
    else:
        pe[:, : d_model // 2] = np.sin(pos * div)
        pe[:, d_model // 2:] = np.cos(pos * div)
    return pe[None]


def random_state_dict(cfg, seed=0):
    """{key: float32 ndarray} in the seed layout, as make_random_checkpoint.py
    (plus non-zero attention biases, so that a misplaced bias shows)."""
    d, ff = cfg["d_model"], cfg["d_ff"]
    rng = np.random.default_rng(seed)
    sd = {}

    def xavier(rows, cols):
        a = math.sqrt(6.0 / (rows + cols))
        return rng.uniform(-a, a, size=(rows, cols)).astype(np.float32)

    def bias(n, fan_in):
        a = 1.0 / math.sqrt(fan_in)
        return rng.uniform(-a, a, size=(n,)).astype(np.float32)

    def attn(prefix):
        sd[prefix + ".in_proj_weight"] = xavier(3 * d, d)
        sd[prefix + ".in_proj_bias"] = bias(3 * d, d)
        sd[prefix + ".out_proj.weight"] = xavier(d, d)
        sd[prefix + ".out_proj.bias"] = bias(d, d)

    def ffn(prefix):
        sd[prefix + ".0.weight"] = xavier(ff, d)
        sd[prefix + ".0.bias"] = bias(ff, d)
        sd[prefix + ".3.weight"] = xavier(d, ff)
        sd[prefix + ".3.bias"] = bias(d, ff)

    def norm(prefix):
        sd[prefix + ".weight"] = (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32)
        sd[prefix + ".bias"] = (0.1 * rng.standard_normal(d)).astype(np.float32)

    pe = sinusoid(cfg["max_seq_len"], d, cfg.get("position_layout", "interleaved"))
    sd["encoder.token_embedding.weight"] = rng.normal(0, 1, (cfg["src_vocab_size"], d)).astype(np.float32) * d ** -0.5
    sd["encoder.positional_encoding"] = pe
    for i in range(cfg["n_encoder_layers"]):
        p = "encoder.layers.%d." % i
        attn(p + "self_attn")
        ffn(p + "feed_forward")
        norm(p + "norm1")
        norm(p + "norm2")
    sd["decoder.token_embedding.weight"] = rng.normal(0, 1, (cfg["tgt_vocab_size"], d)).astype(np.float32) * d ** -0.5
    sd["decoder.positional_encoding"] = pe.copy()
    for i in range(cfg["n_decoder_layers"]):
        p = "decoder.layers.%d." % i
        attn(p + "self_attn")
        attn(p + "cross_attn")
        ffn(p + "feed_forward")
        norm(p + "norm1")
        norm(p + "norm2")
        norm(p + "norm3")
    if cfg.get("norm", "post") == "pre":
        norm("encoder.final_norm")
        norm("decoder.final_norm")
    if not cfg.get("tie_output", False):
        sd["decoder.output_projection.weight"] = xavier(cfg["tgt_vocab_size"], d)
    sd["decoder.output_projection.bias"] = bias(cfg["tgt_vocab_size"], d)
    return sd


def make_config(**overrides):
    cfg = dict(arch="seed-transformer", **TINY)
    cfg.update(norm="post", activation="relu", position_layout="interleaved", tie_output=False,
               layer_norm_eps=1e-5, pad_id=0, unk_id=1, bos_id=2, eos_id=3)
    cfg.update(overrides)
    return cfg


def write_checkpoint(folder, cfg=None, sd=None, seed=0, drop_config_keys=(), **overrides):
    """Writes model.pt + config.json; returns (cfg, sd) as written."""
    cfg = dict(cfg) if cfg is not None else make_config(**overrides)
    if sd is None:
        sd = random_state_dict(cfg, seed)
    os.makedirs(folder, exist_ok=True)
    torch.save({k: torch.from_numpy(np.asarray(v)) for k, v in sd.items()}, os.path.join(folder, "model.pt"))
    written = {k: v for k, v in cfg.items() if k not in drop_config_keys}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(written, f, indent=2)
    return cfg, sd


def _words():
    rng = np.random.default_rng(7)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(rng.choice(letters, size=int(rng.integers(2, 9)))) for _ in range(600)]


_WORDS = _words()


def train_spm(folder, vocab_size, name="spm.model", **ids):
    """A tiny joint SentencePiece model (pad 0, unk 1, bos 2, eos 3 unless overridden)."""
    import sentencepiece as spm
    rng = np.random.default_rng(1)
    corpus = os.path.join(folder, "corpus.txt")
    os.makedirs(folder, exist_ok=True)
    with open(corpus, "w") as f:
        for _ in range(3000):
            f.write(" ".join(rng.choice(_WORDS, size=int(rng.integers(3, 12)))) + ".\n")
    params = dict(pad_id=0, unk_id=1, bos_id=2, eos_id=3)
    params.update(ids)
    prefix = os.path.join(folder, name[:-len(".model")] if name.endswith(".model") else name)
    spm.SentencePieceTrainer.train(
        input=corpus, model_prefix=prefix, vocab_size=vocab_size, model_type="unigram",
        character_coverage=1.0, hard_vocab_limit=True, minloglevel=2, **params)
    os.remove(corpus)
    return prefix + ".model"


def corpus_lines(rng=None, n=40):
    rng = rng or np.random.default_rng(2)
    return [" ".join(rng.choice(_WORDS, size=int(rng.integers(3, 12)))) + "." for _ in range(n)]


def run_cli(main, argv):
    """Runs a CLI main() in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:          # argparse usage errors
            code = e.code
    return code, out.getvalue(), err.getvalue()


def convert(checkpoint, out, *extra):
    """edgemt-convert in-process; raises with its stderr on failure."""
    from edgemt_convert.cli import main
    code, stdout, stderr = run_cli(main, [checkpoint, "--out", out, "--quiet", *extra])
    if code != 0:
        raise AssertionError("edgemt-convert failed (%s): %s" % (code, stderr))
    return stdout


class TempDir:
    """A per-test temporary directory (unittest's addCleanup-friendly)."""

    def __init__(self, test):
        self._tmp = tempfile.TemporaryDirectory(prefix="edgemt-test-")
        test.addCleanup(self._tmp.cleanup)
        self.path = self._tmp.name

    def __call__(self, *parts):
        return os.path.join(self.path, *parts)
