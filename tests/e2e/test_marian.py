"""OPUS-MT / Hugging Face Marian checkpoints, converted to float32, decode in
the runtime exactly as the converter's reference (edgemt-reference) decodes
them: the same greedy ids, the same beam search ids with the model's own
beam size and length limit, logits and encoder outputs within float32
rounding, and the same text. The runtime's tokenizer gives the ids that
Hugging Face's MarianTokenizer rule gives (pieces of source.spm mapped
through vocab.json, <unk> for a piece it lacks, a leading >>xx<< as one
piece), and joins output pieces back into text as it does (target.spm's
join, then a "\u2581" left by a piece target.spm lacks becomes a space).

The checkpoints are small random ones from tests/tools/make_marian_checkpoint.py,
with SentencePiece models trained on Multi30k when ../shared has it (else
on generated words): a tied model with one vocabulary in model.safetensors,
separate vocabularies in pytorch_model.bin with GELU, and an untied output
projection with ReLU. (A trained model in Marian's layout:
test_marian_trained.py.)"""
import json
import os
import sys
import tempfile
import unittest

import numpy as np

from e2e_common import DEV_EN, REFERENCE, REPO, SHARED, convert, emulated, read_lines, run
from int8_layers import LockStep

sys.path.insert(0, os.path.join(REPO, "tests", "tools"))
import make_marian_checkpoint  # noqa: E402

TOLERANCE = 2e-6           # of the largest absolute value, as test_variants
SCORE_TOLERANCE = 1e-4     # relative, as test_multi30k_beam
CORPUS = os.path.join(SHARED, "data", "multi30k")

CHECKPOINTS = {
    "shared": dict(weights="safetensors"),
    "separate": dict(weights="bin", separate_vocabs=True, activation="gelu"),
    "untied": dict(weights="safetensors", untied=True, activation="relu"),
}


def marian_pieces_to_ids(text, sp, vocab):
    """MarianTokenizer's rule, written here from its description: a leading
    >>xx<< token, then source.spm's pieces, each through vocab.json."""
    code = []
    if text.startswith(">>") and "<<" in text:
        end = text.index("<<") + 2
        code, text = [text[:end]], text[end:]
    return [vocab.get(p, vocab["<unk>"]) for p in code + sp.encode(text, out_type=str)]


