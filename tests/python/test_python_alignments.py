"""Alignments and confidence (DecodeOptions::return_alignments,
TextHypothesis's word_alignments, confidence, word_confidences) on the
trained Multi30k model (../shared), through the Python package.

- The runtime's alignment of every output id is the source position that
  the reference forward pass (converter/edgemt_convert/reference, PyTorch)
  gives, fed the same ids: the argmax of that layer's cross-attention
  averaged over its heads, </s> left out; float32, every decoder layer,
  greedy and beam 4 (near ties of float sums aside).
- Word alignments link known word translations (a small English-German
  lexicon: "dog" - "Hund", ...) on the dev set for the int8 example model:
  the share that the default layer links is printed (docs/alignments.md
  has the figures of every layer) and must stay at least 0.93.
- Batches change no alignment; confidences are exp(mean log-probability).
Skips (77) without ../shared or the package."""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from e2e_common import DEV_EN, EXAMPLE_INT8, MULTI30K, REPO, convert, need_shared  # noqa: E402
sys.path.insert(0, HERE)
import edgemt_package  # noqa: E402

edgemt = None
SENTENCES = 100  # compared with the reference (PyTorch, one sentence at a time)

# Known translations, each a single word on both sides in Multi30k.
LEXICON = {"dog": "hund", "dogs": "hunde", "man": "mann", "men": "männer", "woman": "frau", "women": "frauen",
           "girl": "mädchen", "boy": "junge", "water": "wasser", "snow": "schnee", "ball": "ball",
           "street": "straße", "two": "zwei", "three": "drei", "red": "rot", "blue": "blau", "black": "schwarz",
           "white": "weiß", "shirt": "hemd", "bike": "fahrrad", "beach": "strand", "child": "kind",
           "children": "kinder", "people": "menschen", "grass": "gras", "hat": "hut", "car": "auto",
           "city": "stadt", "camera": "kamera"}


def word(w):
    return re.sub(r"[^\w]", "", w).lower()


def lexicon_links(sources, results):
    """(links found, known pairs): a source word of the lexicon that occurs
    once, whose translation starts exactly one target word."""
    found = total = 0
    for source, result in zip(sources, results):
        src = [word(w) for w in source.split()]
        tgt = [word(w) for w in result.hypotheses[0].split()]
        pairs = set(result.word_alignments[0])
        for english, german in LEXICON.items():
            if src.count(english) != 1:
                continue
            targets = [j for j, w in enumerate(tgt) if w.startswith(german)]
            if len(targets) != 1:
                continue
            total += 1
            found += (src.index(english), targets[0]) in pairs
    return found, total


class Alignments(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        global edgemt
        edgemt = edgemt_package.import_edgemt()
        need_shared()
        with open(DEV_EN, encoding="utf-8") as f:
            cls.dev = f.read().split("\n")[:-1]
        with open(os.path.join(MULTI30K, "reference", "dev.src.ids")) as f:
            cls.source_ids = [[int(x) for x in line.split()] for line in f.read().split("\n")[:-1]]
        cls.tmp = tempfile.TemporaryDirectory()
        cls.float32 = os.path.join(cls.tmp.name, "m.f32.edgemt")
        convert(MULTI30K, cls.float32, "float32", extra=("--quiet",))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def reference_alignments(self, sources, outputs):
        """Per sentence, per decoder layer, per output id: the reference's
        aligned position (tests/e2e/reference_alignments.py)."""
        inputs, out = os.path.join(self.tmp.name, "in.json"), os.path.join(self.tmp.name, "out.json")
        with open(inputs, "w") as f:
            json.dump({"sources": sources, "outputs": outputs}, f)
        subprocess.run([sys.executable, os.path.join(REPO, "tests", "e2e", "reference_alignments.py"),
                        self.float32, inputs, out], check=True)
        with open(out) as f:
            return json.load(f)

    def check_against_reference(self, **options):
        translator = edgemt.Translator(self.float32, max_beam_size=4)
        sources = self.source_ids[:SENTENCES]  # with </s>, as the reference takes them
        unframed = [ids[:-1] for ids in sources]  # Python adds </s>
        expected = None
        layer = 0
        while expected is None or layer < len(expected[0]):
            results = translator.translate_ids_batch(unframed, return_alignments=True, alignment_layer=layer,
                                                     **options)
            outputs = [r.ids[0] for r in results]
            if expected is None:
                expected = self.reference_alignments(sources, outputs)
            same = total = 0
            for s, r in enumerate(results):
                self.assertEqual(len(r.alignments[0]), len(outputs[s]))
                for a, b in zip(r.alignments[0], expected[s][layer]):
                    same += a == b
                    total += 1
            print("layer %d %s: %d of %d alignments as the reference's" % (layer, options, same, total),
                  file=sys.stderr)
            # Averaged weights of float sums in another order: a near tie may flip.
            self.assertGreaterEqual(same / total, 0.99)
            layer += 1

    def test_greedy_alignments_are_the_reference_attention_argmax(self):
        self.check_against_reference()

    def test_beam_alignments_are_the_reference_attention_argmax(self):
        self.check_against_reference(beam_size=4)

    def test_word_alignments_link_known_translations(self):
        translator = edgemt.Translator(EXAMPLE_INT8, max_beam_size=4)
        for options in ({}, {"beam_size": 4}):
            results = translator.translate_batch(self.dev, return_alignments=True, **options)
            found, total = lexicon_links(self.dev, results)
            print("int8 %s: %d of %d known translations linked (%.3f)" % (options, found, total, found / total),
                  file=sys.stderr)
            self.assertGreater(total, 500)
            self.assertGreaterEqual(found / total, 0.93)
            for source, r in zip(self.dev, results):
                words = len(source.split())
                targets = len(r.hypotheses[0].split())
                for i, j in r.word_alignments[0]:
                    self.assertTrue(0 <= i < words and 0 <= j < targets, (source, r.hypotheses[0], i, j))

    def test_batches_change_no_alignment(self):
        sentences = self.dev[:64]
        batched = edgemt.Translator(EXAMPLE_INT8, max_batch_size=32).translate_batch(
            sentences, return_alignments=True)
        alone = edgemt.Translator(EXAMPLE_INT8, max_batch_size=1)
        for sentence, b in zip(sentences, batched):
            a = alone.translate_batch([sentence], return_alignments=True)[0]
            self.assertEqual((a.ids, a.alignments, a.word_alignments), (b.ids, b.alignments, b.word_alignments))

    def test_confidences(self):
        translator = edgemt.Translator(EXAMPLE_INT8)
        results = translator.translate_batch(self.dev[:50], return_scores=True)
        for r in results:
            log_probs = r.token_log_probs[0]
            self.assertAlmostEqual(r.confidences[0], math.exp(sum(log_probs) / len(log_probs)), places=5)
            self.assertTrue(0.0 < r.confidences[0] <= 1.0)
            self.assertEqual(len(r.word_confidences[0]), len(r.hypotheses[0].split()))
            self.assertTrue(all(0.0 < c <= 1.0 for c in r.word_confidences[0]))
        plain = translator.translate_batch(self.dev[:5])
        self.assertEqual([r.confidences for r in plain], [[0.0]] * 5)  # no scores asked for


if __name__ == "__main__":
    unittest.main()
