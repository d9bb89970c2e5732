#!/usr/bin/python3
"""Small random Hugging Face Marian (OPUS-MT layout) checkpoints, for tests only.

    make_marian_checkpoint.py OUT_DIR [--weights safetensors|bin] [--untied] [--separate-vocabs]
                              [--corpus-dir ../shared/data/multi30k] [--seed N]

Writes what a `MarianMTModel` directory from the hub holds: config.json
("model_type": "marian"), model.safetensors or pytorch_model.bin (a torch
state_dict), source.spm and target.spm (SentencePiece unigram models trained
on train.en and train.de of --corpus-dir, or on generated words without
it), vocab.json (and target_vocab.json with --separate-vocabs),
tokenizer_config.json and generation_config.json.

The vocabulary's ids are not SentencePiece's: "</s>" is 0, "<unk>" 1, the
language tokens ">>deu<<" and ">>fra<<" (as multilingual models have) come
next, the pieces follow in a seeded shuffle, and "<pad>" is last, as in the
OPUS-MT models. Weights follow modeling_marian.py's names: model.shared
(absent with --separate-vocabs), model.{encoder,decoder}.embed_tokens,
embed_positions (sin in the first half of the dimensions, cos in the second,
from position 0), per layer self_attn.{q,k,v,out}_proj, self_attn_layer_norm,
decoder encoder_attn and encoder_attn_layer_norm, fc1, fc2,
final_layer_norm; lm_head.weight (the decoder embeddings unless --untied) and
final_logits_bias [1, vocab].
"""
import argparse
import json
import os
import struct
import sys
import tempfile

import numpy as np

SIZES = dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
             decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64)
LANGUAGE_TOKENS = [">>deu<<", ">>fra<<"]
SPM_VOCAB = {"source": 300, "target": 280}  # pieces per SentencePiece model: separate vocabularies differ in size


def write_safetensors(path, tensors, metadata=None, header_edit=None):
    """The safetensors format: {name: ndarray, or (dtype name, ndarray) for BF16's 16-bit words}, C order,
    little-endian. header_edit(header) may damage the header first (tests of the reader)."""
    names = {np.dtype("<f8"): "F64", np.dtype("<f4"): "F32", np.dtype("<f2"): "F16", np.dtype("<i8"): "I64",
             np.dtype("<i4"): "I32", np.dtype("<i2"): "I16", np.dtype("i1"): "I8", np.dtype("u1"): "U8",
             np.dtype("?"): "BOOL"}
    header, blobs, offset = {}, [], 0
    for name, tensor in tensors.items():
        dtype, array = tensor if isinstance(tensor, tuple) else (names[np.dtype(tensor.dtype)], tensor)
        data = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata is not None:
        header["__metadata__"] = metadata
    if header_edit:
        header_edit(header)
    text = json.dumps(header).encode("utf-8")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def sinusoidal_positions(positions, d):
    """Marian's table: sin of position / 10000^(2j/d) in column j < d/2, cos in column d/2 + j."""
    rates = np.power(10000.0, -2.0 * np.arange(d // 2) / d)
    angles = np.arange(positions)[:, None] * rates[None, :]
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1).astype(np.float32)


def train_spm(lines, prefix, vocab_size):
    import sentencepiece as spm
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
        corpus = f.name
    try:
        # As OPUS-MT's: no <s>, </s> 0 and <unk> 1 inside the SentencePiece model (its ids are not the model's).
        spm.SentencePieceTrainer.train(input=corpus, model_prefix=prefix, vocab_size=vocab_size,
                                       model_type="unigram", character_coverage=1.0, bos_id=-1, eos_id=0,
                                       unk_id=1, pad_id=-1, minloglevel=2)
    finally:
        os.remove(corpus)
    return prefix + ".model"


def corpus(corpus_dir, language, seed):
    if corpus_dir:
        with open(os.path.join(corpus_dir, "train." + language), encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f][:5000]
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyzäöü" if language == "de" else "abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, size=int(rng.integers(2, 9)))) for _ in range(400)]
    return [" ".join(rng.choice(words, size=int(rng.integers(3, 12)))) + "." for _ in range(3000)]


def pieces_of(model_path):
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=model_path)
    return [sp.id_to_piece(i) for i in range(sp.get_piece_size())]


def vocabulary(pieces, seed):
    """{piece: id}: </s> 0, <unk> 1, the language tokens, the other pieces shuffled, <pad> last."""
    rest = sorted(set(pieces) - {"</s>", "<unk>", "<pad>"})
    np.random.default_rng(seed).shuffle(rest)
    ordered = ["</s>", "<unk>"] + LANGUAGE_TOKENS + rest + ["<pad>"]
    return {piece: i for i, piece in enumerate(ordered)}


