"""The JavaScript Catalog (web/js/edgemt.mjs) in Node.js: a set of four
models (tests/e2e/model_set.py) loaded into the WebAssembly module gives the
native CLI's --models texts, for a direct pair and through English, as
texts, documents and HTML, with auto detection and the route it took.
Run by CTest in the wasm build directory (EDGEMT_WEB_PACKAGE, EDGEMT_NATIVE_BIN)."""
import json
import os
import shutil
import subprocess
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
from test_wasm_multi30k import NODE, environment  # noqa: E402

SCRIPT = r"""
import { Catalog, EdgeMTError } from '%s/edgemt.mjs';
const [folder, inputs] = [process.argv[2], JSON.parse(process.argv[3])];
const names = ['ar-en', 'de-en', 'en-de', 'en-fr'];
const catalog = await Catalog.load(names.map((n) => ({ name: n, model: `${folder}/${n}.edgemt` })));
const out = {};
out.languages = catalog.languages;
out.targets = catalog.targets('de');
out.route = catalog.route('ar', 'de');
out.lines = catalog.translate(inputs.lines, 'de', 'fr');
out.direct = catalog.translate(inputs.english, 'en', 'de');
out.document = catalog.translate(inputs.document, 'de', 'fr', { format: 'document' });
out.html = catalog.translate(inputs.html, 'de', 'fr', { format: 'html' });
const auto = catalog.translateBatch([inputs.english[0], inputs.lines[1]], 'auto', 'de');
out.auto = auto.map((r) => [r.sourceLanguage, r.text, r.models]);
out.detect = catalog.detectLanguage(inputs.lines[1])[0].language;
try { catalog.translate('x', 'xx', 'de'); out.unknown = 'no error'; } catch (e) { out.unknown = `${e.name}: ${e.message}`; }
catalog.free();
try { catalog.languages; out.freed = 'no error'; } catch (e) { out.freed = e.message; }
console.log(JSON.stringify(out));
"""


class WasmCatalog(unittest.TestCase):
    def test_the_js_catalog_gives_the_native_clis_texts(self):
        package = environment("EDGEMT_WEB_PACKAGE")
        native = environment("EDGEMT_NATIVE_BIN")
        os.environ["EDGEMT_BIN"] = native  # model_set.py makes the set with the native tools
        from model_set import ENGLISH, GERMAN, make_model_set
        from e2e_common import run
        folder = make_model_set()
        try:
            inputs = {"lines": GERMAN, "english": ENGLISH,
                      "document": "  Ein Mann fährt Fahrrad.  Ein Hund läuft.\n\tZwei Kinder spielen.\n",
                      "html": '<p>Ein <b>Mann</b> fährt <a href="x">Fahrrad</a>.</p>'}
            script = os.path.join(folder, "catalog.mjs")
            with open(script, "w") as f:
                f.write(SCRIPT % package)
            result = subprocess.run([NODE, script, folder, json.dumps(inputs)], capture_output=True, text=True,
                                    timeout=600)
            self.assertEqual(result.returncode, 0, result.stderr)
            got = json.loads(result.stdout)

            def cli(source, target, text, *flags):
                return run([os.path.join(native, "edgemt-translate"), "--models", folder, "--from", source, "--to",
                            target, *flags], stdin=text).stdout

            self.assertEqual(got["languages"], ["ar", "de", "en", "fr"])
            self.assertEqual(got["targets"], ["en", "fr"])
            self.assertEqual(got["route"], ["ar-en", "en-de"])
            self.assertEqual(got["lines"], cli("de", "fr", "\n".join(GERMAN) + "\n").splitlines())
            self.assertEqual(got["direct"], cli("en", "de", "\n".join(ENGLISH) + "\n").splitlines())
            self.assertEqual(got["document"], cli("de", "fr", inputs["document"], "--document"))
            self.assertEqual(got["html"], cli("de", "fr", inputs["html"] + "\n", "--html").rstrip("\n"))
            self.assertEqual(got["auto"][0], ["en", got["direct"][0], ["en-de"]])
            self.assertEqual(got["auto"][1], ["de", GERMAN[1], []])
            self.assertEqual(got["detect"], "de")
            self.assertIn("EdgeMTError: text 0: no installed model translates from 'xx'", got["unknown"])
            self.assertEqual(got["freed"], "this catalog was freed")
        finally:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
