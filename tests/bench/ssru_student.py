#!/usr/bin/python3
"""Trains a Firefox-tiny SSRU student on Multi30k, for the studies that need a trained SSRU model
(issue 55: which decoder layer's attention aligns best; int8 against Bergamot on a real student).

    tests/bench/ssru_student.py --minutes 30 --out-dir build/bench-cache/ssru-student
    tests/bench/ssru_student.py --evaluate --out-dir build/bench-cache/ssru-student

Firefox's students are distilled (mozilla/translations: a teacher translates the training corpus and
the student learns those translations); so is this one: the Multi30k model (../shared, EdgeMT int8,
beam 4) translates train.en, and a firefox-tiny student (dim 256, FFN 1536, 6 encoder layers, 2 SSRU
decoder layers, 8 heads, one shared vocabulary: the kit's vocab.ende.spm, tied-embeddings-all with an
output bias) learns them. Its forward pass is Marian's as the kit's marian_reference.py writes it
(post-norm 'dan', sqrt(d) embeddings, Marian's sinusoids, a zero embedding at the first step, the
SSRU cell), so the trained weights mean the same in Marian: the parameters carry Marian's names and
the kit's export_marian.py from-state writes Firefox's files (gzip'd intgemm8 with alphas, float32,
the vocabulary, a lex.50.50 shortlist learnt from the distilled corpus; alphas from 200 training
sources) into OUT_DIR/firefox. Training stops
after --minutes (label smoothing 0.1, dropout 0.1, Adam with warm-up and inverse square root decay);
the weights with the best dev loss are kept. Nothing in the suite runs this (it takes half an hour):
the figures it gave are in docs/alignments.md and tests/bench/ANALYSIS.md.

--evaluate, on the 500 dev sentences, greedy: EdgeMT (build/bin, the float32 file converted with
--dtype float32 and the folder with no flag: int8, the shortlist) against Bergamot (the kit's Node
driver: float32, and the intgemm8 file with int8shiftAlphaAll, one sentence at a time so that each
has its own shortlist, as EdgeMT's); how often each int8 gives its own float32's ids, the engines'
float32 agreement, BLEU;
and, through the Python module (build/python), the share of known word translations (the lexicon of
tests/python/test_python_alignments.py) that each decoder layer's alignments link, greedy and beam 4.
"""
import argparse
import math
import os
import random
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "e2e"))
from e2e_common import CONVERT, DEV_DE, DEV_EN, MULTI30K, REPO, SHARED, read_lines, run  # noqa: E402

KIT = os.path.join(SHARED, "bench", "bergamot")
sys.path.insert(0, KIT)
import export_marian  # noqa: E402
import marian_format  # noqa: E402

CORPUS = os.path.join(SHARED, "data", "multi30k")
VOCAB = os.path.join(KIT, "vocab", "vocab.ende.spm")
PRESET = "firefox-tiny"
SHAPE = export_marian.PRESETS[PRESET]
DIM, ENCODER_LAYERS, DECODER_LAYERS, HEADS = SHAPE["dim"], SHAPE["enc"], SHAPE["dec"], SHAPE["heads"]
LN_EPS = 1e-6
MASK_VALUE = -99999999.0


