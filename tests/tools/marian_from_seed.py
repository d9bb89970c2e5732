#!/usr/bin/python3
"""A trained seed-layout checkpoint written as a Hugging Face Marian directory, for tests.

    marian_from_seed.py SEED_DIR OUT_DIR

Our Marian test checkpoints (make_marian_checkpoint.py) are random: they
check that the import computes what modeling_marian.py computes, but not
what it translates. This writes the trained Multi30k model
(../shared/models/multi30k-ende) in Marian's layout, so the Marian import,
its tokenizer rule and a shortlist learned through it can be judged on
real translations.

The checkpoint is read with the converter's own seed importer
(edgemt_convert.sources.seed), so the seed layout's names stay in one
place; each tensor of the model it builds is written under
modeling_marian.py's name (untied output projection and separate
embeddings: lm_head.weight, final_logits_bias).

The two layouts compute the same function once the model dimensions are
reordered: the seed's positions put sin at even dimensions and cos at odd
ones, Marian's sin in the first half and cos in the second. Taking the
dimensions in the order 0, 2, 4, ..., 1, 3, 5, ... everywhere the model
dimension appears (embedding columns, the inputs of every projection that
reads the residual stream, the outputs and biases of those that write it,
the LayerNorms) turns one into the other; the attention heads and the
feed-forward width keep their order. The stored position tables are the
seed's sinusoid reordered the same way, which the Marian import must
recognise as its own.

The vocabulary is the joint SentencePiece model's own ids (vocab.json maps
each piece to its id), so source.spm and target.spm are the same file; the
seed's <s> (2) becomes decoder_start_token_id, as the model was trained.
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "converter"))
from make_marian_checkpoint import pieces_of, write_safetensors  # noqa: E402
from edgemt_convert.format import model_ir as ir  # noqa: E402
from edgemt_convert.format.positions import sinusoid_table  # noqa: E402
from edgemt_convert.sources import seed  # noqa: E402


def halves_order(d):
    """The seed dimension each Marian dimension takes: 0, 2, 4, ..., 1, 3, 5, ..."""
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])


def marian_tensors(model):
    """{Marian name: float32 array} of the seed importer's float32 model_ir.Model."""
    c = model.config
    p = halves_order(c.d_model)
    reads = lambda w: np.ascontiguousarray(w[:, p])        # noqa: E731  a weight whose input is the residual stream
    writes = lambda w: np.ascontiguousarray(w[p])          # noqa: E731  a weight or vector that writes it
    positions = reads(sinusoid_table(c.max_positions, c.d_model, "interleaved"))
    out = {
        "model.encoder.embed_tokens.weight": reads(model.encoder.token_embedding.data),
        "model.decoder.embed_tokens.weight": reads(model.decoder.token_embedding.data),
        "model.encoder.embed_positions.weight": positions,
        "model.decoder.embed_positions.weight": positions,
        "lm_head.weight": reads(model.decoder.output_projection.weight.data),
        "final_logits_bias": model.decoder.output_projection.bias[None, :].copy(),
    }

    def linear(name, layer, write):
        out[name + ".weight"] = (writes if write else reads)(layer.weight.data)
        out[name + ".bias"] = writes(layer.bias) if write else layer.bias.copy()

    def attention(name, block):
        for proj, layer in (("q_proj", block.query), ("k_proj", block.key), ("v_proj", block.value)):
            linear("%s.%s" % (name, proj), layer, write=False)
        linear(name + ".out_proj", block.output, write=True)

    def norm(name, layer):
        out[name + ".weight"], out[name + ".bias"] = writes(layer.gamma), writes(layer.beta)

    for side, layers in (("encoder", model.encoder.layers), ("decoder", model.decoder.layers)):
        for i, layer in enumerate(layers):
            name = "model.%s.layers.%d." % (side, i)
            attention(name + "self_attn", layer.self_attention)
            norm(name + "self_attn_layer_norm", layer.self_attention_norm)
            if side == "decoder":
                attention(name + "encoder_attn", layer.cross_attention)
                norm(name + "encoder_attn_layer_norm", layer.cross_attention_norm)
            linear(name + "fc1", layer.feed_forward.up, write=False)
            linear(name + "fc2", layer.feed_forward.down, write=True)
            norm(name + "final_layer_norm", layer.feed_forward_norm)
    return out


def marian_config(c):
    """config.json of the Marian directory, from the model's model_ir.Config."""
    if (c.norm, c.position_encoding, c.tied_output, c.shared_embeddings) != (ir.NORM_POST, ir.POS_INTERLEAVED,
                                                                            False, False) \
            or c.embedding_scale != float(np.sqrt(c.d_model)):
        raise SystemExit("marian_from_seed.py: only post-LN, untied, interleaved-position seed models with "
                         "embeddings scaled by sqrt(d_model) map onto Marian")
    return dict(
        model_type="marian", architectures=["MarianMTModel"], d_model=c.d_model, encoder_layers=c.encoder_layers,
        decoder_layers=c.decoder_layers, encoder_attention_heads=c.num_heads, decoder_attention_heads=c.num_heads,
        encoder_ffn_dim=c.d_ff, decoder_ffn_dim=c.d_ff, max_position_embeddings=c.max_positions,
        vocab_size=c.source_vocab_size, decoder_vocab_size=c.target_vocab_size,
        activation_function=ir.ACT_NAMES[c.activation], scale_embedding=True, normalize_embedding=False,
        normalize_before=False, static_position_embeddings=True, add_bias_logits=False,
        share_encoder_decoder_embeddings=False, tie_word_embeddings=False, pad_token_id=c.pad_id,
        eos_token_id=c.eos_id, decoder_start_token_id=c.decoder_start_id, bad_words_ids=[[c.pad_id]],
        num_beams=4, torch_dtype="float32")  # no max_length: the runtime's default, as the seed model has


def write(seed_dir, out_dir):
    model = seed.load(seed_dir).model
    marian = marian_config(model.config)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(seed_dir, "config.json"), encoding="utf-8") as f:
        spm_path = os.path.join(seed_dir, json.load(f)["tokenizer"])
    for name in ("source.spm", "target.spm"):
        shutil.copyfile(spm_path, os.path.join(out_dir, name))
    vocab = {piece: i for i, piece in enumerate(pieces_of(spm_path))}
    generation = {key: marian[key] for key in ("bad_words_ids", "num_beams", "pad_token_id", "eos_token_id",
                                               "decoder_start_token_id")}
    files = {"vocab.json": vocab, "config.json": marian, "generation_config.json": generation,
             "tokenizer_config.json": dict(source_lang="en", target_lang="de", separate_vocabs=False,
                                           unk_token="<unk>", eos_token="</s>", pad_token="<pad>",
                                           tokenizer_class="MarianTokenizer")}
    for name, value in files.items():
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            json.dump(value, f, ensure_ascii=False, indent=1)
    write_safetensors(os.path.join(out_dir, "model.safetensors"), marian_tensors(model), metadata={"format": "pt"})


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("seed_dir")
    p.add_argument("out_dir")
    args = p.parse_args(argv)
    write(args.seed_dir, args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
