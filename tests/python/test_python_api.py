"""The Python package `edgemt` on small random models (edgemt-make-test-model,
with a tiny SentencePiece model trained on the spot): the methods agree with
each other, every decoding and translator option reaches the runtime,
statuses raise the documented exceptions, streams add up and stop when
closed, the GIL is released, threads with a Translator each agree with one
thread, and translate_iterable reads lazily with flat memory over 100,000
lines. Run through CTest (PYTHONPATH names the build tree's package,
EDGEMT_BIN its programs)."""
import gc
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "robustness"))
import tiny_spm  # noqa: E402
sys.path.insert(0, HERE)
import edgemt_package  # noqa: E402

edgemt = None
_tmp = None
MODELS = {}
# The random models end at once unless told not to: these options make them speak.
SPEAK = dict(min_length=4, max_length=10)
LINES = ["a man is riding a bike", "", "two women are sitting on a bench", "the quick brown fox",
         "ein mann fährt mit dem fahrrad", "the lazy dog"]


def import_edgemt():
    global edgemt
    edgemt = edgemt_package.import_edgemt()


def setUpModule():
    global _tmp
    import_edgemt()
    make_model = os.path.join(os.environ.get("EDGEMT_BIN", ""), "edgemt-make-test-model")
    if not os.path.isfile(make_model):
        raise unittest.SkipTest("EDGEMT_BIN must name a directory with edgemt-make-test-model")
    if not tiny_spm.available():
        raise unittest.SkipTest("python3-sentencepiece is not installed")
    _tmp = tempfile.TemporaryDirectory()
    spm = os.path.join(_tmp.name, "tiny.spm.model")
    with open(spm, "wb") as f:
        f.write(tiny_spm.train())
    vocab = ["--source-vocab", str(tiny_spm.VOCAB_SIZE), "--target-vocab", str(tiny_spm.VOCAB_SIZE)]

    def make(name, *args):
        MODELS[name] = os.path.join(_tmp.name, name + ".edgemt")
        subprocess.run([make_model, "-o", MODELS[name]] + list(args), check=True)

    small = ["--d-model", "16", "--heads", "2", "--d-ff", "32", "--layers", "1", "--max-positions", "24"]
    make("text", "--int8", "--tokenizer", spm, *vocab, *small)
    make("ids", "--source-vocab", "40", "--target-vocab", "48", *small)
    # Big enough that 500 decoder steps take a measurable time (about 0.8 s here).
    make("slow", "--int8", "--tokenizer", spm, *vocab, "--d-model", "512", "--heads", "8", "--d-ff", "2048",
         "--layers", "4", "--max-positions", "512")
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
        self.assertEqual(self.t.translate([]), [])
        results = self.t.translate_batch(LINES, **SPEAK)
        self.assertEqual([r.hypotheses[0] for r in results], texts)
        self.assertEqual(list(self.t.translate_iterable((line + "\n" for line in LINES), **SPEAK)), texts)
        self.assertEqual(list(self.t.translate_iterable(iter(LINES), batch_size=1, **SPEAK)), texts)
        # Ids in (from SentencePiece, without </s>), ids out: those of the text path.
        import sentencepiece
        sp = sentencepiece.SentencePieceProcessor(model_proto=tiny_spm.train())
        sources = [sp.encode(line) for line in LINES]
        self.assertEqual(self.t.translate_ids(sources, **SPEAK), [r.ids[0] for r in results])
        by_ids = self.t.translate_ids_batch(sources, **SPEAK)
        self.assertEqual([r.hypotheses[0] for r in by_ids], texts)
        # One by one as in a batch (max_batch_size 4 splits the six).
        self.assertEqual([self.t.translate([line], **SPEAK)[0] for line in LINES], texts)

    def test_documents(self):
        alone = self.t.translate(["A man rides a bike.", "Two dogs run!"], **SPEAK)
        document = "\tA man rides a bike.  Two dogs run! \r\n\n\u3000A man rides a bike.\n"
        self.assertEqual(self.t.translate_document(document, **SPEAK),
                         "\t%s  %s \r\n\n\u3000%s\n" % (alone[0], alone[1], alone[0]))
        self.assertEqual(self.t.translate_document("", **SPEAK), "")
        self.assertEqual(self.t.translate_document(" \n\t\n", **SPEAK), " \n\t\n")
        with self.assertRaises(TypeError):
            self.t.translate_document(b"bytes")
        with self.assertRaises(TypeError):
            self.t.translate_document("a", target_prefix=["x"])
        # Sentence by sentence: the same text.
        pieces = list(self.t.translate_document_stream(document, **SPEAK))
        self.assertEqual("".join(pieces), self.t.translate_document(document, **SPEAK))
        self.assertGreaterEqual(len(pieces), 3)
        # HTML: block text translated, markup and script as they were.
        page = '<ul><li>A man rides a bike.</li><li data-x="1">Two dogs run!<!-- c --></li></ul><script>x<y</script>'
        self.assertEqual(self.t.translate_document(page, html=True, **SPEAK),
                         '<ul><li>%s</li><li data-x="1">%s<!-- c --></li></ul><script>x<y</script>' % tuple(alone))

    def test_paragraphs_and_single_strings(self):
        alone = self.t.translate(["A man rides a bike.", "Two dogs run!"], **SPEAK)
        paragraph = "\tA man rides a bike.  Two dogs run! "
        expected = "\t%s  %s " % tuple(alone)
        # A paragraph gives its sentences, as translate_document does; a str is one text.
        self.assertEqual(self.t.translate([paragraph], **SPEAK), [expected])
        self.assertEqual(self.t.translate(paragraph, **SPEAK), expected)
        self.assertEqual(self.t.translate_document(paragraph, **SPEAK), expected)
        one = self.t.translate_batch(paragraph, **SPEAK)
        self.assertIsInstance(one, edgemt.TranslationResult)
        self.assertEqual(one.hypotheses[0], expected)
        self.assertEqual(list(self.t.translate_iterable([paragraph], **SPEAK)), [expected])
        self.assertEqual("".join(self.t.translate_stream(paragraph, **SPEAK)), expected)
        # split_sentences=False: one sentence, as given.
        whole = self.t.translate(paragraph, split_sentences=False, **SPEAK)
        self.assertNotEqual(whole, expected)
        self.assertEqual(self.t.translate_batch([paragraph], split_sentences=False, **SPEAK)[0].hypotheses[0], whole)
        self.assertEqual("".join(self.t.translate_stream(paragraph, split_sentences=False, **SPEAK)), whole)
        # n-best takes the paragraph as one sentence, and says so.
        listed = self.t.translate_batch(paragraph, beam_size=2, num_hypotheses=2)
        self.assertEqual(len(listed.hypotheses), 2)
        self.assertIn("holds 2 sentences, translated as one", listed.warning)
        # Never a str as a sequence of characters.
        for call in (lambda: list(self.t.translate_iterable("A dog runs.")),
                     lambda: self.t.score_batch("A dog.", "Ein Hund.")):
            with self.assertRaises(TypeError):
                call()

    def test_translation_caches(self):
        # The document cache is on by default and gives exactly the same text again.
        t = edgemt.Translator(MODELS["text"])
        document = "A man rides a bike. Two dogs run!\n\nThe lazy dog.\n"
        first = t.translate_document(document, **SPEAK)
        stats = t.cache_stats()
        self.assertEqual(stats["texts"]["capacity_bytes"], 0)  # off for translate()
        self.assertEqual(stats["documents"]["capacity_bytes"], 32 << 20)
        self.assertEqual((stats["documents"]["misses"], stats["documents"]["hits"]), (3, 0))
        self.assertEqual(t.translate_document(document, **SPEAK), first)
        self.assertEqual(t.cache_stats()["documents"]["hits"], 3)
        # Other options are other keys.
        t.translate_document(document, min_length=5, max_length=10)
        self.assertEqual(t.cache_stats()["documents"]["misses"], 6)
        # translate() with its own cache: the same results, found the second time.
        cached = edgemt.Translator(MODELS["text"], max_beam_size=2, cache_mb=1, document_cache_mb=0)
        expected = self.t.translate_batch(LINES, beam_size=2, num_hypotheses=2, **SPEAK)
        for _ in range(2):
            got = cached.translate_batch(LINES, beam_size=2, num_hypotheses=2, **SPEAK)
            self.assertEqual([(r.ids, r.scores, r.token_log_probs) for r in got],
                             [(r.ids, r.scores, r.token_log_probs) for r in expected])
        texts = cached.cache_stats()["texts"]
        blank = sum(1 for line in LINES if not line.strip())
        self.assertEqual((texts["misses"], texts["hits"]), (len(LINES) - blank, len(LINES) - blank))
        self.assertLessEqual(texts["bytes"], texts["capacity_bytes"])
        self.assertEqual(cached.cache_stats()["documents"]["capacity_bytes"], 0)
        with self.assertRaises(ValueError):
            edgemt.Translator(MODELS["text"], cache_mb=-1)

    def test_n_best_and_scores(self):
        r = self.t.translate_batch(["a man is riding a bike"], beam_size=3, num_hypotheses=3, length_penalty=0.5,
                                   **SPEAK)[0]
        self.assertEqual(len(r.hypotheses), 3)
        self.assertEqual([len(x) for x in (r.scores, r.ids, r.token_log_probs, r.ended_with_eos)], [3, 3, 3, 3])
        self.assertEqual(len(set(map(tuple, r.ids))), 3, "the n-best hypotheses are distinct")
        self.assertEqual(r.scores, sorted(r.scores, reverse=True))
        for ids, log_probs, eos, score in zip(r.ids, r.token_log_probs, r.ended_with_eos, r.scores):
            self.assertEqual(len(log_probs), len(ids) + (1 if eos else 0))
            self.assertTrue(all(lp <= 0 for lp in log_probs))
            self.assertAlmostEqual(score, sum(log_probs) / len(log_probs) ** 0.5, places=4)
        self.assertEqual(r.warning, "")
        # Beam 3's best is at least greedy's under the same scoring (length_penalty 0: plain sums).
        beam = self.t.translate_batch(["a man is riding a bike"], beam_size=3, length_penalty=0, **SPEAK)[0]
        greedy = self.t.translate_batch(["a man is riding a bike"], return_scores=True, length_penalty=0, **SPEAK)[0]
        self.assertGreaterEqual(beam.scores[0], greedy.scores[0] - 1e-5)
        # Greedy scores only when asked; the same ids either way.
        plain = self.t.translate_batch(["a man is riding a bike"], **SPEAK)[0]
        self.assertEqual((plain.scores, plain.token_log_probs), ([0.0], [[]]))
        self.assertEqual(greedy.ids, plain.ids)
        self.assertLess(greedy.scores[0], 0.0)
        self.assertIn("hypotheses=", repr(r))

    def test_decoding_options_reach_the_runtime(self):
        # Refused by the runtime's checks, with its messages.
        refused = [(dict(beam_size=4), "beam_size 4 is outside 1..the translator's max_beam_size 3"),
                   (dict(beam_size=2, num_hypotheses=3), "num_hypotheses 3 is outside 1..beam_size"),
                   (dict(length_penalty=math.nan), "length_penalty must be a finite number"),
                   (dict(min_length=-1), "min_length must not be negative"),
                   (dict(max_length=-1), "max_length -1 is outside"),
                   (dict(max_length=25), "max_length 25 is outside the translator's max_target_length 24"),
                   (dict(sampling_topk=-1), "sampling_topk must not be negative"),
                   (dict(sampling_topk=0, sampling_topp=1.5), "sampling_topp must be in"),
                   (dict(sampling_topk=0, sampling_temperature=0.0), "sampling_temperature must be a positive"),
                   (dict(sampling_topk=0, beam_size=2), "sampling .* needs beam_size 1")]
        for options, message in refused:
            with self.subTest(options=options):
                with self.assertRaisesRegex(ValueError, message):
                    self.t.translate(["a man"], **options)
        with self.assertRaisesRegex(TypeError, "unknown decoding option: beam"):
            self.t.translate(["a"], beam=2)
        with self.assertRaisesRegex(TypeError, "beam_size=2.5: wrong type float"):
            self.t.translate(["a"], beam_size=2.5)
        # Accepted ones change the output as documented.
        self.assertLessEqual(len(self.t.translate_ids_batch([[5, 6]], max_length=3)[0].ids[0]), 3)
        self.assertGreaterEqual(len(self.t.translate_batch(["a man"], min_length=5, max_length=6)[0].ids[0]), 5)
        lp0 = self.t.translate_batch(["a man is riding"], beam_size=3, length_penalty=0.0, **SPEAK)[0]
        lp2 = self.t.translate_batch(["a man is riding"], beam_size=3, length_penalty=2.0, **SPEAK)[0]
        self.assertAlmostEqual(lp0.scores[0], sum(lp0.token_log_probs[0]), places=4)
        self.assertAlmostEqual(lp2.scores[0], sum(lp2.token_log_probs[0]) / len(lp2.token_log_probs[0]) ** 2,
                               places=4)
        greedy = self.t.translate(LINES, **SPEAK)
        sampled = self.t.translate(LINES, sampling_topk=0, sampling_seed=7, **SPEAK)
        self.assertEqual(sampled, self.t.translate(LINES, sampling_topk=0, sampling_seed=7, **SPEAK))
        self.assertNotEqual(sampled, greedy)
        self.assertNotEqual(sampled, self.t.translate(LINES, sampling_topk=0, sampling_seed=8, **SPEAK))
        # A tiny top-p keeps only the most likely id: greedy again, whatever the seed.
        self.assertEqual(self.t.translate(LINES, sampling_topk=0, sampling_topp=1e-6, sampling_seed=3, **SPEAK),
                         greedy)
        # A near-zero temperature sharpens sampling to the most likely id; a high one does not.
        self.assertEqual(self.t.translate(LINES, sampling_topk=0, sampling_temperature=1e-4, **SPEAK), greedy)
        self.assertNotEqual(self.t.translate(LINES, sampling_topk=0, sampling_temperature=10.0, **SPEAK), greedy)

    def test_ctranslate2_decoding_options(self):
        # A target prefix: the translation starts with it, its ids at log-probability 0.
        greedy = self.t.translate_batch(["a man is riding a bike"], return_scores=True, **SPEAK)[0]
        forced = greedy.ids[0][:2][::-1]  # not what greedy chooses first
        by_ids = self.t.translate_ids_batch([[5, 6, 7]], return_scores=True, target_prefix=[forced], **SPEAK)[0]
        self.assertEqual(by_ids.ids[0][:2], forced)
        self.assertEqual(by_ids.token_log_probs[0][:2], [0.0, 0.0])
        prefix_text = "a b"
        for beam in (1, 3):
            got = self.t.translate(["a man is riding a bike", "the lazy dog"], target_prefix=[prefix_text, None],
                                   beam_size=beam, **SPEAK)
            self.assertTrue(got[0].startswith(prefix_text), (got[0], prefix_text))
            self.assertEqual(got[1], self.t.translate(["the lazy dog"], beam_size=beam, **SPEAK)[0])
        with self.assertRaisesRegex(ValueError, "target_prefix has 1 entries for 2 sources"):
            self.t.translate(["a", "b"], target_prefix=["x"])
        # Alternatives: num_hypotheses (more than the beam) distinct first ids, each completed.
        alternatives = self.t.translate_batch(["a man is riding a bike"], num_hypotheses=4, beam_size=2,
                                              return_alternatives=True, **SPEAK)[0]
        self.assertEqual(len(alternatives.ids), 4)
        self.assertEqual(len({ids[0] for ids in alternatives.ids}), 4)
        firsts = [log_probs[0] for log_probs in alternatives.token_log_probs]
        self.assertEqual(firsts, sorted(firsts, reverse=True))
        # A call's sources are split into batches that fit (4 // 3: one at a time); 5 cannot fit.
        self.assertEqual(len(self.t.translate(["a", "b"], num_hypotheses=3, return_alternatives=True)), 2)
        with self.assertRaisesRegex(ValueError, "num_hypotheses 5 is outside 1..the translator's max_batch_size 4"):
            self.t.translate(["a"], num_hypotheses=5, return_alternatives=True)
        # Processors: no id twice with no_repeat_ngram_size 1; a refused penalty.
        for ids in self.t.translate_ids([[5, 6, 7], [8, 9]], no_repeat_ngram_size=1, **SPEAK):
            self.assertEqual(len(ids), len(set(ids)))
        with self.assertRaisesRegex(ValueError, "repetition_penalty must be a positive"):
            self.t.translate(["a"], repetition_penalty=0.0)
        self.assertEqual(len(self.t.translate(["a man"], repetition_penalty=1.5, disable_unk=True, **SPEAK)), 1)
        # Scoring greedy's own output gives greedy's log-probabilities (</s> excluded before min_length
        # there, so scoring's are never higher), </s>'s last, and their sum.
        scored = self.t.score_ids_batch([[5, 6, 7]], [by_ids.ids[0]])[0]
        self.assertEqual(scored.ids[0], by_ids.ids[0])
        self.assertEqual(len(scored.token_log_probs[0]), len(by_ids.ids[0]) + 1)
        self.assertAlmostEqual(scored.scores[0], sum(scored.token_log_probs[0]), places=4)
        texts = self.t.score_batch(["a man is riding a bike"], [greedy.hypotheses[0]])[0]
        self.assertEqual(texts.hypotheses[0], greedy.hypotheses[0])
        self.assertTrue(all(lp <= 0 for lp in texts.token_log_probs[0]))
        with self.assertRaisesRegex(ValueError, "2 sources and 1 targets"):
            self.t.score_batch(["a", "b"], ["x"])

    def test_translator_options_reach_the_runtime(self):
        for options, message in [(dict(max_batch_size=0), "max_batch_size must be"),
                                 (dict(max_beam_size=1000), "max_beam_size must be"),
                                 (dict(threads=-1), "num_threads must be"),
                                 (dict(max_source_length=25), "max_source_length must be 1..24"),
                                 (dict(max_target_length=25), "max_target_length must be 1..24"),
                                 (dict(long_input="drop"), "long_input is 'truncate', 'error' or 'split'"),
                                 (dict(max_batch_tokens=-1), "max_batch_tokens must not be negative")]:
            with self.subTest(options=options):
                with self.assertRaisesRegex(ValueError, message):
                    edgemt.Translator(MODELS["text"], **options)
        t = edgemt.Translator(MODELS["text"], threads=2, max_batch_size=5, max_beam_size=2, max_source_length=8,
                              max_target_length=6)
        self.assertEqual((t.threads, t.max_batch_size, t.max_beam_size, t.max_source_length, t.max_target_length,
                          t.max_batch_tokens), (2, 5, 2, 8, 6, 0))
        # Batches bounded by tokens (one source each at 1) translate as any batches do.
        bounded = edgemt.Translator(MODELS["text"], max_batch_size=4, max_batch_tokens=1)
        self.assertEqual(bounded.max_batch_tokens, 1)
        self.assertEqual(bounded.translate(LINES, **SPEAK), self.t.translate(LINES, **SPEAK))
        truncated = t.translate_batch(["a man is riding a bike down the street"], min_length=20)[0]
        self.assertRegex(truncated.warning, "more than the limit of 8")
        self.assertEqual(len(truncated.ids[0]), 6)  # max_target_length bounds min_length too
        refusing = edgemt.Translator(MODELS["text"], long_input="error", max_source_length=8)
        with self.assertRaisesRegex(ValueError, "source 1: the source has"):
            refusing.translate(["a man", "a man is riding a bike down the street"])
        with tempfile.TemporaryDirectory() as cache:
            cached = edgemt.Translator(MODELS["text"], packed_cache_dir=cache)
            self.assertEqual(len(os.listdir(cache)), 1, "the packed weights' cache file")
            self.assertEqual(cached.translate(LINES, **SPEAK), self.t.translate(LINES, **SPEAK))
        self.assertEqual(edgemt.Translator(edgemt.Model(MODELS["text"])).translate(["a man"], **SPEAK),
                         self.t.translate(["a man"], **SPEAK))

    def test_exceptions_per_status(self):
        with self.assertRaisesRegex(OSError, "cannot open /nonexistent/model.edgemt"):
            edgemt.Translator("/nonexistent/model.edgemt")
        with self.assertRaises(OSError):
            edgemt.Model("/nonexistent/model.edgemt")
        with self.assertRaisesRegex(RuntimeError, "truncated|too small|invalid|corrupt"):
            edgemt.Translator(MODELS["corrupt"])
        with tempfile.NamedTemporaryFile(suffix=".edgemt") as text_file:
            text_file.write(b"not a model at all, just some text that is long enough " * 4)
            text_file.flush()
            with self.assertRaises(RuntimeError) as raised:
                edgemt.Model(text_file.name)
            self.assertNotIsInstance(raised.exception, (OSError, ValueError))
        ids_only = edgemt.Translator(MODELS["ids"])
        self.assertFalse(ids_only.has_tokenizer)
        self.assertTrue(self.t.has_tokenizer)
        with self.assertRaisesRegex(OSError, "no tokenizer"):  # kNotFound
            ids_only.translate(["a man"])
        self.assertTrue(4 <= len(ids_only.translate_ids([[5, 6, 7]], **SPEAK)[0]) <= 10)
        self.assertEqual(ids_only.translate_ids_batch([[5, 6, 7]], **SPEAK)[0].hypotheses, [""])
        with self.assertRaisesRegex(ValueError, "source 1: id 99 .*outside the source vocabulary"):
            ids_only.translate_ids([[5], [5, 99]])
        with self.assertRaises(TypeError):
            self.t.translate([b"bytes"])
        with self.assertRaises(TypeError):
            self.t.translate_ids([["a"]])

    def test_stream_adds_up(self):
        several = 0
        for line in LINES:
            for options in (SPEAK, dict(SPEAK, sampling_topk=0, sampling_seed=5)):
                pieces = list(self.t.translate_stream(line, **options))
                self.assertEqual("".join(pieces), self.t.translate([line], **options)[0])
                several += len(pieces) > 1
        self.assertGreater(several, 0, "no line gives more than one piece: the test model has changed")
        with self.assertRaisesRegex(ValueError, "streaming needs beam_size 1"):
            list(self.t.translate_stream("a man", beam_size=2))
        refusing = edgemt.Translator(MODELS["text"], long_input="error", max_source_length=4)
        with self.assertRaisesRegex(ValueError, "the source has"):
            list(refusing.translate_stream("a man is riding a bike"))
        with self.assertRaises(TypeError):
            self.t.translate_stream(b"a man")
        # A stream left open does not block the translator's other calls from the same
        # thread (its worker never waits for the consumer), and still adds up afterwards.
        expected = self.t.translate(["the lazy dog", "two women are sitting on a bench"], **SPEAK)
        stream = self.t.translate_stream("two women are sitting on a bench", **SPEAK)
        first = next(stream)
        self.assertEqual(self.t.translate(["the lazy dog"], **SPEAK)[0], expected[0])
        self.assertEqual(first + "".join(stream), expected[1])

    def test_stream_stops_when_closed(self):
        slow = edgemt.Translator(MODELS["slow"])
        long = dict(min_length=500, max_length=500)
        short = slow.translate(["a man"], **SPEAK)
        start = time.perf_counter()
        whole = list(slow.translate_stream("a man is riding a bike", **long))
        full_seconds = time.perf_counter() - start
        self.assertGreater(len(whole), 100, "the slow model's stream has changed")
        for close in ("close", "break"):
            with self.subTest(close=close):
                start = time.perf_counter()
                stream = slow.translate_stream("a man is riding a bike", **long)
                if close == "close":
                    first = next(stream)
                    stream.close()  # stops decoding at its next piece and joins the worker
                else:
                    for first in stream:
                        break
                    del stream  # a generator broken off and dropped closes
                seconds = time.perf_counter() - start
                print("%s after the first piece: %.1f ms; the whole stream: %.1f ms"
                      % (close, seconds * 1000, full_seconds * 1000))
                # Without the stop, closing would wait for all 500 decoder steps.
                self.assertLess(seconds, full_seconds / 2)
                self.assertEqual(first, whole[0])
                # The translator is free again, and right.
                self.assertEqual(slow.translate(["a man"], **SPEAK), short)

    def test_gil_is_released_while_translating(self):
        # Another Python thread counts while a call of about 0.5 s runs on one core:
        # it must get at least a tenth of the rate it has while this thread sleeps (half,
        # measured here).
        # Holding the GIL for the call would leave it only a few switch intervals.
        slow = edgemt.Translator(MODELS["slow"], threads=1)
        counts = [0]
        done = threading.Event()

        def count():
            while not done.is_set():
                counts[0] += 1

        def counted(call):
            before, start = counts[0], time.perf_counter()
            call()
            return (counts[0] - before) / (time.perf_counter() - start)

        counter = threading.Thread(target=count)
        counter.start()
        try:
            idle = counted(lambda: time.sleep(0.3))
            long = dict(min_length=300, max_length=300)
            for name, call in [("translate", lambda: slow.translate(["a man"], **long)),
                               ("stream", lambda: list(slow.translate_stream("a man", **long)))]:
                rate = counted(call)
                print("%s: the other thread counted %.0f/s meanwhile (%.0f/s while this one slept)"
                      % (name, rate, idle))
                self.assertGreater(rate, idle / 10, name)
        finally:
            done.set()
            counter.join()

    def test_threads_with_a_translator_each(self):
        expected = self.t.translate(LINES * 5, **SPEAK)
        model = edgemt.Model(MODELS["text"])  # shared: one packed copy of the weights
        for source in (MODELS["text"], model):
            outputs = [None, None]

            def work(i):
                t = edgemt.Translator(source, max_batch_size=4)
                outputs[i] = [t.translate(LINES * 5, **SPEAK) for _ in range(20)]

            threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            self.assertEqual(outputs, [[expected] * 20] * 2)

    def test_translate_iterable_is_lazy_and_names_lines(self):
        pulled = [0]

        def lines():
            for i in range(100):
                pulled[0] += 1
                yield "a man number %d\n" % i

        outputs = self.t.translate_iterable(lines(), batch_size=2, **SPEAK)
        next(outputs)
        self.assertEqual(pulled[0], 32, "one window (16 batches) read for the first output")
        self.assertEqual(len(list(outputs)), 99)
        self.assertEqual(pulled[0], 100)
        refusing = edgemt.Translator(MODELS["text"], long_input="error", max_source_length=8)
        with self.assertRaisesRegex(ValueError, "source 13: the source has"):
            list(refusing.translate_iterable(["a man"] * 13 + ["a man is riding a bike down the street"],
                                             batch_size=4))
        with self.assertRaisesRegex(TypeError, "line 2 is bytes"):
            list(self.t.translate_iterable(["a", "b", b"c"]))
        with self.assertRaisesRegex(ValueError, "batch_size"):
            list(self.t.translate_iterable(["a"], batch_size=0))

    def test_translate_iterable_memory_stays_flat(self):
        # 100,000 lines, generated and read lazily. RSS after 10,000 and after 100,000
        # lines must differ by less than 2 MB: keeping the 90,000 further inputs (about
        # 90 bytes each as Python strings, plus a list slot) or outputs would add about
        # 8 MB, and a leak of 32 bytes per line (a lost vector) about 3 MB.
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
        print("RSS after 10,000 lines: %d kB; after 100,000: %d kB (%+d kB)" % (at_10k, at_100k, at_100k - at_10k))
        self.assertLess(at_100k - at_10k, 2048)

    def test_help_shows_the_api(self):
        for name in ("translate", "translate_batch", "translate_ids", "translate_ids_batch", "translate_iterable",
                     "translate_stream"):
            self.assertGreater(len(getattr(edgemt.Translator, name).__doc__ or ""), 80, name)
        self.assertIn("bounded", edgemt.Translator.translate_iterable.__doc__)
        self.assertIn("packed_cache_dir", edgemt.Translator.__doc__)
        for cls, names in ((edgemt.TranslationResult, ("hypotheses", "scores", "ids", "token_log_probs",
                                                       "ended_with_eos", "warning")),
                           (edgemt.Model, ("source_vocab_size", "max_positions")),
                           (edgemt.Translator, ("has_tokenizer", "max_beam_size"))):
            for name in names:
                self.assertTrue(getattr(cls, name).__doc__, "%s.%s" % (cls.__name__, name))
        self.assertTrue(edgemt.Model.__doc__ and edgemt.TranslationResult.__doc__ and edgemt.__doc__)
        package = os.path.dirname(edgemt.__file__)
        self.assertTrue(os.path.isfile(os.path.join(package, "__init__.pyi")))
        self.assertTrue(os.path.isfile(os.path.join(package, "py.typed")))



