"""The seed layout (../shared/bench/make_random_checkpoint.py): model.pt (a
PyTorch state_dict of nn.MultiheadAttention layers), config.json and
optionally a SentencePiece model named by config "tokenizer".

  config       config.json: required keys, variant keys and their defaults
  checkpoint   model.pt: load and validate against the config
  tokenizer    the SentencePiece model, checked against the config
  build        state_dict + config + tokenizer -> float model_ir
"""
import os

from ..importer import Imported
from .build import build_float_model
from .checkpoint import load_state_dict
from .config import load_config
from .tokenizer import load_tokenizer

NAME = "seed"


def detect(checkpoint_dir):
    """Any directory: the seed layout is the last importer tried, and its
    checks say what a directory lacks."""
    return True


def load(checkpoint_dir):
    cfg = load_config(checkpoint_dir)
    tok = load_tokenizer(checkpoint_dir, cfg)
    sd = load_state_dict(checkpoint_dir, cfg)
    model, notes = build_float_model(cfg, sd, tok)
    return Imported(model=model, weights=os.path.join(checkpoint_dir, "model.pt"), notes=notes,
                    languages=(cfg.source_language, cfg.target_language))
