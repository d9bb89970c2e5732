#!/usr/bin/python3
"""A trained seed-layout checkpoint written as a Hugging Face Marian directory, for tests.

    marian_from_seed.py SEED_DIR OUT_DIR

Our Marian test checkpoints (make_marian_checkpoint.py) are random: they
check that the import computes what modeling_marian.py computes, but not
what it translates. This writes the trained Multi30k model
(../shared/models/multi30k-ende) in Marian's layout, so the Marian import,
its tokenizer rule and a shortlist learned through it can be judged on
real translations.

The two layouts compute the same function once the model dimensions are
reordered: the seed's positions put sin at even dimensions and cos at odd
ones, Marian's sin in the first half and cos in the second. Taking the
dimensions in the order 0, 2, 4, ..., 1, 3, 5, ... everywhere the model
dimension appears (embedding columns, the inputs of every projection that
reads the residual stream, the outputs and biases of those that write it,
the LayerNorms) turns one into the other; the attention heads and the
feed-forward width keep their order. The rest maps by name: in_proj's
three blocks are q, k and v; feed_forward.0 and .3 are fc1 and fc2; norm1,
norm2 and norm3 the self-attention, cross-attention and feed-forward norms
(the encoder's norm2 its feed-forward norm); the output projection and its
bias are lm_head and final_logits_bias (untied, separate embeddings).

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_marian_checkpoint import pieces_of, write_safetensors  # noqa: E402


def halves_order(d):
    """The seed dimension each Marian dimension takes: 0, 2, 4, ..., 1, 3, 5, ..."""
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])


def marian_tensors(sd, config):
    """{Marian name: float32 array} of a seed state_dict {name: float32 array}."""
    d = config["d_model"]
    p = halves_order(d)
    reads = lambda w: np.ascontiguousarray(w[:, p])        # noqa: E731  a weight whose input is the residual stream
    writes = lambda w: np.ascontiguousarray(w[p])          # noqa: E731  a weight or vector that writes it
    out = {
        "model.encoder.embed_tokens.weight": reads(sd["encoder.token_embedding.weight"]),
        "model.decoder.embed_tokens.weight": reads(sd["decoder.token_embedding.weight"]),
        "lm_head.weight": reads(sd["decoder.output_projection.weight"]),
        "final_logits_bias": sd["decoder.output_projection.bias"][None, :].copy(),
    }

    def attention(src, dst):
        q, k, v = np.split(sd[src + ".in_proj_weight"], 3)
        qb, kb, vb = np.split(sd[src + ".in_proj_bias"], 3)
        for name, w, b in (("q_proj", q, qb), ("k_proj", k, kb), ("v_proj", v, vb)):
            out["%s.%s.weight" % (dst, name)] = reads(w)
            out["%s.%s.bias" % (dst, name)] = b.copy()
        out[dst + ".out_proj.weight"] = writes(sd[src + ".out_proj.weight"])
        out[dst + ".out_proj.bias"] = writes(sd[src + ".out_proj.bias"])

    def norm(src, dst):
        out[dst + ".weight"] = writes(sd[src + ".weight"])
        out[dst + ".bias"] = writes(sd[src + ".bias"])

    for side, layers, norms in (("encoder", config["n_encoder_layers"], ("self_attn", "final")),
                                ("decoder", config["n_decoder_layers"], ("self_attn", "encoder_attn", "final"))):
        table = sd["%s.positional_encoding" % side][0]
        out["model.%s.embed_positions.weight" % side] = np.ascontiguousarray(table[:, p])
        for i in range(layers):
            src, dst = "%s.layers.%d" % (side, i), "model.%s.layers.%d" % (side, i)
            attention(src + ".self_attn", dst + ".self_attn")
            if side == "decoder":
                attention(src + ".cross_attn", dst + ".encoder_attn")
            out[dst + ".fc1.weight"] = reads(sd[src + ".feed_forward.0.weight"])
            out[dst + ".fc1.bias"] = sd[src + ".feed_forward.0.bias"].copy()
            out[dst + ".fc2.weight"] = writes(sd[src + ".feed_forward.3.weight"])
            out[dst + ".fc2.bias"] = writes(sd[src + ".feed_forward.3.bias"])
            for n, block in enumerate(norms, start=1):
                norm("%s.norm%d" % (src, n), "%s.%s_layer_norm" % (dst, block))
    return out


def marian_config(config):
    """config.json of the Marian directory."""
    if config.get("norm") != "post" or config.get("tie_output") or config.get("position_layout") != "interleaved":
        raise SystemExit("marian_from_seed.py: only post-LN, untied, interleaved-position seed models map onto Marian")
    return dict(
        model_type="marian", architectures=["MarianMTModel"], d_model=config["d_model"],
        encoder_layers=config["n_encoder_layers"], decoder_layers=config["n_decoder_layers"],
        encoder_attention_heads=config["n_heads"], decoder_attention_heads=config["n_heads"],
        encoder_ffn_dim=config["d_ff"], decoder_ffn_dim=config["d_ff"], max_position_embeddings=config["max_seq_len"],
        vocab_size=config["src_vocab_size"], decoder_vocab_size=config["tgt_vocab_size"],
        activation_function=config["activation"], scale_embedding=True, normalize_embedding=False,
        normalize_before=False, static_position_embeddings=True, add_bias_logits=False,
        share_encoder_decoder_embeddings=False, tie_word_embeddings=False, pad_token_id=config["pad_id"],
        eos_token_id=config["eos_id"], decoder_start_token_id=config["bos_id"], bad_words_ids=[[config["pad_id"]]],
        num_beams=4, torch_dtype="float32")  # no max_length: the runtime's default, as the seed model has


def write(seed_dir, out_dir):
    import torch
    with open(os.path.join(seed_dir, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    sd = {k: v.numpy().astype(np.float32) for k, v in torch.load(os.path.join(seed_dir, "model.pt"),
                                                                   map_location="cpu").items()}
    os.makedirs(out_dir, exist_ok=True)
    spm_path = os.path.join(seed_dir, config["tokenizer"])
    for name in ("source.spm", "target.spm"):
        shutil.copyfile(spm_path, os.path.join(out_dir, name))
    vocab = {piece: i for i, piece in enumerate(pieces_of(spm_path))}
    marian = marian_config(config)
    files = {"vocab.json": vocab, "config.json": marian,
             "generation_config.json": dict(bad_words_ids=marian["bad_words_ids"], num_beams=marian["num_beams"], pad_token_id=marian["pad_token_id"],
                                            eos_token_id=marian["eos_token_id"],
                                            decoder_start_token_id=marian["decoder_start_token_id"]),
             "tokenizer_config.json": dict(source_lang="en", target_lang="de", separate_vocabs=False,
                                           unk_token="<unk>", eos_token="</s>", pad_token="<pad>",
                                           tokenizer_class="MarianTokenizer")}
    for name, value in files.items():
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            json.dump(value, f, ensure_ascii=False, indent=1)
    write_safetensors(os.path.join(out_dir, "model.safetensors"), marian_tensors(sd, config), metadata={"format": "pt"})


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("seed_dir")
    p.add_argument("out_dir")
    args = p.parse_args(argv)
    write(args.seed_dir, args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
