"""config.json of a Marian directory: the values the conversion uses, each
checked, every problem added to the directory's Problems."""
import json
import os

from ...errors import ConversionError
from ...format import model_ir as ir
from ..problems import read_json

CONFIG_NAME = "config.json"
ACTIVATIONS = {"swish": ir.ACT_SILU, "silu": ir.ACT_SILU, "gelu": ir.ACT_GELU, "relu": ir.ACT_RELU}
# Layouts modeling_marian.py does not have (a BART/mBART-style checkpoint in
# Marian's clothes): the key and the value it must not have.
FOREIGN_LAYOUTS = (("normalize_before", True), ("normalize_embedding", True), ("add_final_layer_norm", True),
                   ("add_bias_logits", True), ("static_position_embeddings", False))


def is_marian_config(checkpoint_dir):
    """True when the directory's config.json says model_type "marian"."""
    try:
        with open(os.path.join(checkpoint_dir, CONFIG_NAME), encoding="utf-8") as f:
            raw = json.load(f)
    except (OSError, ValueError):
        return False
    return isinstance(raw, dict) and raw.get("model_type") == "marian"


def read_config(checkpoint_dir, problems):
    """(the decoded config.json, its MarianConfig); without a JSON object
    there is nothing more to check, so it raises at once."""
    raw = read_json(os.path.join(checkpoint_dir, CONFIG_NAME), problems)
    if not isinstance(raw, dict):
        problems.raise_if_any()
        raise ConversionError("%s: config.json is not a JSON object" % checkpoint_dir)
    return raw, MarianConfig(raw, problems)


class MarianConfig:
    """The config.json values the conversion uses, checked (None: missing or invalid)."""

    def __init__(self, raw, problems):
        self.problems = problems
        self.raw = raw
        decoder_heads, decoder_ff = self._read_sizes()
        self._read_ids_and_flags()
        self._check_sizes(decoder_heads, decoder_ff)
        act = raw.get("activation_function", "gelu")
        self.activation = ACTIVATIONS.get(act) if isinstance(act, str) else None
        if self.activation is None:
            problems.add("config.json: activation_function %r is not one EdgeMT runs (%s)"
                         % (act, ", ".join(sorted(ACTIVATIONS))))
        self._check_layout()
        self._check_vocabulary()

    def _integer(self, key, minimum=1, default=None):
        v = self.raw.get(key, default)
        if v is None:
            self.problems.add("config.json: missing %s" % key)
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
            self.problems.add("config.json: %s must be an integer >= %d, got %r" % (key, minimum, v))
            return None
        return v

    def _flag(self, key, default):
        v = self.raw.get(key, default)
        if not isinstance(v, bool):
            self.problems.add("config.json: %s must be true or false, got %r" % (key, v))
            return default
        return v

    def _read_sizes(self):
        """Sets the sizes; returns the decoder's head count and feed-forward width."""
        self.d_model = self._integer("d_model")
        self.encoder_layers = self._integer("encoder_layers")
        self.decoder_layers = self._integer("decoder_layers")
        self.heads = self._integer("encoder_attention_heads")
        decoder_heads = self._integer("decoder_attention_heads")
        self.d_ff = self._integer("encoder_ffn_dim")
        decoder_ff = self._integer("decoder_ffn_dim")
        self.max_positions = self._integer("max_position_embeddings", 2)
        self.vocab_size = self._integer("vocab_size")
        self.decoder_vocab_size = self._integer("decoder_vocab_size", 1, self.raw.get("vocab_size"))
        return decoder_heads, decoder_ff

    def _read_ids_and_flags(self):
        self.pad_id = self._integer("pad_token_id", 0)
        self.eos_id = self._integer("eos_token_id", 0)
        self.decoder_start_id = self._integer("decoder_start_token_id", 0, self.raw.get("pad_token_id"))
        self.scale_embedding = self._flag("scale_embedding", False)
        self.share_embeddings = self._flag("share_encoder_decoder_embeddings", True)
        self.tie_output = self._flag("tie_word_embeddings", True)

    def _check_sizes(self, decoder_heads, decoder_ff):
        add = self.problems.add
        if None not in (self.heads, decoder_heads) and self.heads != decoder_heads:
            add("config.json: encoder_attention_heads %d and decoder_attention_heads %d differ "
                "(EdgeMT models have one head count)" % (self.heads, decoder_heads))
        if None not in (self.d_ff, decoder_ff) and self.d_ff != decoder_ff:
            add("config.json: encoder_ffn_dim %d and decoder_ffn_dim %d differ "
                "(EdgeMT models have one feed-forward width)" % (self.d_ff, decoder_ff))
        if None not in (self.d_model, self.heads) and self.d_model % self.heads:
            add("config.json: d_model %d is not a multiple of encoder_attention_heads %d" % (self.d_model, self.heads))
        if self.d_model is not None and self.d_model % 2:
            add("config.json: d_model %d must be even (sinusoidal positions)" % self.d_model)

    def _check_layout(self):
        for key, bad in FOREIGN_LAYOUTS:
            if key in self.raw and self.raw[key] == bad:
                self.problems.add("config.json: %s is %s; the Marian layout EdgeMT reproduces has it %s"
                                  % (key, json.dumps(bad), json.dumps(not bad)))

    def _check_vocabulary(self):
        if self.share_embeddings and None not in (self.vocab_size, self.decoder_vocab_size) \
                and self.vocab_size != self.decoder_vocab_size:
            self.problems.add("config.json: share_encoder_decoder_embeddings needs vocab_size %d = "
                              "decoder_vocab_size %d" % (self.vocab_size, self.decoder_vocab_size))
        for key, value in (("pad_token_id", self.pad_id), ("eos_token_id", self.eos_id),
                           ("decoder_start_token_id", self.decoder_start_id)):
            if None not in (value, self.decoder_vocab_size) and value >= self.decoder_vocab_size:
                self.problems.add("config.json: %s %d is outside the vocabulary (size %d)"
                                  % (key, value, self.decoder_vocab_size))

    @property
    def complete(self):
        return None not in (self.d_model, self.encoder_layers, self.decoder_layers, self.heads, self.d_ff,
                            self.max_positions, self.vocab_size, self.decoder_vocab_size)