class Student(torch.nn.Module):
    def __init__(self, vocab, dropout):
        super().__init__()
        self.params = torch.nn.ParameterDict()
        # The kit's names, shapes and kinds of a shared-vocabulary SSRU model of the preset.
        for name, (shape, kind) in export_marian.param_shapes(PRESET, vocab, vocab, False, "ssru").items():
            if kind == "ln_scale":
                value = torch.ones(shape)
            elif kind == "emb":
                value = torch.randn(shape) * math.sqrt(1.0 / DIM)
            elif kind == "W":
                value = torch.randn(shape) * math.sqrt(2.0 / (shape[0] + shape[1]))
            else:
                value = torch.zeros(shape)
            self.params[name] = torch.nn.Parameter(value)
        self.dropout = dropout
        self.register_buffer("positions", torch.from_numpy(marian_format.marian_sinusoid(512, DIM)))

    def p(self, name):
        return self.params[name]

    def drop(self, x):
        return F.dropout(x, self.dropout, self.training)

    def norm(self, prefix, x):
        scale, bias = self.p(prefix + "_ln_scale").view(-1), self.p(prefix + "_ln_bias").view(-1)
        return F.layer_norm(x, (DIM,), scale, bias, LN_EPS)

    def attention(self, prefix, x, memory, memory_keep):
        batch, queries, _ = x.shape
        keys = memory.shape[1]
        head = DIM // HEADS

        def project(t, n, length):
            y = t @ self.p(prefix + "_W" + n) + self.p(prefix + "_b" + n).view(-1)
            return y.view(batch, length, HEADS, head).transpose(1, 2)

        q, k, v = project(x, "q", queries), project(memory, "k", keys), project(memory, "v", keys)
        scores = (q @ k.transpose(2, 3)) / math.sqrt(head)
        scores = scores + (1.0 - memory_keep)[:, None, None, :] * MASK_VALUE
        context = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(batch, queries, DIM)
        return context @ self.p(prefix + "_Wo") + self.p(prefix + "_bo").view(-1)

    def feed_forward(self, prefix, x):
        hidden = torch.relu(x @ self.p(prefix + "_W1") + self.p(prefix + "_b1").view(-1))
        return hidden @ self.p(prefix + "_W2") + self.p(prefix + "_b2").view(-1)

    def forward(self, source, source_keep, target_in):
        scale = math.sqrt(DIM)
        x = self.drop(self.p("Wemb")[source] * scale + self.positions[: source.shape[1]])
        for i in range(1, ENCODER_LAYERS + 1):
            pre = "encoder_l%d" % i
            x = self.norm(pre + "_self_Wo", x + self.drop(self.attention(pre + "_self", x, x, source_keep)))
            x = self.norm(pre + "_ffn_ffn", x + self.drop(self.feed_forward(pre + "_ffn", x)))
        memory = x
        # The first step's input is a zero embedding (Marian's start), then the previous targets.
        embedded = self.p("Wemb")[target_in] * scale
        embedded = torch.cat([torch.zeros_like(embedded[:, :1]), embedded[:, 1:]], dim=1)
        y = self.drop(embedded + self.positions[: target_in.shape[1]])
        for i in range(1, DECODER_LAYERS + 1):
            cell = "decoder_l%d_rnn" % i
            candidate = y @ self.p(cell + "_W")
            forget = torch.sigmoid(y @ self.p(cell + "_Wf") + self.p(cell + "_bf").view(-1))
            state = torch.zeros_like(candidate[:, 0])
            states = []
            for t in range(y.shape[1]):
                state = forget[:, t] * state + (1.0 - forget[:, t]) * candidate[:, t]
                states.append(state)
            y = self.norm(cell + "_ffn", torch.relu(torch.stack(states, dim=1)) + y)
            pre = "decoder_l%d" % i
            y = self.norm(pre + "_context_Wo", y + self.drop(self.attention(pre + "_context", y, memory, source_keep)))
            y = self.norm(pre + "_ffn_ffn", y + self.drop(self.feed_forward(pre + "_ffn", y)))
        return y @ self.p("Wemb").t() + self.p("decoder_ff_logit_out_b").view(-1)


def distil(sources, out_path, work):
    """The teacher's translations of `sources` (EdgeMT int8, beam 4), cached."""
    if os.path.exists(out_path):
        return
    teacher = os.path.join(work, "teacher.int8.edgemt")
    run([CONVERT, MULTI30K, "--out", teacher, "--quiet"])
    with open(sources, "rb") as src, open(out_path + ".part", "wb") as out:
        subprocess.run([os.path.join(REPO, "build", "bin", "edgemt-translate"), "--model", teacher, "--beam-size", "4",
                        "--threads", "2"], stdin=src, stdout=out, check=True)
    os.replace(out_path + ".part", out_path)


def batches(pairs, max_tokens, shuffle):
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][0]), len(pairs[i][1])))
    groups, group, longest = [], [], 0
    for i in order:
        longest_next = max(longest, len(pairs[i][0]), len(pairs[i][1]))
        if group and longest_next * (len(group) + 1) > max_tokens:
            groups.append(group)
            group, longest_next = [], max(len(pairs[i][0]), len(pairs[i][1]))
        group.append(i)
        longest = longest_next
    if group:
        groups.append(group)
    if shuffle:
        random.shuffle(groups)
    for group in groups:
        yield [pairs[i] for i in group]


