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

Token ids are vocab.json's, not the SentencePiece models'. Decoding starts
from decoder_start_token_id, never produces pad (nor any single-token
bad_words_ids), and takes its beam size and length limit from the
generation config.

Everything that does not fit is collected and reported in one error
(sources/problems.py), so a user sees every problem of a checkpoint at once.

  config       config.json, checked
  tokenizer    tokenizer_config.json, the vocabularies, source.spm and target.spm
  generation   the decoding settings the file keeps
  weights      model.safetensors or pytorch_model.bin, checked against the config
  build        all of it -> float model_ir
"""
from ..importer import Imported
from .build import build_float_model
from .config import is_marian_config, read_config
from .generation import read_generation
from ..problems import Problems
from .tokenizer import read_tokenizer
from .weights import read_weights, weights_path

NAME = "marian"


def detect(checkpoint_dir):
    """True when the directory's config.json says model_type "marian"."""
    return is_marian_config(checkpoint_dir)


def load(checkpoint_dir):
    """Imported (languages from tokenizer_config.json, "" when unknown); one
    ConversionError lists every problem found."""
    problems = Problems(checkpoint_dir, "Marian checkpoint")
    notes = []
    raw, config = read_config(checkpoint_dir, problems)
    tokenizer = read_tokenizer(checkpoint_dir, config, problems)
    generation = read_generation(checkpoint_dir, raw, config, problems, notes)
    weights = read_weights(checkpoint_dir, config, problems)
    problems.raise_if_any()
    model = build_float_model(config, weights, tokenizer, generation, notes)
    return Imported(model=model, weights=weights_path(checkpoint_dir), notes=notes, languages=tokenizer.languages)
