"""Model sets in the CLI: --models DIR --from --to picks a model or two
through English, and gives exactly the text of the two hops by hand (lines,
documents, HTML); --from auto detects each line's language; a memory
budget closes and reopens models without changing a translation; --info
and the converter's --amend show and set a file's languages. The C API
(edgemt_catalog_*) and Python's edgemt.Catalog give the CLI's texts."""
import os
import subprocess
import sys
import unittest

from e2e_common import CONVERT, bin_dir, run, tool
from model_set import ARABIC, ENGLISH, GERMAN, ModelSetCase


def translate(args, text):
    return run([tool("edgemt-translate"), *args], stdin=text)


class ModelSets(ModelSetCase):
    def model(self, pair):
        return ["--model", os.path.join(self.folder, pair + ".edgemt")]

    def by_hand(self, pairs, text, extra=()):
        for pair in pairs:
            text = translate([*self.model(pair), *extra], text).stdout
        return text

    def test_info_lists_every_pair_and_the_pivots(self):
        out = translate(["--models", self.folder, "--info"], "").stdout
        for pair in ("ar -> en", "de -> en", "en -> de", "en -> fr"):
            self.assertIn(pair, out)
        self.assertIn("de-fr(via en)", out)
        self.assertIn("ar-de(via en)", out)
        self.assertIn(" en-de ", out + " ")
        single = translate([*self.model("ar-en"), "--info"], "").stdout
        self.assertIn("languages: ar -> en", single)

    def test_a_direct_pair_is_its_model(self):
        text = "".join(line + "\n" for line in ENGLISH)
        self.assertEqual(translate(["--models", self.folder, "--from", "en", "--to", "de"], text).stdout,
                         translate(self.model("en-de"), text).stdout)

    def test_a_pivot_is_the_two_hops_by_hand(self):
        for source, target, hops, lines in (("de", "fr", ("de-en", "en-fr"), GERMAN),
                                            ("ar", "de", ("ar-en", "en-de"), ARABIC)):
            text = "".join(line + "\n" for line in lines)
            through = translate(["--models", self.folder, "--from", source, "--to", target], text).stdout
            self.assertEqual(through, self.by_hand(hops, text), (source, target))
            self.assertEqual(len(through.splitlines()), len(lines))
        # The real pivot: the transliteration's English is what Multi30k translates.
        self.assertEqual(self.by_hand(("ar-en",), ARABIC[0] + "\n"), "a t z m o n\n")

    def test_documents_and_html_keep_their_layout_through_both_hops(self):
        document = "  Ein Mann fährt Fahrrad.  Ein Hund läuft.\n\tZwei Kinder spielen.\n\nEin Auto.\n"
        page = '<p>Ein <b>Mann</b> fährt <a href="x">Fahrrad</a>.</p>\n<script>keep();</script>\n'
        for flag, text in (("--document", document), ("--html", page)):
            through = translate(["--models", self.folder, "--from", "de", "--to", "fr", flag], text).stdout
            self.assertEqual(through, self.by_hand(("de-en", "en-fr"), text, (flag,)), flag)
            self.assertEqual(through.count("\n"), text.count("\n"), flag)
        html = translate(["--models", self.folder, "--from", "de", "--to", "fr", "--html"], page).stdout
        self.assertIn("<script>keep();</script>", html)
        self.assertIn('<a href="x">', html)

    def test_auto_detects_each_lines_language(self):
        lines = [ENGLISH[0], GERMAN[0], "Bonjour à tous, comment allez-vous ce matin?", "", ENGLISH[2]]
        result = translate(["--models", self.folder, "--from", "auto", "--to", "de"],
                           "".join(line + "\n" for line in lines))
        out = result.stdout.split("\n")[:-1]
        self.assertEqual(len(out), len(lines))  # one line per line, whatever happens to each
        self.assertEqual(out[0], translate(self.model("en-de"), ENGLISH[0] + "\n").stdout.strip())
        self.assertEqual(out[1], GERMAN[0])  # German to German: itself
        self.assertEqual(out[2], "")
        self.assertIn("line 3: no installed model translates from 'fr'", result.stderr)
        self.assertEqual(out[3], "")
        self.assertEqual(out[4], translate(self.model("en-de"), ENGLISH[2] + "\n").stdout.strip())

    def test_a_small_budget_closes_and_reopens_models_with_the_same_text(self):
        text = "".join(line + "\n" for line in ARABIC * 3)
        free = translate(["--models", self.folder, "--from", "ar", "--to", "de", "--memory"], text)
        tight = translate(["--models", self.folder, "--from", "ar", "--to", "de", "--memory",
                           "--memory-budget-mb", "1", "--batch-size", "2"], text)
        self.assertEqual(tight.stdout, free.stdout)
        self.assertIn("0 closed for the budget", free.stderr)
        closed = int(tight.stderr.rsplit("opened, ", 1)[1].split(" closed")[0])
        opened = int(tight.stderr.rsplit("; ", 1)[1].split(" opened")[0])
        self.assertGreaterEqual(closed, 1, tight.stderr)
        self.assertEqual(opened, closed + 1, tight.stderr)  # only the last stays open

    def test_c_gives_the_clis_texts(self):
        lines = "".join(line + "\n" for line in GERMAN)
        document = "  Ein Mann fährt Fahrrad.  Ein Hund läuft.\n\tZwei Kinder spielen.\n"
        page = '<p>Ein <b>Mann</b> fährt <a href="x">Fahrrad</a>.</p>\n'
        c_test = tool("edgemt-catalog-c-test")
        for form, text, flag in (("text", lines, ()), ("document", document, ("--document",)),
                                 ("html", page, ("--html",))):
            expected = translate(["--models", self.folder, "--from", "de", "--to", "fr", *flag], text).stdout
            got = run([c_test, self.folder, "de", "fr", form], stdin=text)
            self.assertEqual(got.stdout, expected, form)
            self.assertIn("de-en.edgemt", got.stderr)
            self.assertIn("en-fr.edgemt", got.stderr)
        self.assertEqual(run([c_test, "--errors", self.folder]).stdout, "errors ok\n")

    def test_python_gives_the_clis_texts(self):
        lines = "".join(line + "\n" for line in GERMAN)
        document = "  Ein Mann fährt Fahrrad.  Ein Hund läuft.\n\tZwei Kinder spielen.\n"
        script = (
            "import edgemt, json, sys\n"
            "c = edgemt.Catalog(sys.argv[1])\n"
            "r = c.translate_batch(sys.argv[2].split('\\n'), 'de', 'fr')\n"
            "auto = c.translate_batch([sys.argv[4]], 'auto', 'fr')[0]\n"
            "print(json.dumps({'texts': [x.text for x in r], 'models': r[0].models, 'doc': c.translate(sys.argv[3],"
            " 'de', 'fr', format='document'), 'langs': c.languages(), 'route': c.route('ar', 'de'),"
            " 'auto': [auto.source_language, auto.text], 'detect': edgemt.detect_language(sys.argv[4])[0][0],"
            " 'unknown': c.translate_batch(['x'], 'xx', 'fr')[0].error,"
            " 'html': c.translate(sys.argv[5], 'de', 'fr', format='html')}))\n")
        env = dict(os.environ, PYTHONPATH=os.path.join(bin_dir(), "..", "python"))
        page = '<p>Ein <b>Mann</b> fährt <a href="x">Fahrrad</a>.</p>\n'
        result = subprocess.run([sys.executable, "-c", script, self.folder, "\n".join(GERMAN), document, GERMAN[1],
                                 page], capture_output=True, text=True, env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        import json
        got = json.loads(result.stdout)
        self.assertEqual(got["texts"], translate(["--models", self.folder, "--from", "de", "--to", "fr"],
                                                 lines).stdout.splitlines())
        self.assertEqual([os.path.basename(m) for m in got["models"]], ["de-en.edgemt", "en-fr.edgemt"])
        self.assertEqual(got["doc"], translate(["--models", self.folder, "--from", "de", "--to", "fr", "--document"],
                                               document).stdout)
        self.assertEqual(got["langs"], ["ar", "de", "en", "fr"])
        self.assertEqual([os.path.basename(m) for m in got["route"]], ["ar-en.edgemt", "en-de.edgemt"])
        self.assertEqual(got["auto"][0], "de")
        self.assertEqual(got["auto"][1], got["texts"][1])
        self.assertEqual(got["detect"], "de")
        self.assertIn("no installed model translates from 'xx'", got["unknown"])
        self.assertEqual(got["html"], translate(["--models", self.folder, "--from", "de", "--to", "fr", "--html"],
                                                page).stdout)

    def test_usage_errors_name_what_is_missing(self):
        for args, message in ((["--models", self.folder, "--from", "de"], "--models needs --from LANG and --to LANG"),
                              (["--models", self.folder, "--from", "de", "--to", "fr", "--n-best", "2"],
                               "each model's own decoding"),
                              (["--models", self.folder, "--model", "x", "--from", "de", "--to", "fr"],
                               "one of --model FILE or --models DIR"),
                              (["--models", self.folder, "--from", "fr", "--to", "de"],
                               "no installed model translates from 'fr'"),
                              (["--models", self.folder, "--from", "en", "--to", "ar"],
                               "no installed model translates to 'ar'")):
            result = run([tool("edgemt-translate"), *args], stdin="x\n", check=False)
            self.assertNotEqual(result.returncode, 0, args)
            self.assertIn(message, result.stderr, args)

    def test_a_file_without_languages_is_left_out_and_amend_sets_them(self):
        folder = os.path.join(self.folder, "amend")
        os.makedirs(folder, exist_ok=True)
        bare = os.path.join(folder, "bare.edgemt")
        run([tool("edgemt-make-test-model"), "-o", bare])
        result = run([tool("edgemt-translate"), "--models", folder, "--info"], check=False)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("no model file with a language pair", result.stderr)
        labelled = os.path.join(folder, "labelled.edgemt")
        out = run([sys.executable, CONVERT, bare, "--out", labelled, "--source-language", "EN",
                   "--target-language", "pt-BR"]).stdout
        self.assertIn("source language en (was none), target language pt-br (was none)", out)
        info = translate(["--models", folder, "--info"], "").stdout
        self.assertIn("labelled.edgemt: en -> pt-br", info)
        self.assertIn("left out: bare.edgemt: the file names no language pair", info)
        bad = run([sys.executable, CONVERT, bare, "--out", labelled, "--source-language", "e n"], check=False)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("is not a language code", bad.stderr)


if __name__ == "__main__":
    unittest.main()