def tensors(batch):
    source_length = max(len(s) for s, _ in batch)
    target_length = max(len(t) for _, t in batch)
    source = torch.zeros(len(batch), source_length, dtype=torch.long)
    keep = torch.zeros(len(batch), source_length)
    target_in = torch.zeros(len(batch), target_length, dtype=torch.long)
    target_out = torch.full((len(batch), target_length), -100, dtype=torch.long)
    for r, (s, t) in enumerate(batch):
        source[r, : len(s)] = torch.tensor(s)
        keep[r, : len(s)] = 1.0
        target_in[r, 1: len(t)] = torch.tensor(t[:-1])
        target_out[r, : len(t)] = torch.tensor(t)
    return source, keep, target_in, target_out


def dev_loss(model, pairs):
    model.eval()
    total = count = 0.0
    with torch.no_grad():
        for batch in batches(pairs, 4000, False):
            source, keep, target_in, target_out = tensors(batch)
            logits = model(source, keep, target_in)
            total += F.cross_entropy(logits.view(-1, logits.shape[-1]), target_out.view(-1), ignore_index=-100,
                                     reduction="sum").item()
            count += (target_out >= 0).sum().item()
    model.train()
    return total / count


def evaluate(out_dir):
    sys.path.insert(0, os.path.join(REPO, "tests", "python"))
    sys.path.insert(0, os.path.join(REPO, "build", "python"))
    from e2e_common import bleu_of_lines
    from test_firefox_trained import paired_bootstrap
    from test_python_alignments import lexicon_links
    import edgemt
    folder = os.path.join(out_dir, "firefox")
    vocab = os.path.join(folder, "vocab.ende.spm")
    shortlist = os.path.join(folder, "lex.50.50.ende.s2t.bin")
    sources = read_lines(DEV_EN)
    text = "".join(line + "\n" for line in sources)
    f32, i8 = os.path.join(out_dir, "student.f32.edgemt"), os.path.join(out_dir, "student.int8.edgemt")
    run([CONVERT, os.path.join(folder, "model.ende.bin"), "--out", f32, "--dtype", "float32",
         "--shortlist-bergamot", shortlist, "--quiet"])
    run([CONVERT, folder, "--out", i8, "--quiet"])
    out = {}
    for name, path in (("EdgeMT float32", f32), ("EdgeMT int8", i8)):
        cmd = [os.path.join(REPO, "build", "bin", "edgemt-translate"), "--model", path, "--threads", "1"]
        out[name] = (run(cmd, stdin=text).stdout.split("\n")[:-1],
                     run(cmd + ["--output-ids"], stdin=text).stdout.split("\n")[:-1])
    ids_path = os.path.join(out_dir, "bergamot.ids")
    for name, model, gemm in (("Bergamot float32", "model.ende.bin", None),
                              ("Bergamot int8shiftAlphaAll", "model.ende.intgemm.alphas.bin", "int8shiftAlphaAll")):
        cmd = ["node", os.path.join(KIT, "bergamot_translate.mjs"), "--model", os.path.join(folder, model), "--vocab",
               vocab, "--shortlist", shortlist, "--one-by-one", "--ids-out", ids_path]
        cmd += ["--gemm", gemm] if gemm else []
        out[name] = (run(cmd, stdin=text).stdout.split("\n")[:-1], read_lines(ids_path))
    for a, b in (("EdgeMT float32", "Bergamot float32"), ("EdgeMT int8", "EdgeMT float32"),
                 ("Bergamot int8shiftAlphaAll", "Bergamot float32"), ("EdgeMT int8", "Bergamot int8shiftAlphaAll")):
        same = sum(x == y for x, y in zip(out[a][1], out[b][1]))
        print("%s gives %s's ids on %d of %d" % (a, b, same, len(sources)))
    references = read_lines(DEV_DE)
    for name, (lines, _) in out.items():
        print("%s: BLEU %.2f" % (name, bleu_of_lines(lines, os.path.join(out_dir, "hyp"), DEV_DE)))
    _, low, high = paired_bootstrap(out["EdgeMT int8"][0], out["Bergamot int8shiftAlphaAll"][0], references)
    print("EdgeMT int8 - Bergamot int8 BLEU: 95%% interval %+.2f..%+.2f" % (low, high))
    for name, path in (("int8", i8), ("float32", f32)):
        translator = edgemt.Translator(path, max_beam_size=4)
        for options in ({}, {"beam_size": 4}):
            shares = []
            for layer in range(DECODER_LAYERS):
                results = translator.translate_batch(sources, return_alignments=True, alignment_layer=layer,
                                                     **options)
                found, total = lexicon_links(sources, results)
                shares.append("layer %d %.3f (%d of %d)" % (layer, found / total, found, total))
            print("alignments, %s %s: %s" % (name, "beam 4" if options else "greedy", ", ".join(shares)))


