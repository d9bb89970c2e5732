"""The WebAssembly build against the native CLI on the Multi30k dev set (issue 30).

Node.js (web/tests/translate_lines.mjs) and headless Chromium (the example
page, web/tests/browser_test.mjs) translate the 500 dev sentences with the
int8 example model and a float32 conversion; each must give the native
edgemt-translate's translation for at least 98% of them, and BLEU within 0.1,
on XNNPACK's SIMD128 kernels (Node.js 20 without its relaxed SIMD flag, the
page with ?relaxedSimd=0). Chromium runs relaxed SIMD, so by default the page
runs the relaxed SIMD int8 kernels (7-bit activations, another arithmetic
than the native CLI's): it must give the translations Node.js gives on those
kernels (--experimental-wasm-relaxed-simd); their quality is
test_wasm_relaxed_simd's. The threaded build's page (cross-origin isolated, 2 threads) must do the same
with the int8 model, and Node.js must refuse that build with a clear error.
Run by CTest in the wasm build directory, which sets:
  EDGEMT_WEB_PACKAGE  the npm package folder (build-wasm/web/package)
  EDGEMT_NATIVE_BIN   a native build's bin/ (its edgemt-translate is the reference)
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
from e2e_common import DEV_EN, EXAMPLE_INT8, MULTI30K, bleu_of_lines, convert, need_shared, read_lines, run  # noqa: E402

SHARE = 0.98
BLEU_GAP = 0.1
NODE = "node"


def environment(name):
    value = os.environ.get(name)
    if not value:
        raise unittest.SkipTest("%s is not set: run through CTest in the wasm build directory" % name)
    return value


class WasmMulti30k(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_shared()
        cls.package = environment("EDGEMT_WEB_PACKAGE")
        cls.native_cli = os.path.join(environment("EDGEMT_NATIVE_BIN"), "edgemt-translate")
        if not os.path.exists(cls.native_cli):
            raise unittest.SkipTest("no native edgemt-translate at %s (configure the wasm build with "
                                    "-DEDGEMT_NATIVE_BIN=<native build>/bin)" % cls.native_cli)
        cls.work = tempfile.TemporaryDirectory(prefix="edgemt-wasm-")
        cls.sources = read_lines(DEV_EN)
        cls.float32 = os.path.join(cls.work.name, "multi30k.float32.edgemt")
        convert(MULTI30K, cls.float32, "float32")

    @classmethod
    def tearDownClass(cls):
        cls.work.cleanup()

    def native(self, model):
        return run([self.native_cli, "--model", model], stdin="".join(s + "\n" for s in self.sources)).stdout.split("\n")[:-1]

    def check_against(self, name, outputs, native, reference="the native CLI"):
        self.assertEqual(len(outputs), len(native), "%s: one line per source" % name)
        identical = sum(a == b for a, b in zip(outputs, native)) / len(native)
        bleu = bleu_of_lines(outputs, os.path.join(self.work.name, name + ".de"))
        native_bleu = bleu_of_lines(native, os.path.join(self.work.name, name + ".native.de"))
        print("%s: %.1f%% identical to %s, BLEU %.2f (%.2f)" %
              (name, 100 * identical, reference, bleu, native_bleu), file=sys.stderr)
        self.assertGreaterEqual(identical, SHARE, name)
        self.assertLessEqual(abs(bleu - native_bleu), BLEU_GAP, name)

    def node_outputs(self, model, relaxed_simd=False):
        return run([NODE] + (["--experimental-wasm-relaxed-simd"] if relaxed_simd else []) +
                   [os.path.join(REPO, "web", "tests", "translate_lines.mjs"), "--package", self.package,
                    "--model", model], stdin="".join(s + "\n" for s in self.sources)).stdout.split("\n")[:-1]

    def browser_outputs(self, name, model, native, threads=0, kernels="simd128"):
        """The example page in headless Chromium translates the dev set; the script itself fails on
        any console error, and writes what the page translated."""
        expected = os.path.join(self.work.name, name + ".expected.de")
        with open(expected, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in native))
        summary = os.path.join(self.work.name, name + ".json")
        outputs = os.path.join(self.work.name, name + ".browser.de")
        result = subprocess.run(
            [NODE, os.path.join(REPO, "web", "tests", "browser_test.mjs"), "--package", self.package,
             "--page-dir", os.path.join(REPO, "examples", "web"), "--model", model, "--sources", DEV_EN,
             "--expected", expected, "--count", str(len(self.sources)), "--outputs", outputs,
             "--screenshot", os.path.join(os.environ.get("EDGEMT_TEST_OUTPUT", self.work.name), name + ".png"),
             "--json", summary] + (["--threads", str(threads)] if threads else []) +
            # The threaded build keeps XNNPACK's kernels unasked (its workers could not call the others).
            (["--no-relaxed-simd"] if kernels == "simd128" and not threads else []), capture_output=True, text=True)
        if result.returncode == 77:
            raise unittest.SkipTest(result.stderr.strip())
        self.assertEqual(result.returncode, 0, "browser_test.mjs failed:\n%s\n%s" % (result.stdout, result.stderr[-4000:]))
        with open(summary) as f:
            page = json.load(f)
        self.assertEqual(page["consoleErrors"], [])
        self.assertEqual(page["kernels"], kernels, "the int8 kernels the page ran")
        return read_lines(outputs)

    def test_int8_node(self):
        self.check_against("int8-node", self.node_outputs(EXAMPLE_INT8), self.native(EXAMPLE_INT8))

    def test_float32_node(self):
        self.check_against("float32-node", self.node_outputs(self.float32), self.native(self.float32))

    def test_int8_chromium(self):
        native = self.native(EXAMPLE_INT8)
        self.check_against("int8-chromium", self.browser_outputs("int8-chromium", EXAMPLE_INT8, native), native)

    def test_int8_chromium_relaxed_simd(self):
        node = self.node_outputs(EXAMPLE_INT8, relaxed_simd=True)
        outputs = self.browser_outputs("int8-chromium-relaxed", EXAMPLE_INT8, node, kernels="relaxed-simd")
        self.check_against("int8-chromium-relaxed", outputs, node, "Node.js on the relaxed SIMD kernels")

    def test_float32_chromium(self):
        native = self.native(self.float32)
        self.check_against("float32-chromium", self.browser_outputs("float32-chromium", self.float32, native), native)

    # The threaded build (toolchains/wasm32-emscripten-threads.cmake; CTest runs these two there and
    # the four above in the single-threaded build): the page cross-origin isolated, 2 threads.
    def test_int8_chromium_threads(self):
        native = self.native(EXAMPLE_INT8)
        outputs = self.browser_outputs("int8-chromium-threads", EXAMPLE_INT8, native, threads=2)
        self.check_against("int8-chromium-threads", outputs, native)

    def test_node_refuses_threaded_build(self):
        """Node.js cannot run this Emscripten's threads from an ES module: loading says so, clearly."""
        result = subprocess.run([NODE, os.path.join(REPO, "web", "tests", "translate_lines.mjs"), "--package",
                                 self.package, "--model", EXAMPLE_INT8], input="A dog.\n", capture_output=True,
                                text=True)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("threaded build of EdgeMT, for web pages only", result.stderr)
        self.assertEqual(result.stdout, "")


if __name__ == "__main__":
    unittest.main()
