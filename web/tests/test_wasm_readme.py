"""The README's JavaScript program, as a new user would save and run it in the clone with Node.js: it must
print what the native edgemt-translate gives for the same sentences (tests/python/test_readme_programs.py
checks that no README block goes untested). Needs EDGEMT_WEB_PACKAGE and EDGEMT_NATIVE_BIN (CTest sets them
in the wasm build directory)."""
import os
import re
import subprocess
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")
SECTION = "JavaScript: web pages and Node.js"


def readme_program():
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        match = re.search(r"\n## %s\n.*?```js\n(.*?)```" % re.escape(SECTION), f.read(), re.S)
    if match is None:
        raise AssertionError("README.md has no ```js block under '## %s'" % SECTION)
    return match.group(1)


class ReadmeJavaScript(unittest.TestCase):
    def cli(self, *sentences, extra=()):
        native = os.environ.get("EDGEMT_NATIVE_BIN")
        if not native or not os.path.exists(os.path.join(native, "edgemt-translate")):
            raise unittest.SkipTest("EDGEMT_NATIVE_BIN has no edgemt-translate: run through CTest in build-wasm")
        out = subprocess.run([os.path.join(native, "edgemt-translate"), "--model", MODEL, *extra],
                             input="".join(s + "\n" for s in sentences), capture_output=True, text=True, check=True)
        return out.stdout.split("\n")[:-1]

    def test_the_program_prints_the_clis_translations(self):
        package = os.environ.get("EDGEMT_WEB_PACKAGE")
        if not package:
            raise unittest.SkipTest("EDGEMT_WEB_PACKAGE is not set: run through CTest in build-wasm")
        program = readme_program()
        self.assertIn("'./build-wasm/web/package/edgemt.mjs'", program)
        # As pasted into the clone, with the package of the build under test.
        program = program.replace("'./build-wasm/web/package/edgemt.mjs'",
                                  "'%s'" % os.path.join(os.path.abspath(package), "edgemt.mjs"))
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "hello.mjs")
            with open(script, "w", encoding="utf-8") as f:
                f.write(program)
            out = subprocess.run(["node", script], cwd=REPO, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stderr, "")
        lines = out.stdout.split("\n")
        self.assertEqual(len(lines), 7, out.stdout)
        self.assertEqual(lines[0:2], self.cli("A dog runs through the snow.", "Two women are sitting on a bench."))
        best = self.cli("A man rides a bike.", extra=("--beam-size", "4"))[0]
        self.assertRegex(lines[2], r"^-\d+\.\d{3} %s$" % re.escape(best))
        self.assertRegex(lines[3], r"^-\d+\.\d{3} \S")
        self.assertEqual(lines[4], self.cli("A girl is playing in the water.")[0])
        self.assertRegex(lines[5], r"^<p>\S.* <b>\S+</b> .*</p>$")
        self.assertEqual(lines[6], "")

if __name__ == "__main__":
    unittest.main()
