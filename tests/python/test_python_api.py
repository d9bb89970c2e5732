"""The Python package `edgemt` on small random models (edgemt-make-test-model,
a tiny SentencePiece model trained on the spot): the methods agree with each
other, every decoding option reaches the runtime, statuses raise the
documented exceptions, streams add up and stop when closed, threads with a
Translator each agree with one thread, and translate_iterable's memory
stays flat over 100,000 lines. Run through CTest (PYTHONPATH names the
build tree's package, EDGEMT_BIN its programs)."""
import gc
import os
import subprocess
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "robustness"))
import tiny_spm  # noqa: E402

edgemt = None


def import_edgemt():
    """The package from PYTHONPATH (the build tree); a skip when it is not there."""
    global edgemt
    try:
        import edgemt as package
    except ImportError as e:  # a build without EDGEMT_PYTHON
        raise unittest.SkipTest("the edgemt package is not importable (%s): build with -DEDGEMT_PYTHON=ON" % e)
    edgemt = package

_tmp = None
MODELS = {}
# The random model ends at once unless told not to: these options make it speak.
SPEAK = dict(min_length=4, max_length=10)
LINES = ["a man is riding a bike", "", "two women are sitting on a bench", "the quick brown fox",
         "ein mann fährt mit dem fahrrad", "the lazy dog"]


