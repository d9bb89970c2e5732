"""The relaxed SIMD int8 kernels of the WebAssembly build (issue 55; ops/relaxed_simd_product.h).

Node.js 20 runs relaxed SIMD behind --experimental-wasm-relaxed-simd, so the
same package runs either kernels in one Node.js:

  * the kernels follow their contract (relaxed_simd_kernels_test.mjs);
  * the loader picks them where the engine validates them, and only there:
    without the flag XNNPACK's SIMD128 kernels run, with it the relaxed ones,
    with it and relaxedSimd: false XNNPACK's again, translating exactly as
    without the flag, and likewise from a package without the kernels' file;
  * batches of 16 translate as one sentence at a time (each row is quantized
    on its own, and both kernels add the same integers);
  * int8 on the trained model in Firefox's files (the Multi30k model through
    export_marian.py from-seed, the intgemm8 weights as shipped), the 500 dev
    sentences: neither how often EdgeMT's relaxed int8 gives EdgeMT float32's
    translation nor its BLEU is measurably below Bergamot int8shiftAlphaAll's
    (against Bergamot float32; paired bootstrap over the sentences, 1,000
    resamples: the 97.5th percentile of the difference is not negative), the
    bar tests/e2e/test_firefox_trained.py puts on the native int8's BLEU. The
    count itself is at the level of float rounding: measured 441 against
    Bergamot's 443, and 443 with the same 7-bit products summed in another
    float order (tests/bench/ANALYSIS.md). Every count and BLEU is printed,
    XNNPACK's int8 in Node.js beside them.
Run by CTest in the wasm build directory (EDGEMT_WEB_PACKAGE).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
from e2e_common import CONVERT, DEV_EN, EXAMPLE_INT8, MULTI30K, bleu_of_lines, need_shared, read_lines, run  # noqa: E402
from test_firefox_models import KIT, need_kit  # noqa: E402
from test_firefox_trained import paired_bootstrap  # noqa: E402
from test_wasm_multi30k import NODE, environment  # noqa: E402

RELAXED = "--experimental-wasm-relaxed-simd"
TRANSLATE_LINES = os.path.join(REPO, "web", "tests", "translate_lines.mjs")
SENTENCES = 500


def paired_count_difference(ours, theirs, resamples=1000, seed=1):
    """The 2.5th and 97.5th percentiles of sum(ours) - sum(theirs) over the sentences resampled with
    replacement (the same sentences for both)."""
    import random
    rng = random.Random(seed)
    n = len(ours)
    differences = sorted(sum(ours[i] - theirs[i] for i in (rng.randrange(n) for _ in range(n)))
                         for _ in range(resamples))
    return differences[int(0.025 * resamples)], differences[int(0.975 * resamples) - 1]


class WasmRelaxedSimd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_shared()
        cls.package = environment("EDGEMT_WEB_PACKAGE")
        probe = subprocess.run([NODE, RELAXED, "-e", "1"], capture_output=True, text=True)
        if probe.returncode != 0:
            raise unittest.SkipTest("this Node.js has no %s: %s" % (RELAXED, probe.stderr.strip()))
        cls.work = tempfile.TemporaryDirectory(prefix="edgemt-wasm-relaxed-")
        cls.sources = "".join(line + "\n" for line in read_lines(DEV_EN)[:SENTENCES])

    @classmethod
    def tearDownClass(cls):
        cls.work.cleanup()

    def translate(self, model, node_flags=(), options=(), package=None):
        """Node.js's translations of the dev sentences and the kernels it ran."""
        timing = os.path.join(self.work.name, "timing.json")
        lines = run([NODE, *node_flags, TRANSLATE_LINES, "--package", package or self.package, "--model", model,
                     "--timing", timing, *options], stdin=self.sources).stdout.split("\n")[:-1]
        self.assertEqual(len(lines), SENTENCES, "one line per source")
        with open(timing) as f:
            return lines, json.load(f)["kernels"]

    def test_the_kernels_follow_their_contract(self):
        result = subprocess.run([NODE, RELAXED, os.path.join(REPO, "web", "tests", "relaxed_simd_kernels_test.mjs"),
                                 "--package", self.package], capture_output=True, text=True)
        if result.returncode == 77:
            raise unittest.SkipTest(result.stderr.strip())
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        print(result.stdout.strip(), file=sys.stderr)

    def test_the_loader_picks_the_kernels_the_engine_runs(self):
        simd128, kernels = self.translate(EXAMPLE_INT8)
        self.assertEqual(kernels, "simd128")
        relaxed, kernels = self.translate(EXAMPLE_INT8, [RELAXED])
        self.assertEqual(kernels, "relaxed-simd")
        kept, kernels = self.translate(EXAMPLE_INT8, [RELAXED], ["--no-relaxed-simd"])
        self.assertEqual(kernels, "simd128")
        self.assertEqual(kept, simd128, "relaxedSimd: false must run XNNPACK's kernels as without the flag")
        same = sum(a == b for a, b in zip(relaxed, simd128))
        print("relaxed SIMD int8: %d of %d translations XNNPACK's" % (same, SENTENCES), file=sys.stderr)
        self.assertLess(same, SENTENCES, "7-bit activations must change some translations: are the kernels used?")
        self.assertGreater(same, SENTENCES // 2)

    def test_a_package_without_the_kernels_runs_xnnpack(self):
        package = os.path.join(self.work.name, "package-without-kernels")
        shutil.copytree(self.package, package)
        os.remove(os.path.join(package, "edgemt-relaxed-simd.wasm"))
        without, kernels = self.translate(EXAMPLE_INT8, [RELAXED], package=package)
        self.assertEqual(kernels, "simd128")
        self.assertEqual(without, self.translate(EXAMPLE_INT8)[0])

    def test_batches_translate_as_single_sentences(self):
        single, _ = self.translate(EXAMPLE_INT8, [RELAXED], ["--batch", "1"])
        batched, _ = self.translate(EXAMPLE_INT8, [RELAXED], ["--batch", "16", "--per-call", str(SENTENCES)])
        self.assertEqual(batched, single)

    def test_trained_firefox_files_int8_against_bergamot(self):
        need_kit()
        work = self.work.name
        folder = os.path.join(work, "marian")
        run(["/usr/bin/python3", os.path.join(KIT, "export_marian.py"), "from-seed", MULTI30K, "--out-dir", folder])
        vocab = os.path.join(folder, "vocab.ende.spm")
        float_bin, int8_bin = (os.path.join(folder, name) for name in ("model.ende.bin", "model.ende.intgemm.alphas.bin"))
        f32, i8 = os.path.join(work, "f32.edgemt"), os.path.join(work, "i8.edgemt")
        run(["/usr/bin/python3", CONVERT, float_bin, "--out", f32, "--dtype", "float32"])
        run(["/usr/bin/python3", CONVERT, folder, "--out", i8])
        out = {"EdgeMT float32": self.translate(f32)[0], "EdgeMT int8 simd128": self.translate(i8)[0]}
        out["EdgeMT int8 relaxed SIMD"], kernels = self.translate(i8, [RELAXED])
        self.assertEqual(kernels, "relaxed-simd")
        for name, model, gemm in (("Bergamot float32", float_bin, []),
                                  ("Bergamot int8shiftAlphaAll", int8_bin, ["--gemm", "int8shiftAlphaAll"])):
            out[name] = run([NODE, os.path.join(KIT, "bergamot_translate.mjs"), "--model", model, "--vocab", vocab,
                             *gemm], stdin=self.sources).stdout.split("\n")[:-1]
            self.assertEqual(len(out[name]), SENTENCES)
        bleu = {name: bleu_of_lines(lines, os.path.join(work, "hyp")) for name, lines in out.items()}

        def same(a, b):
            n = sum(x == y for x, y in zip(out[a], out[b]))
            print("%s: %d of %d translations %s's; BLEU %.2f" % (a, n, SENTENCES, b, bleu[a]), file=sys.stderr)
            return n

        same("EdgeMT int8 simd128", "EdgeMT float32")
        same("EdgeMT int8 relaxed SIMD", "EdgeMT float32")
        same("Bergamot int8shiftAlphaAll", "Bergamot float32")
        ours = [x == y for x, y in zip(out["EdgeMT int8 relaxed SIMD"], out["EdgeMT float32"])]
        theirs = [x == y for x, y in zip(out["Bergamot int8shiftAlphaAll"], out["Bergamot float32"])]
        low, high = paired_count_difference(ours, theirs)
        print("relaxed SIMD int8 minus Bergamot int8, translations equal to float32's: %+d, 95%% interval %+d to %+d"
              % (sum(ours) - sum(theirs), low, high), file=sys.stderr)
        self.assertGreaterEqual(high, 0, "EdgeMT's relaxed SIMD int8 agrees with float32 measurably less often")
        refs = read_lines(os.path.join(os.path.dirname(DEV_EN), "dev.de"))[:SENTENCES]
        whole, low, high = paired_bootstrap(out["EdgeMT int8 relaxed SIMD"], out["Bergamot int8shiftAlphaAll"], refs)
        print("relaxed SIMD int8 minus Bergamot int8: BLEU %+.2f, 95%% interval %+.2f to %+.2f" %
              (bleu["EdgeMT int8 relaxed SIMD"] - bleu["Bergamot int8shiftAlphaAll"], low, high), file=sys.stderr)
        self.assertGreaterEqual(high, 0.0, "EdgeMT's relaxed SIMD int8 is measurably worse than Bergamot int8")


if __name__ == "__main__":
    unittest.main()
