"""The README's C++, C and Python programs, as a new user would paste them
(and examples/translate.py, plain and --stream): the C++ one compiled as
C++17 against the build tree's libedgemt.a (its statements in a main() that
prints the translation), the C one with the C compiler against
libedgemt.so, the Python one run with the build tree's package; all
translate with the committed example model, and print what edgemt-translate
gives for the same sentences. No other fenced code block may sit in the
README untested (the JavaScript one is web/tests/test_wasm_readme.py's)."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL = os.path.join(REPO, "models", "multi30k-ende.int8.edgemt")


def cli(*sentences):
    """edgemt-translate's translations of the sentences."""
    out = subprocess.run([os.path.join(os.environ["EDGEMT_BIN"], "edgemt-translate"), "--model", MODEL],
                         input="".join(s + "\n" for s in sentences), capture_output=True, text=True, check=True)
    return out.stdout.split("\n")[:-1]


def program(section, language):
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    match = re.search(r"\n## %s\n.*?```%s\n(.*?)```" % (re.escape(section), language), readme, re.S)
    if match is None:
        raise AssertionError("README.md has no ```%s block under '## %s'" % (language, section))
    return match.group(1)


# The JavaScript block runs in the WebAssembly build's tests (web/tests/test_wasm_readme.py).
TESTED_BLOCKS = [("The C++ API", "cpp"), ("The C API", "c"), ("Python", "python"),
                 ("JavaScript: web pages and Node.js", "js")]


class ReadmePrograms(unittest.TestCase):
    def test_every_fenced_block_is_tested(self):
        with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        blocks, section = [], None
        fenced = False
        for line in readme.split("\n"):
            if not fenced and line.startswith("## "):
                section = line[3:]
            elif line.startswith("```"):
                if not fenced:
                    blocks.append((section, line[3:].strip()))
                fenced = not fenced
        self.assertEqual(sorted(blocks), sorted(TESTED_BLOCKS))

    def test_cpp(self):
        block = program("The C++ API", "cpp")
        includes = [line for line in block.split("\n") if line.startswith("#include")]
        body = [line for line in block.split("\n") if not line.startswith("#include")]
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "hello.cc")
            with open(source, "w") as f:
                f.write("\n".join(includes + ["#include <cstdio>", "int main() {"] + body +
                                   ['std::printf("%s\\n", text.c_str());', "return 0;", "}", ""]))
            binary = os.path.join(tmp, "hello")
            subprocess.run(["c++", "-std=c++17", "-pedantic", "-Wall", "-Werror", "-Wno-unused-variable", source,
                            "-I", os.path.join(REPO, "runtime", "include"),
                            os.path.join(os.environ["EDGEMT_BUILD"], "lib", "libedgemt.a"), "-pthread", "-lm",
                            "-o", binary], check=True)
            out = subprocess.run([binary], cwd=REPO, capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(out.stdout, cli("A dog runs through the snow.")[0] + "\n")

    def test_c(self):
        lib = os.path.join(os.environ["EDGEMT_BUILD"], "lib")
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "hello.c")
            with open(source, "w") as f:
                f.write(program("The C API", "c"))
            binary = os.path.join(tmp, "hello")
            subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", source, "-I", os.path.join(REPO, "runtime", "include"),
                            "-L", lib, "-ledgemt", "-o", binary], check=True)
            out = subprocess.run([binary], cwd=REPO, capture_output=True, text=True,
                                 env=dict(os.environ, LD_LIBRARY_PATH=lib))
            self.assertEqual(out.returncode, 0, out.stderr)
            expected = cli("A dog runs through the snow.", "Two women are sitting on a bench.")
            self.assertEqual(out.stdout, "".join(line + "\n" for line in expected))

    def test_python(self):
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "hello.py")
            with open(script, "w") as f:
                f.write(program("Python", "python"))
            out = subprocess.run([sys.executable, script], cwd=REPO, input="A man is riding a bike.\n\n",
                                 capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            lines = out.stdout.split("\n")
            self.assertEqual(lines[0], repr(cli("A dog runs through the snow.", "Two women are sitting on a bench.")))
            self.assertEqual(lines[2], cli("A girl is playing in the water.")[0])
            self.assertEqual(lines[-3:], cli("A man is riding a bike.", "") + [""])


    def test_examples_translate_py(self):
        lines = ["A man is riding a bike.", "", "Two women are sitting on a bench."]
        for extra in ([], ["--stream"]):
            out = subprocess.run([sys.executable, os.path.join(REPO, "examples", "translate.py"), MODEL] + extra,
                                 input="".join(line + "\n" for line in lines), capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(out.stdout.split("\n")[:-1], cli(*lines))


if __name__ == "__main__":
    unittest.main()