class Marian(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.corpus = CORPUS if os.path.isdir(CORPUS) else None
        cls.models = {}
        for name, options in CHECKPOINTS.items():
            folder = os.path.join(cls.tmp.name, name)
            options = dict(options)
            activation = options.pop("activation", None)
            make_marian_checkpoint.make(folder, corpus_dir=cls.corpus, seed=len(cls.models) + 1, **options)
            if activation:
                with open(os.path.join(folder, "config.json")) as f:
                    config = json.load(f)
                config["activation_function"] = activation
                with open(os.path.join(folder, "config.json"), "w") as f:
                    json.dump(config, f)
            convert(folder, folder + ".f32.edgemt", "float32")
            cls.models[name] = folder

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def config(self, name):
        with open(os.path.join(self.models[name], "config.json")) as f:
            return json.load(f)

    def vocab(self, name, side="source"):
        folder = self.models[name]
        path = os.path.join(folder, "target_vocab.json" if side == "target" and os.path.exists(
            os.path.join(folder, "target_vocab.json")) else "vocab.json")
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    def random_sources(self, name, count, seed):
        """Random source ids (no pad, no </s> inside), </s> last."""
        c = self.config(name)
        rng = np.random.default_rng(seed)
        allowed = [i for i in range(2, c["vocab_size"]) if i not in (c["pad_token_id"], self.vocab(name)["<pad>"])]
        return [[int(i) for i in rng.choice(allowed, size=int(rng.integers(1, 20)))] + [c["eos_token_id"]]
                for _ in range(count)]

    def text_lines(self):
        if os.path.exists(DEV_EN):
            lines = read_lines(DEV_EN)[:40]
        else:
            lines = ["a man rides a bike down the street .", "two dogs play in the snow ."] * 5
        # Language tokens (known, unknown), characters the models never saw, odd spacing.
        return lines + [">>deu<< " + lines[0], ">>fra<<" + lines[1], ">>xyz<< " + lines[2], ">>deu<<",
                        "Ünïcödé ☃ € 12345 ~~~", "  spaced   out\twords  ", ">> not a token << here"]

    def translate(self, name, args, stdin):
        model = self.models[name] + ".f32.edgemt"
        return run(emulated("edgemt-translate") + ["--model", model, "--batch-size", "4"] + args,
                   stdin=stdin).stdout.split("\n")[:-1]

    def reference(self, name, args):
        return run([sys.executable, REFERENCE, "--model", self.models[name] + ".f32.edgemt"] + args).stdout.split("\n")[:-1]

    def ids_file(self, name, sources):
        path = "%s.%d.ids" % (self.models[name], len(sources))
        with open(path, "w") as f:
            f.write("".join(" ".join(map(str, s)) + "\n" for s in sources))
        return path

    def test_greedy_ids_logits_and_encoder_outputs(self):
        for name in CHECKPOINTS:
            with self.subTest(model=name):
                sources = self.random_sources(name, 12, seed=7)
                path = self.ids_file(name, sources)
                npz = self.models[name] + ".greedy.npz"
                expected = self.reference(name, ["--input-ids", path, "--beam-size", "1", "--dump-npz", npz,
                                                 "--dump-count", "2"])
                with open(path) as f:
                    ours = self.translate(name, ["--input-ids", "--output-ids", "--beam-size", "1"], f.read())
                self.assertEqual(ours, expected)
                golden = np.load(npz)
                for i in range(2):
                    src, out = golden["s%d_src_ids" % i], golden["s%d_out_ids" % i]
                    prefix = "%s.s%d" % (self.models[name], i)
                    run(emulated("edgemt-dump-tensors") + [self.models[name] + ".f32.edgemt",
                        " ".join(map(str, src)), " ".join(map(str, out[:-1])), prefix])
                    for part in ("encoder", "logits"):
                        want = golden["s%d_%s" % (i, "encoder_out" if part == "encoder" else part)]
                        got = np.fromfile(prefix + "." + part, dtype="<f4").reshape(want.shape)
                        err = np.abs(got - want).max() / max(np.abs(want).max(), 1e-6)
                        self.assertLess(err, TOLERANCE, "%s %s relative error %.3g" % (name, part, err))
                # The pad id (the decoder start) is never produced.
                pad = self.config(name)["pad_token_id"]
                self.assertFalse(any(str(pad) in line.split() for line in ours))

    def test_beam_search_with_the_models_own_settings(self):
        """No --beam-size, no --max-length: both take the generation config's
        num_beams 3 and max_length 48 (47 output ids)."""
        for name in CHECKPOINTS:
            with self.subTest(model=name):
                sources = self.random_sources(name, 10, seed=11)
                path = self.ids_file(name, sources)
                expected = self.reference(name, ["--input-ids", path, "--scores"])
                with open(path) as f:
                    ours = self.translate(name, ["--input-ids", "--output-ids", "--scores"], f.read())
                self.assertEqual(len(ours), len(expected))
                for a, b in zip(ours, expected):
                    (sa, ia), (sb, ib) = a.split("\t"), b.split("\t")
                    self.assertEqual(ia, ib)
                    self.assertLessEqual(len(ia.split()), 47)
                    self.assertLess(abs(float(sa) - float(sb)), SCORE_TOLERANCE * max(1.0, abs(float(sb))))
                with open(path) as f:
                    text = f.read()
                # The CLI took the model's settings: they are what naming them gives, n-best 3 needs a beam
                # of 3, and these random models run to the limit of 47 output ids, which only the model's
                # setting gives (the runtime's own default, min(2 x source + 10, 64), is even).
                self.assertEqual(self.translate(name, ["--input-ids", "--output-ids", "--scores", "--beam-size", "3",
                                                       "--max-length", "47"], text), ours)
                n_best = self.translate(name, ["--input-ids", "--output-ids", "--n-best", "3"], text)
                self.assertEqual(len(n_best), 3 * len(sources))
                self.assertEqual(max(len(line.split("\t")[1].split()) for line in ours), 47)

    def test_int8_files_agree_with_the_int8_simulation(self):
        """The default dtype: every int8 Linear against the simulation of
        docs/int8.md on the runtime's own integers, within that page's bound
        (int8_layers.py), for 2 sources; then the runtime's int8 ids against
        the reference's on 200 random sources."""
        for name in CHECKPOINTS:
            with self.subTest(model=name):
                model = self.models[name] + ".int8.edgemt"
                convert(self.models[name], model, "int8")
                lock_step = LockStep(model)
                target_vocab = self.config(name).get("decoder_vocab_size") or self.config(name)["vocab_size"]
                rng = np.random.default_rng(17)
                for i, source in enumerate(self.random_sources(name, 2, seed=17)):
                    fed = [int(t) for t in rng.integers(4, target_vocab, size=12)]
                    prefix = "%s.int8.s%d" % (self.models[name], i)
                    run(emulated("edgemt-dump-tensors") + [model, " ".join(map(str, source)),
                        " ".join(map(str, fed)), prefix, "--linears"])
                    lock_step.check(prefix + ".linears", source, fed)
                print("%s int8: inputs within %.2g of the simulation's; outputs within %.4f of the bound"
                      % (name, lock_step.worst_float, lock_step.worst_product))
                path = self.ids_file(name, self.random_sources(name, 200, seed=13))
                simulated = run([sys.executable, REFERENCE, "--model", model, "--input-ids", path,
                                 "--beam-size", "1"]).stdout.split("\n")[:-1]
                with open(path) as f:
                    ours = run(emulated("edgemt-translate") + ["--model", model, "--input-ids", "--output-ids",
                               "--beam-size", "1"], stdin=f.read()).stdout.split("\n")[:-1]
                same = sum(a == b for a, b in zip(ours, simulated)) / len(simulated)
                print("%s int8: runtime identical to the simulation: %.1f%%" % (name, 100 * same))
                # As test_multi30k_int8: float sums in another order flip a rare near-tie
                # (x86-64, measured 99.5%); other kernels under emulation flip more.
                self.assertGreaterEqual(same, 0.90 if os.environ.get("EDGEMT_EMULATOR") else 0.98)

    def test_text_in_and_out(self):
        lines = self.text_lines()
        path = os.path.join(self.tmp.name, "text.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        for name in CHECKPOINTS:
            with self.subTest(model=name):
                expected = self.reference(name, ["--input", path, "--text", "--beam-size", "1"])
                # The reference takes each line as one sentence (some lines have odd whitespace around them).
                ours = self.translate(name, ["--beam-size", "1", "--sentence-per-line"],
                                      "".join(line + "\n" for line in lines))
                self.assertEqual(len(ours), len(lines))
                self.assertEqual(ours, expected)
                ids = self.reference(name, ["--input", path, "--beam-size", "1"])
                self.assertEqual(self.translate(name, ["--beam-size", "1", "--output-ids", "--sentence-per-line"],
                                                "".join(line + "\n" for line in lines)), ids)

    def test_tokenizer_follows_the_marian_rule(self):
        import sentencepiece as spm
        sys.path.insert(0, os.path.join(REPO, "converter"))
        from edgemt_convert.format.reader import read
        from edgemt_convert.format.tokenizer import TextCodec
        lines = self.text_lines()
        for name in CHECKPOINTS:
            with self.subTest(model=name):
                folder = self.models[name]
                vocab = self.vocab(name)
                sp = spm.SentencePieceProcessor(model_file=os.path.join(folder, "source.spm"))
                expected = [marian_pieces_to_ids(line, sp, vocab) for line in lines]
                codec = TextCodec(read(folder + ".f32.edgemt"))
                self.assertEqual([codec.encode(line) for line in lines], expected)
                out = run(emulated("edgemt-tokenize-lines") + [folder + ".f32.edgemt"],
                          stdin="".join(line + "\n" for line in lines)).stdout.split("\n")[:-1]
                self.assertEqual(len(out), len(lines))
                runtime_ids = [[int(i) for i in line.split("\t")[0].split()] for line in out]
                self.assertEqual(runtime_ids, expected)
                # The language tokens: one piece each, its vocabulary id; an unknown one is <unk>.
                first = {line: ids[0] for line, ids in zip(lines, expected) if line.startswith(">>")}
                self.assertEqual(first[">>deu<<"], vocab[">>deu<<"])
                self.assertEqual(first[">>deu<< " + lines[0]], vocab[">>deu<<"])
                self.assertEqual(first[">>fra<<" + lines[1]], vocab[">>fra<<"])
                self.assertEqual(first[">>xyz<< " + lines[2]], vocab["<unk>"])
                self.assertIn(vocab["<unk>"], expected[lines.index("Ünïcödé ☃ € 12345 ~~~")])
                if name != "shared":
                    continue
                # One vocabulary: text -> ids -> text through target.spm, as the converter's codec does.
                tsp = spm.SentencePieceProcessor(model_file=os.path.join(folder, "target.spm"))
                pieces = {i: p for p, i in vocab.items()}
                for line, ids, runtime in zip(lines, expected, out):
                    text = runtime.split("\t", 1)[1]
                    self.assertEqual(text, tsp.decode_pieces([pieces[i] for i in ids]).replace("\u2581", " ").strip())
                    self.assertEqual(text, codec.decode(ids))
                    if vocab["<unk>"] not in ids and not line.startswith(">>"):
                        # every piece known: the text comes back, spaces normalized
                        self.assertEqual(text, " ".join(line.split()))


if __name__ == "__main__":
    unittest.main()
