#!/usr/bin/python3
"""Why EdgeMT's int8 and CTranslate2's int8 choose different ids on the
exported random variants (issue 27's 92% item): CTranslate2's int8
arithmetic, emulated exactly, with and without the int16 saturation of
the u8 x s8 product that CPUs without AVX-512 VNNI use.

CTranslate2 4.8.1 on x86 (oneDNN, "u8s8 preferred") quantizes each input row
symmetrically, q = round(x * 127 / max|x|), shifts it to u8 (q + 128),
multiplies by the s8 weights and subtracts 128 * sum(w) (src/cpu/kernels.cc
quantize_s8, ops/gemm.cc). With AVX-512 VNNI (vpdpbusd) the products are
summed exactly in int32. Without it the product is vpmaddubsw: each pair
of adjacent u8 x s8 products is summed into a *saturating* int16
(|255 * 127 * 2| = 64,770 > 32,767), then vpmaddwd adds the pairs in int32.

For each variant of tests/e2e/test_ctranslate2.py's ExportedVariants (same
checkpoints, same 200 sources, greedy, at most 40 tokens), it decodes the
int8 directory's EdgeMT import with converter/edgemt_convert/reference's
forward pass in three arithmetics:
  edgemt       EdgeMT's own (docs/int8.md; the runtime's conformance oracle)
  ct2-vnni     CTranslate2's, products exact (what a VNNI CPU computes)
  ct2-avx2     CTranslate2's, pair sums saturated to int16
and prints how often each equals CTranslate2's actual int8 output on this
CPU, its float32 output, and EdgeMT's CLI. If ct2-avx2 reproduces
CTranslate2's int8 and ct2-vnni does not, the saturation is the difference.

    ct2_int8_study.py --cli BUILD/edgemt-translate [--variants a,b] [--sources 200]

Needs ../shared (make_random_checkpoint.py, CTranslate2's bundle) and Debian's python3-torch.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import torch

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.environ.get("EDGEMT_SHARED", os.path.join(os.path.dirname(REPO), "shared"))
CT2 = os.path.join(SHARED, "bench", "ct2")
sys.path.insert(0, os.path.join(REPO, "converter"))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))

from edgemt_convert.format.reader import read                      # noqa: E402
from edgemt_convert.reference.decode import greedy                 # noqa: E402
from edgemt_convert.reference.model import ReferenceModel          # noqa: E402
from test_ctranslate2 import ExportedVariants, ct2_environment     # noqa: E402

MAX_LENGTH = ExportedVariants.MAX_LENGTH


class Ct2Int8Linear:
    """One Linear as CTranslate2 computes it with an int8 weight on x86:
    the weight's int8 rows and CTranslate2's scales (1 / EdgeMT's), the input
    quantized per row to u8, the product exact or with vpmaddubsw's int16
    saturation of adjacent pairs, then y = acc / a_scale / w_scale + bias."""
    CHUNK = 256         # output rows per saturating product (bounds its [B, rows, K/2] temporary)

    def __init__(self, weight, bias, fused_relu, saturate):
        self.w = torch.from_numpy(weight.data.astype(np.float64))                  # [out, K]
        self.w_scale = torch.from_numpy((np.float32(1) / np.asarray(weight.scales, np.float32)).astype(np.float32))
        self.compensation = 128.0 * self.w.sum(dim=1)                             # exact: subtracted in int32
        self.b = None if bias is None else torch.from_numpy(np.asarray(bias, np.float32).copy())
        self.fused_relu, self.saturate = fused_relu, saturate

    def _acc(self, u):
        """sum_k u[k] * w[o, k] for u [N, K] (float64 integers)."""
        if not self.saturate:
            return u @ self.w.T
        k = u.shape[1]
        if k % 2:
            u, w = torch.nn.functional.pad(u, (0, 1)), torch.nn.functional.pad(self.w, (0, 1))
        else:
            w = self.w
        ue, uo = u[:, None, 0::2], u[:, None, 1::2]
        parts = []
        for lo in range(0, w.shape[0], self.CHUNK):
            we, wo = w[None, lo:lo + self.CHUNK, 0::2], w[None, lo:lo + self.CHUNK, 1::2]
            parts.append(torch.clamp(ue * we + uo * wo, -32768, 32767).sum(dim=2))
        return torch.cat(parts, dim=1)

    def __call__(self, x):
        lead = x.shape[:-1]
        x2 = x.reshape(-1, x.shape[-1]).to(torch.float32)
        amax = x2.abs().amax(dim=1)
        a_scale = torch.where(amax != 0, torch.full_like(amax, 127.0) / amax, torch.ones_like(amax))
        u = torch.round(x2 * a_scale[:, None] + 128.0).to(torch.float64)          # round half to even, as cvtps2dq
        acc = (self._acc(u) - self.compensation).to(torch.float32)                 # int32 -> float
        y = (acc * (1.0 / a_scale)[:, None]) / self.w_scale
        if self.b is not None:
            y = y + self.b
        if self.fused_relu:
            y = torch.clamp(y, min=0.0)
        return y.reshape(*lead, y.shape[-1])


def reference(model, arithmetic):
    ref = ReferenceModel(model)
    if arithmetic != "edgemt":
        for name, lin in model.named_linears():
            weight = model.linear_weight(lin)
            if weight.is_int8:           # the reference's op (quantize.int8.Int8Linear) knows its fused ReLU
                ref.ops[name] = Ct2Int8Linear(weight, lin.bias, ref.ops[name].fused_relu,
                                              saturate=arithmetic == "ct2-avx2")
    return ref


def run(cmd, env=None, stdin=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, input=stdin)
    if r.returncode:
        raise SystemExit("%s failed:\n%s" % (" ".join(cmd), r.stderr[-2000:]))
    return r.stdout


def ids_of(lines):
    return [[int(t) for t in line.split()] for line in lines]


def study(name, args, tmp, env):
    ckpt, ct2_dir = os.path.join(tmp, name), os.path.join(tmp, name + "-ct2-int8")
    run([sys.executable, os.path.join(SHARED, "bench", "make_random_checkpoint.py"), ckpt, "--seed", "7"]
        + ExportedVariants.VARIANTS[name])
    run([sys.executable, os.path.join(CT2, "export_ct2.py"), ckpt, ct2_dir, "--quantization", "int8"], env)
    model_path = ct2_dir + ".edgemt"
    run([sys.executable, os.path.join(REPO, "converter", "edgemt-convert"), ct2_dir, "--out", model_path,
         "--dtype", "int8", "--quiet"])
    model = read(model_path)
    ids_path = os.path.join(tmp, name + ".ids")
    rng = random.Random(os.path.basename(ids_path))                     # ExportedVariants.sources' lines
    lines = [" ".join(str(rng.randrange(4, model.config.source_vocab_size)) for _ in range(rng.randrange(3, 31)))
             + " 3" for _ in range(ExportedVariants.SOURCES)][:args.sources]
    with open(ids_path, "w") as f:
        f.write("".join(line + "\n" for line in lines))

    outputs = {}
    for compute in ("int8", "float32"):
        out = os.path.join(tmp, "%s.%s.out" % (name, compute))
        run([sys.executable, os.path.join(REPO, "tests", "e2e", "ctranslate2", "ct2_translate.py"), ct2_dir,
             ids_path, out, "--max-length", str(MAX_LENGTH), "--min-length", "1", "--compute-type", compute], env)
        with open(out) as f:
            outputs["CTranslate2 " + compute] = ids_of(f.read().split("\n")[:-1])
    cli = run([args.cli, "--model", model_path, "--input-ids", "--output-ids", "--threads", "1", "--batch-size",
               "32", "--max-length", str(MAX_LENGTH), "--min-length", "1"], stdin="".join(l + "\n" for l in lines))
    outputs["EdgeMT CLI int8"] = ids_of(cli.split("\n")[:-1])
    sources = ids_of(lines)
    for arithmetic in ("edgemt", "ct2-vnni", "ct2-avx2"):
        with torch.no_grad():
            outputs["emulated " + arithmetic], _ = greedy(reference(model, arithmetic), sources,
                                                          max_length=MAX_LENGTH, min_length=1)
    columns = ["CTranslate2 int8", "CTranslate2 float32", "EdgeMT CLI int8"]
    print("\n%s (%d sources, greedy, <= %d tokens): share of identical outputs" % (name, len(lines), MAX_LENGTH))
    print("  %-20s" % "" + "".join("%22s" % c for c in columns))
    for row in ["emulated edgemt", "emulated ct2-vnni", "emulated ct2-avx2", "EdgeMT CLI int8"]:
        cells = ["%21.1f%%" % (100.0 * np.mean([a == b for a, b in zip(outputs[row], outputs[c])])) for c in columns]
        print("  %-20s" % row + "".join(cells), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", required=True, help="edgemt-translate of a native build")
    ap.add_argument("--variants", default=",".join(ExportedVariants.VARIANTS))
    ap.add_argument("--sources", type=int, default=ExportedVariants.SOURCES)
    args = ap.parse_args()
    torch.set_num_threads(1)
    env = ct2_environment()
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.variants.split(","):
            study(name, args, tmp, env)


if __name__ == "__main__":
    main()