def random_weights(vocab_src, vocab_tgt, shared, tied, seed):
    rng = np.random.default_rng(seed)
    d, ff = SIZES["d_model"], SIZES["encoder_ffn_dim"]

    def matrix(rows, cols):
        return rng.uniform(-1, 1, size=(rows, cols)).astype(np.float32) * np.float32(np.sqrt(6.0 / (rows + cols)))

    def vector(n, base=0.0):
        return (base + rng.uniform(-0.1, 0.1, size=n)).astype(np.float32)

    sd = {}
    if shared:
        sd["model.shared.weight"] = matrix(vocab_src, d)
        sd["model.encoder.embed_tokens.weight"] = sd["model.shared.weight"]
        sd["model.decoder.embed_tokens.weight"] = sd["model.shared.weight"]
    else:
        sd["model.encoder.embed_tokens.weight"] = matrix(vocab_src, d)
        sd["model.decoder.embed_tokens.weight"] = matrix(vocab_tgt, d)
    for side in ("encoder", "decoder"):
        sd["model.%s.embed_positions.weight" % side] = sinusoidal_positions(SIZES["max_position_embeddings"], d)
        for i in range(SIZES[side + "_layers"]):
            p = "model.%s.layers.%d." % (side, i)
            for block in ("self_attn",) + (("encoder_attn",) if side == "decoder" else ()):
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    sd[p + "%s.%s.weight" % (block, proj)] = matrix(d, d)
                    sd[p + "%s.%s.bias" % (block, proj)] = vector(d)
                sd[p + block + "_layer_norm.weight"] = vector(d, 1.0)
                sd[p + block + "_layer_norm.bias"] = vector(d)
            sd[p + "fc1.weight"], sd[p + "fc1.bias"] = matrix(ff, d), vector(ff)
            sd[p + "fc2.weight"], sd[p + "fc2.bias"] = matrix(d, ff), vector(d)
            sd[p + "final_layer_norm.weight"] = vector(d, 1.0)
            sd[p + "final_layer_norm.bias"] = vector(d)
    # Marian keeps the pad embedding at zero: decoding starts from it.
    for key in ("model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight"):
        sd[key][-1] = 0.0
    sd["lm_head.weight"] = sd["model.decoder.embed_tokens.weight"] if tied else matrix(vocab_tgt, d)
    sd["final_logits_bias"] = vector(vocab_tgt)[None, :]
    return sd


def make(out_dir, weights="safetensors", untied=False, separate_vocabs=False, corpus_dir=None, seed=1):
    os.makedirs(out_dir, exist_ok=True)
    source_spm = train_spm(corpus(corpus_dir, "en", seed), os.path.join(out_dir, "source"), SPM_VOCAB["source"])
    target_spm = train_spm(corpus(corpus_dir, "de", seed + 1), os.path.join(out_dir, "target"), SPM_VOCAB["target"])
    os.replace(source_spm, os.path.join(out_dir, "source.spm"))
    os.replace(target_spm, os.path.join(out_dir, "target.spm"))
    for prefix in ("source", "target"):
        os.remove(os.path.join(out_dir, prefix + ".vocab"))
    src_pieces = pieces_of(os.path.join(out_dir, "source.spm"))
    tgt_pieces = pieces_of(os.path.join(out_dir, "target.spm"))
    if separate_vocabs:
        src_vocab, tgt_vocab = vocabulary(src_pieces, seed), vocabulary(tgt_pieces, seed + 1)
    else:
        src_vocab = tgt_vocab = vocabulary(src_pieces + tgt_pieces, seed)
    with open(os.path.join(out_dir, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(src_vocab, f, ensure_ascii=False, indent=1)
    if separate_vocabs:
        with open(os.path.join(out_dir, "target_vocab.json"), "w", encoding="utf-8") as f:
            json.dump(tgt_vocab, f, ensure_ascii=False, indent=1)
    pad = tgt_vocab["<pad>"]  # decoding starts from the target vocabulary's pad
    config = dict(SIZES, model_type="marian", architectures=["MarianMTModel"], vocab_size=len(src_vocab),
                  decoder_vocab_size=len(tgt_vocab), activation_function="swish", scale_embedding=True,
                  normalize_embedding=False, normalize_before=False, static_position_embeddings=True,
                  add_bias_logits=False, share_encoder_decoder_embeddings=not separate_vocabs,
                  tie_word_embeddings=not untied, pad_token_id=pad, eos_token_id=0, decoder_start_token_id=pad,
                  bad_words_ids=[[pad]], dropout=0.1, attention_dropout=0.0, activation_dropout=0.0,
                  init_std=0.02, max_length=64, num_beams=4, torch_dtype="float32")
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    with open(os.path.join(out_dir, "generation_config.json"), "w") as f:
        json.dump(dict(bad_words_ids=[[pad]], decoder_start_token_id=pad, eos_token_id=0, forced_eos_token_id=0,
                       max_length=48, num_beams=3, pad_token_id=pad), f, indent=1)
    with open(os.path.join(out_dir, "tokenizer_config.json"), "w") as f:
        json.dump(dict(source_lang="en", target_lang="de", separate_vocabs=separate_vocabs, model_max_length=64,
                       unk_token="<unk>", eos_token="</s>", pad_token="<pad>",
                       tokenizer_class="MarianTokenizer"), f, indent=1)
    sd = random_weights(len(src_vocab), len(tgt_vocab), shared=not separate_vocabs, tied=not untied, seed=seed)
    if weights == "safetensors":
        # As Hugging Face saves it: a weight tied to another is written once (here: the shared one's name).
        unique, seen = {}, {}
        for name, array in sd.items():
            if id(array) not in seen:
                seen[id(array)] = name
                unique[name] = array
        write_safetensors(os.path.join(out_dir, "model.safetensors"), unique, metadata={"format": "pt"})
    else:
        import torch
        torch.save({name: torch.from_numpy(array.copy()) for name, array in sd.items()},
                   os.path.join(out_dir, "pytorch_model.bin"))
    return sd


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out_dir")
    p.add_argument("--weights", choices=("safetensors", "bin"), default="safetensors")
    p.add_argument("--untied", action="store_true", help="lm_head.weight of its own")
    p.add_argument("--separate-vocabs", action="store_true", help="target_vocab.json, separate embeddings")
    p.add_argument("--corpus-dir", help="a directory with train.en and train.de (e.g. ../shared/data/multi30k)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    make(args.out_dir, args.weights, args.untied, args.separate_vocabs, args.corpus_dir, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