def with_openblas():
    """Runs this script again with OpenBLAS (Debian's default libblas3, the reference BLAS, makes PyTorch's
    training 10x slower): the one tests/bench/benchrun/torch_ref.py finds or unpacks, never the system's."""
    if os.environ.get("EDGEMT_STUDENT_BLAS"):
        return
    sys.path.insert(0, HERE)
    from benchlib.paths import CACHE
    from benchrun.torch_ref import torch_env
    env, _, blas = torch_env(CACHE, "openblas")
    env["EDGEMT_STUDENT_BLAS"] = blas
    print("PyTorch's BLAS:", blas, flush=True)
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def main():
    with_openblas()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", default=os.path.join(REPO, "build", "bench-cache", "ssru-student"))
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--max-tokens", type=int, default=3000, help="padded tokens a batch (source or target side)")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=400)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--evaluate", action="store_true", help="measure the trained student (see above)")
    args = ap.parse_args()
    if args.evaluate:
        evaluate(args.out_dir)
        return
    import sentencepiece as spm
    torch.manual_seed(1)
    random.seed(1)
    torch.set_num_threads(args.threads)
    os.makedirs(args.out_dir, exist_ok=True)
    distilled = os.path.join(args.out_dir, "train.distilled.de")
    distil(os.path.join(CORPUS, "train.en"), distilled, args.out_dir)

    vocab = spm.SentencePieceProcessor(model_file=VOCAB)
    eos = vocab.eos_id()

    def encode(lines):
        return [vocab.encode(line)[:100] + [eos] for line in lines]

    train = list(zip(encode(read_lines(os.path.join(CORPUS, "train.en"))), encode(read_lines(distilled))))
    dev = list(zip(encode(read_lines(DEV_EN)), encode(read_lines(DEV_DE))))
    model = Student(vocab.get_piece_size(), dropout=0.1)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / args.warmup, math.sqrt(args.warmup / (step + 1))))
    start, step, epoch, best = time.time(), 0, 0, float("inf")
    state_path = os.path.join(args.out_dir, "student.npz")
    while time.time() - start < args.minutes * 60:
        epoch += 1
        for batch in batches(train, args.max_tokens, True):
            source, keep, target_in, target_out = tensors(batch)
            logits = model(source, keep, target_in)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), target_out.view(-1), ignore_index=-100,
                                   label_smoothing=0.1)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            step += 1
            if step % 100 == 0 or time.time() - start >= args.minutes * 60:
                nll = dev_loss(model, dev)
                print("epoch %d step %d train %.3f dev nll %.3f  %.0f s" % (epoch, step, loss.item(), nll,
                                                                           time.time() - start), flush=True)
                if nll < best:
                    best = nll
                    np.savez(state_path, **{k: v.detach().numpy() for k, v in model.params.items()})
                if time.time() - start >= args.minutes * 60:
                    break
    print("best dev nll %.3f after %d steps, %d epochs" % (best, step, epoch), flush=True)
    firefox = os.path.join(args.out_dir, "firefox")
    shortlist = os.path.join(args.out_dir, "lex.50.50.ende.s2t.bin")
    subprocess.run([sys.executable, os.path.join(KIT, "make_shortlist.py"), "corpus", "--src",
                    os.path.join(CORPUS, "train.en"), "--trg", distilled, "--vocab", VOCAB, "--out", shortlist],
                   check=True)
    subprocess.run([sys.executable, os.path.join(KIT, "export_marian.py"), "from-state", state_path, "--preset",
                    PRESET, "--out-dir", firefox, "--vocab", VOCAB, "--shortlist", shortlist,
                    "--calib-input", os.path.join(CORPUS, "train.en")], check=True)
    print("Firefox files:", firefox)


if __name__ == "__main__":
    main()