def setUpModule():
    global _tmp
    import_edgemt()
    bin_dir = os.environ.get("EDGEMT_BIN", "")
    make_model = os.path.join(bin_dir, "edgemt-make-test-model")
    if not os.path.isfile(make_model):
        raise unittest.SkipTest("EDGEMT_BIN must name a directory with edgemt-make-test-model")
    if not tiny_spm.available():
        raise unittest.SkipTest("python3-sentencepiece is not installed")
    _tmp = tempfile.TemporaryDirectory()
    spm = os.path.join(_tmp.name, "tiny.spm.model")
    with open(spm, "wb") as f:
        f.write(tiny_spm.train())
    vocab = str(tiny_spm.VOCAB_SIZE)
    small = ["--d-model", "16", "--heads", "2", "--d-ff", "32", "--layers", "1", "--max-positions", "24"]
    MODELS["text"] = os.path.join(_tmp.name, "text.edgemt")
    subprocess.run([make_model, "-o", MODELS["text"], "--int8", "--source-vocab", vocab, "--target-vocab", vocab,
                    "--tokenizer", spm] + small, check=True)
    MODELS["ids"] = os.path.join(_tmp.name, "ids.edgemt")
    subprocess.run([make_model, "-o", MODELS["ids"], "--source-vocab", "40", "--target-vocab", "48"] + small,
                   check=True)
    MODELS["corrupt"] = os.path.join(_tmp.name, "corrupt.edgemt")
    with open(MODELS["ids"], "rb") as f:
        data = f.read()
    with open(MODELS["corrupt"], "wb") as f:
        f.write(data[:len(data) // 3])


def tearDownModule():
    if _tmp is not None:
        _tmp.cleanup()


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


class PythonApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.t = edgemt.Translator(MODELS["text"], max_batch_size=4, max_beam_size=3)

    def test_methods_agree(self):
        texts = self.t.translate(LINES, **SPEAK)
        self.assertEqual(len(texts), len(LINES))
        self.assertEqual(texts[1], "")
        self.assertTrue(all(texts[i] for i in range(len(LINES)) if i != 1))
        results = self.t.translate_batch(LINES, **SPEAK)
        self.assertEqual([r.hypotheses[0] for r in results], texts)
        self.assertEqual(list(self.t.translate_iterable((line + "\n" for line in LINES), **SPEAK)), texts)
        self.assertEqual(list(self.t.translate_iterable(iter(LINES), batch_size=1, **SPEAK)), texts)
        # Ids in: the output ids of the text path (sources from SentencePiece, without </s>).
        import sentencepiece
        sp = sentencepiece.SentencePieceProcessor(model_proto=tiny_spm.train())
        ids = self.t.translate_ids([sp.encode(line) for line in LINES], **SPEAK)
        self.assertEqual([r.ids[0] for r in ids], [r.ids[0] for r in results])
        self.assertEqual([r.hypotheses[0] for r in ids], texts)

    def test_n_best_and_scores(self):
        r = self.t.translate_batch(["a man is riding a bike"], beam_size=3, num_hypotheses=3, length_penalty=0.5,
                                   **SPEAK)[0]
        self.assertEqual(len(r.hypotheses), 3)
        self.assertEqual(r.scores, sorted(r.scores, reverse=True))
        for ids, lps, eos, score in zip(r.ids, r.token_log_probs, r.ended_with_eos, r.scores):
            self.assertEqual(len(lps), len(ids) + (1 if eos else 0))
            self.assertAlmostEqual(score, sum(lps) / len(lps) ** 0.5, places=4)
        greedy = self.t.translate_batch(["a man is riding a bike"])[0]
        self.assertEqual(greedy.scores, [0.0])  # not asked for
        scored = self.t.translate_batch(["a man is riding a bike"], return_scores=True)[0]
        self.assertEqual(scored.ids, greedy.ids)
        self.assertLess(scored.scores[0], 0.0)

    def test_options_reach_the_runtime(self):
        with self.assertRaisesRegex(ValueError, "max_beam_size 3"):
            self.t.translate(["a"], beam_size=4)
        with self.assertRaisesRegex(ValueError, "num_hypotheses"):
            self.t.translate(["a"], beam_size=2, num_hypotheses=3)
        with self.assertRaisesRegex(ValueError, "sampling_topp"):
            self.t.translate(["a"], sampling_topk=0, sampling_topp=1.5)
        with self.assertRaisesRegex(TypeError, "unknown decoding option: beam"):
            self.t.translate(["a"], beam=2)
        long = self.t.translate_batch(["a man is riding " * 20], max_length=3)[0]
        self.assertLessEqual(len(long.ids[0]), 3)
        self.assertIn("more than the limit of 24", long.warning)
        at_least = self.t.translate_batch(["a man"], min_length=5, max_length=6)[0]
        self.assertGreaterEqual(len(at_least.ids[0]), 5)
        a = self.t.translate(LINES, sampling_topk=0, sampling_seed=7, **SPEAK)
        self.assertEqual(a, self.t.translate(LINES, sampling_topk=0, sampling_seed=7, **SPEAK))
        self.assertNotEqual(a, self.t.translate(LINES, **SPEAK))

    def test_exceptions_per_status(self):
        with self.assertRaises(OSError):
            edgemt.Translator("/nonexistent/model.edgemt")
        with self.assertRaises(OSError):
            edgemt.Model("/nonexistent/model.edgemt")
        with self.assertRaisesRegex(RuntimeError, "invalid model|corrupt|truncated|too small"):
            edgemt.Translator(MODELS["corrupt"])
        with self.assertRaisesRegex(ValueError, "max_batch_size"):
            edgemt.Translator(MODELS["text"], max_batch_size=0)
        with self.assertRaisesRegex(ValueError, "long_input"):
            edgemt.Translator(MODELS["text"], long_input="drop")
        refusing = edgemt.Translator(MODELS["text"], long_input="error")
        with self.assertRaisesRegex(ValueError, "source 1: the source has"):
            refusing.translate(["a man", "a man is riding " * 20])
        ids_only = edgemt.Translator(MODELS["ids"])
        self.assertFalse(ids_only.has_tokenizer)
        with self.assertRaisesRegex(OSError, "no tokenizer"):
            ids_only.translate(["a man"])
        with self.assertRaisesRegex(ValueError, "outside the source vocabulary"):
            ids_only.translate_ids([[5, 99]])
        with self.assertRaises(TypeError):
            self.t.translate([b"bytes"])

    def test_stream_adds_up_and_stops_when_closed(self):
        several = None
        for line in LINES:
            pieces = list(self.t.translate_stream(line, **SPEAK))
            self.assertEqual("".join(pieces), self.t.translate([line], **SPEAK)[0])
            if len(pieces) > 1:
                several = line
        self.assertIsNotNone(several, "no line gives more than one piece: the test model has changed")
        # Closing after the first piece stops decoding; the translator still works.
        stream = self.t.translate_stream(several, **SPEAK)
        first = next(stream)
        stream.close()
        self.assertTrue(self.t.translate([several], **SPEAK)[0].startswith(first))
        with self.assertRaisesRegex(TypeError, "beam_size"):
            list(self.t.translate_stream("a man", beam_size=2))

    def test_threads_with_a_translator_each(self):
        expected = self.t.translate(LINES * 5, **SPEAK)
        outputs = [None, None]

        model = edgemt.Model(MODELS["text"])  # shared: one packed copy of the weights

        def work(i):
            t = edgemt.Translator(model, max_batch_size=4)
            outputs[i] = t.translate(LINES * 5, **SPEAK)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        self.assertEqual(outputs, [expected, expected])

    def test_translate_iterable_memory_stays_flat(self):
        # 100,000 lines, read lazily: RSS after 10,000 and after 100,000 differ by
        # less than 4 MB. Holding the inputs or outputs would take ~10 MB and more.
        lines = ("a man is riding a bike number %d\n" % i for i in range(100000))
        t = edgemt.Translator(MODELS["text"], max_batch_size=32)
        count = 0
        at_10k = None
        for translation in t.translate_iterable(lines, batch_size=32, max_length=4):
            count += 1
            if count == 10000:
                gc.collect()
                at_10k = rss_kb()
        gc.collect()
        at_100k = rss_kb()
        self.assertEqual(count, 100000)
        print("RSS after 10,000 lines: %d kB; after 100,000: %d kB" % (at_10k, at_100k))
        self.assertLess(at_100k - at_10k, 4096)

    def test_help_shows_the_api(self):
        self.assertIn("translate_iterable", edgemt.Translator.__dict__)
        self.assertIn("bounded", edgemt.Translator.translate_iterable.__doc__)
        self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(edgemt.__file__), "__init__.pyi")))


if __name__ == "__main__":
    unittest.main()
