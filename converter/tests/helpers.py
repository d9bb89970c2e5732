"""Test helpers: small random seed-layout checkpoints (the logic of
../shared/bench/make_random_checkpoint.py, copied so that the tests do not
need ../shared), Marian ones (make_marian_checkpoint, from tests/tools/), a
tiny SentencePiece model, and in-process CLI runs."""
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
for _path in (CONVERTER, os.path.join(REPO, "tests", "tools")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import make_marian_checkpoint  # noqa: E402,F401  (tests/tools/, for the tests)

torch.set_num_threads(1)

# Small enough to convert in about a second, large enough to have every part.
TINY = dict(d_model=64, n_heads=4, d_ff=128, n_encoder_layers=2, n_decoder_layers=2,
            src_vocab_size=120, tgt_vocab_size=130, max_seq_len=48)

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
    (plus non-zero attention biases, so that a misplaced bias shows). Keys and
    shapes are the converter's (checkpoint.expected_shapes, in file order);
    test_reference_model loads them into PyTorch's own modules, strictly."""
    from edgemt_convert.sources.seed.checkpoint import expected_shapes
    from edgemt_convert.sources.seed.config import parse_config
    d = cfg["d_model"]
    rng = np.random.default_rng(seed)
    pe = sinusoid(cfg["max_seq_len"], d, cfg.get("position_layout", "interleaved"))
    shapes = expected_shapes(parse_config(cfg))
    sd = {}
    for key, shape in shapes.items():
        part = key.split(".")[-2]
        if key.endswith("positional_encoding"):
            sd[key] = pe.copy()
        elif key.endswith("token_embedding.weight"):
            sd[key] = rng.normal(0, 1, shape).astype(np.float32) * d ** -0.5
        elif part in ("norm1", "norm2", "norm3", "final_norm") and key.endswith(".weight"):
            sd[key] = (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32)
        elif part in ("norm1", "norm2", "norm3", "final_norm"):
            sd[key] = (0.1 * rng.standard_normal(d)).astype(np.float32)
        elif len(shape) == 2:                 # xavier uniform
            a = math.sqrt(6.0 / (shape[0] + shape[1]))
            sd[key] = rng.uniform(-a, a, size=shape).astype(np.float32)
        else:                                 # a bias: uniform in +-1/sqrt(fan_in) of its weight (d when tied)
            a = 1.0 / math.sqrt(shapes.get(key[:-len("bias")] + "weight", (0, d))[1])
            sd[key] = rng.uniform(-a, a, size=shape).astype(np.float32)
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


def convert_error(test, checkpoint, out, *extra):
    """edgemt-convert in-process on what it must refuse: its stderr, after
    checking exit code 1 and that nothing was left in out's folder."""
    from edgemt_convert.cli import main
    folder = os.path.dirname(out)
    listing = (lambda: sorted(os.listdir(folder)) if os.path.isdir(folder) else None)  # noqa: E731
    before = listing()
    code, _, err = run_cli(main, [checkpoint, "--out", out, "--quiet", *extra])
    test.assertEqual(code, 1, err)
    test.assertEqual(listing(), before, "files left behind")
    return err


class TempDir:
    """A per-test temporary directory (unittest's addCleanup-friendly)."""

    def __init__(self, test):
        self._tmp = tempfile.TemporaryDirectory(prefix="edgemt-test-")
        test.addCleanup(self._tmp.cleanup)
        self.path = self._tmp.name

    def __call__(self, *parts):
        return os.path.join(self.path, *parts)