class MarianModelDefaults(unittest.TestCase):
    """A converted Marian model's own beam size and length limit (its
    generation config: num_beams 3, max_length 48 = 47 output ids) apply to
    the calls that leave them out; streaming and sampling stay greedy."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, os.path.join(HERE, "..", "tools"))
        import make_marian_checkpoint
        folder = os.path.join(_tmp.name, "marian")
        make_marian_checkpoint.make(folder)
        cls.path = folder + ".edgemt"
        converter = os.path.join(HERE, "..", "..", "converter", "edgemt-convert")
        subprocess.run(["/usr/bin/python3", converter, folder, "--out", cls.path, "--dtype", "float32", "--quiet"],
                       check=True, capture_output=True)

    def test_the_models_beam_size_and_length_limit_are_the_defaults(self):
        model = edgemt.Model(self.path)
        self.assertEqual((model.default_beam_size, model.default_max_length), (3, 47))
        t = edgemt.Translator(model, max_batch_size=4)
        self.assertEqual(t.max_beam_size, 3)
        sources = [[5 + 7 * i + j for j in range(3 + i)] for i in range(8)]
        default = t.translate_ids_batch(sources)
        stated = t.translate_ids_batch(sources, beam_size=3, max_length=47)
        greedy = t.translate_ids_batch(sources, beam_size=1, max_length=47)
        self.assertEqual([r.ids for r in default], [r.ids for r in stated])
        self.assertEqual([r.scores for r in default], [r.scores for r in stated])
        # Beam search by default: three hypotheses each without naming the beam.
        self.assertTrue(all(len(r.ids) == 3 for r in t.translate_ids_batch(sources, num_hypotheses=3)))
        # The model's limit, not the runtime's 2 x source + 10 (at most 28 here): this random model never stops.
        self.assertTrue(all(len(r.ids[0]) <= 47 for r in default))
        self.assertGreater(max(len(r.ids[0]) for r in default), 2 * 11 + 10)
        texts = ["a b c", "d e f g"]
        self.assertEqual("".join(t.translate_stream(texts[0])), t.translate(texts[:1], beam_size=1)[0])
        self.assertEqual(len(t.translate(texts, sampling_topk=0, sampling_seed=3)), 2)
        # A narrower translator narrows the default; an explicit beam_size wins.
        narrow = edgemt.Translator(model, max_batch_size=4, max_beam_size=1)
        self.assertEqual([r.ids for r in narrow.translate_ids_batch(sources)], [r.ids for r in greedy])
        with self.assertRaises(ValueError):
            narrow.translate_ids_batch(sources, num_hypotheses=3)


if __name__ == "__main__":
    unittest.main()
