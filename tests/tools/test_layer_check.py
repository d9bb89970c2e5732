"""tools/layer_check.py on this tree (no breach) and on copies of it with one
breach planted each: an include that runs up, a circle inside a folder, a
file outside the layers, a folder-relative include, a public header that
includes a private one, and a runtime file docs/architecture.md does not
name. Each planted breach must fail the check and be named in its output.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "tools", "layer_check.py")


def run(root):
    done = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)
    return done.returncode, done.stdout


class LayerCheckTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="layer_check_")
        shutil.copytree(os.path.join(ROOT, "runtime", "src"), os.path.join(self.dir, "runtime", "src"))
        shutil.copytree(os.path.join(ROOT, "runtime", "include"), os.path.join(self.dir, "runtime", "include"))
        os.makedirs(os.path.join(self.dir, "docs"))
        shutil.copy(os.path.join(ROOT, "docs", "architecture.md"), os.path.join(self.dir, "docs"))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def append(self, rel, text):
        with open(os.path.join(self.dir, rel), "a", encoding="utf-8") as f:
            f.write(text)

    def assert_fails_naming(self, *words):
        rc, out = run(self.dir)
        self.assertEqual(rc, 1, out)
        for word in words:
            self.assertIn(word, out)

    def test_this_tree_passes(self):
        rc, out = run(ROOT)
        self.assertEqual(rc, 0, out)
        self.assertIn("0 breaches", out)

    def test_the_copy_passes(self):
        rc, out = run(self.dir)
        self.assertEqual(rc, 0, out)

    def test_an_upward_include_fails(self):
        self.append("runtime/src/ops/linear.cc", '#include "text/text_parts.h"\n')
        self.assert_fails_naming("runtime/src/ops/linear.cc", "text/text_parts.h", "runs up")

    def test_the_engine_including_text_fails(self):
        self.append("runtime/src/translator/translator.cc", '#include "text/translation_cache.h"\n')
        self.assert_fails_naming("runtime/src/translator/translator.cc", "runs up")

    def test_text_including_document_fails(self):
        self.append("runtime/src/text/text_parts.cc", '#include "document/document_layout.h"\n')
        self.assert_fails_naming("runtime/src/text/text_parts.cc", "runs up")

    def test_a_circle_inside_a_folder_fails(self):
        self.append("runtime/src/ops/attention.h", '#include "ops/sequence_attention.h"\n')
        self.assert_fails_naming("circle", "ops/attention.h", "ops/sequence_attention.h")

    def test_a_file_outside_the_layers_fails(self):
        self.append("runtime/src/stray.h", "#pragma once\n")
        self.assert_fails_naming("runtime/src/stray.h", "not in a layer")

    def test_a_folder_relative_include_fails(self):
        self.append("runtime/src/html/html.cc", '#include "html_scanner.h"\n')
        self.assert_fails_naming("runtime/src/html/html.cc", "html/html_scanner.h")

    def test_a_public_header_including_a_private_one_fails(self):
        self.append("runtime/include/edgemt/status.h", '#include "base/fixed_array.h"\n')
        self.assert_fails_naming("edgemt/status.h", "no public header")

    def test_a_file_the_architecture_does_not_name_fails(self):
        self.append("runtime/src/base/newcomer.h", "#pragma once\n")
        self.assert_fails_naming("docs/architecture.md", "runtime/src/base/newcomer.h")


if __name__ == "__main__":
    unittest.main()
