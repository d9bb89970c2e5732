"""EdgeMT: offline machine translation on CPUs, from Python.

    import edgemt
    translator = edgemt.Translator("models/multi30k-ende.int8.edgemt")
    translator.translate(["A dog runs through the snow."])      # ['Ein Hund rennt durch den Schnee.']

Translator methods: translate (texts -> best translations), translate_batch
(texts -> TranslationResult: n-best, scores, ids, log-probabilities,
warning), translate_ids and translate_ids_batch (token ids in and out),
translate_iterable (a file of any size, lazily, in batches) and
translate_stream (one text piece by piece as the decoder produces it).

Decoding options, keyword arguments of every translate method (as
DecodeOptions in edgemt/translator.h, which documents each rule):
beam_size (1: greedy, up to the translator's max_beam_size; default: the
model's own beam size when it states one, e.g. a Marian model's num_beams,
up to max_beam_size, else 1), length_penalty, num_hypotheses (n-best, up to
beam_size), max_length (0: min(2 * source length + 10, the model's
positions); default: the model's own limit when it states one), min_length,
sampling_topk (1: no sampling; 0: the whole vocabulary), sampling_topp,
sampling_temperature, sampling_seed; and CTranslate2's, with its meaning:
return_alternatives (num_hypotheses alternatives at the first position
after the target prefix, each completed by the search; num_hypotheses may
exceed beam_size), min_alternative_expansion_prob, repetition_penalty,
no_repeat_ngram_size, disable_unk; return_alignments (each hypothesis's
alignments and word_alignments, from the cross-attention of decoder layer
alignment_layer, default -1: the last, averaged over its heads);
use_shortlist (default True: with a model that has a vocabulary shortlist,
each sentence chooses among its shortlist only; docs/shortlist.md).
translate, translate_batch, translate_ids
and translate_ids_batch take target_prefix: one per source (a text, or ids
for the ids methods; None or empty: none), the forced start of its
translation. score_batch and score_ids_batch score given translations.

Errors raise ValueError (bad arguments or options: the runtime checks
them), OSError (a file that cannot be read, a model without the tokenizer
texts need) or RuntimeError (a corrupt or unsupported model, anything
else), with the runtime's message. The GIL is released while translating,
so threads with a Translator each translate in parallel.
"""

import os
import warnings

from ._edgemt import MODEL_FORMATS, Catalog, CatalogResult, Model, TranslationResult, _DecodeOptions, _Translator
from ._edgemt import detect_language
from ._edgemt import __version__  # the library's own: the CLI's --version and C's edgemt_version() say the same

__all__ = ["Model", "Translator", "TranslationResult", "MODEL_FORMATS", "Catalog", "CatalogResult", "detect_language"]

# translate_iterable reads this many batches ahead (as edgemt-translate does).
_READ_AHEAD_BATCHES = 16

_DECODING_OPTIONS = ("beam_size", "length_penalty", "num_hypotheses", "max_length", "min_length", "sampling_topk",
                     "sampling_topp", "sampling_temperature", "sampling_seed", "return_alternatives",
                     "min_alternative_expansion_prob", "repetition_penalty", "no_repeat_ngram_size", "disable_unk",
                     "return_alignments", "alignment_layer", "use_shortlist")


def _decode_options(options, defaults=None):
    """Keyword arguments as the runtime's DecodeOptions: `defaults` (the
    model's beam size and max_length) for those not given, the runtime's
    defaults for the rest."""
    unknown = sorted(set(options) - set(_DECODING_OPTIONS))
    if unknown:
        raise TypeError("unknown decoding option%s: %s (the options are %s)"
                        % ("s" if len(unknown) > 1 else "", ", ".join(unknown), ", ".join(_DECODING_OPTIONS)))
    options = dict(defaults or {}, **options)
    decode = _DecodeOptions()
    for name, value in options.items():
        try:
            setattr(decode, name, value)
        except TypeError:
            raise TypeError("decoding option %s=%r: wrong type %s" % (name, value, type(value).__name__)) from None
    return decode


def _texts(texts, what="texts"):
    if isinstance(texts, str):
        # Iterated, a str would be its characters, each translated alone.
        raise TypeError("%s is a str: give a list of texts" % what)
    texts = list(texts)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError("%s[%d] is %s, not str" % (what, i, type(text).__name__))
    return texts


def _prefixes(target_prefix, count, ids):
    """One target prefix per source ("" or [] for None), or [] for none at all."""
    if target_prefix is None:
        return []
    target_prefix = list(target_prefix)
    if len(target_prefix) != count:
        raise ValueError("target_prefix has %d entries for %d sources" % (len(target_prefix), count))
    if ids:
        return [[] if p is None else list(p) for p in target_prefix]
    return _texts(["" if p is None else p for p in target_prefix], "target_prefix")


def _line(line, number):
    """A line as read from a text file, without its line ending."""
    if not isinstance(line, str):
        raise TypeError("line %d is %s, not str (open the file in text mode)" % (number, type(line).__name__))
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return line


class Translator(_Translator):
    """A model loaded and ready to translate.

    Translator(model_path, threads=1, max_batch_size=32, max_beam_size=None,
               max_source_length=0, max_target_length=0, long_input="truncate",
               packed_cache_dir=None, max_batch_tokens=0, cache_mb=0, document_cache_mb=32)

    model_path: a model file (str or os.PathLike), or an edgemt.Model, which
    several translators (e.g. one per thread) then share together with its
    packed weights.
    threads: threads for large matrix products (0: all cores).
    max_batch_size: sources translated together: a call's sources are
    sorted by length into batches of at most this many.
    max_batch_tokens: a batch also stops growing before its sources x its
    longest source would pass this many ids (0: no such bound).
    max_beam_size: the widest beam_size allowed (memory is planned for
    max_batch_size x max_beam_size hypotheses); None: the model's own beam
    size (a converted Marian model's num_beams), else 1.
    max_source_length, max_target_length: in ids, 0 for the model's positions.
    long_input: "truncate" (translate a long source's beginning, with a
    warning in its result), "error" (that source raises ValueError) or
    "split" (a long text is split at semicolons, commas, then spaces into
    parts that fit, translated and joined, with a warning; translate_document
    splits unless "error").
    packed_cache_dir: a directory where the weights packed for this CPU are
    kept in a cache file, so that later runs map them instead of packing.
    cache_mb, document_cache_mb: translations of sentences seen before kept
    in bounded caches of this many MB (a repeated sentence costs nothing and
    gives exactly its translation again): of translate() and the other text
    calls (default 0: none), and of translate_document's sentences (32).

    One translation runs at a time per Translator (a second thread waits);
    give each thread its own Translator to translate in parallel.
    Raises OSError (file not readable), RuntimeError (not a valid model),
    ValueError (bad options).
    """

    def __init__(self, model_path, threads=1, max_batch_size=32, max_beam_size=None, max_source_length=0,
                 max_target_length=0, long_input="truncate", packed_cache_dir=None, max_batch_tokens=0,
                 cache_mb=0, document_cache_mb=32):
        model = model_path if isinstance(model_path, Model) else Model(os.fspath(model_path))
        cache = "" if packed_cache_dir is None else os.fspath(packed_cache_dir)
        if max_beam_size is None:
            max_beam_size = model._max_beam_size
        super().__init__(model, threads, max_batch_size, max_beam_size, max_source_length, max_target_length,
                         long_input, cache, max_batch_tokens, cache_mb, document_cache_mb)
        self._model = model

    def _decoding(self, options, greedy_only=False):
        # The model's own choices (the runtime's rule) for the options a call
        # leaves out; streaming and sampling are greedy.
        greedy_only = greedy_only or options.get("sampling_topk", 1) != 1
        defaults = self._model._decode_defaults(self.max_beam_size, greedy_only)
        return _decode_options(options, defaults)

    def translate(self, texts, target_prefix=None, split_sentences=True, **options):
        """Translates a list of texts; returns the best translation of each (list[str]).
        A single str is one text: its translation (str) is returned.

        Each text is a paragraph: its sentences are translated and joined with
        its own whitespace (line breaks as spaces). split_sentences=False: each
        text is one sentence, translated as it is. Target prefixes, n-best and
        alternatives take each text as one sentence (with a warning in
        translate_batch's result when it holds more). A blank text gives "". A
        source that fails (e.g. too long with long_input="error") raises, naming
        it ("source 3: ...")."""
        if isinstance(texts, str):
            prefix = None if target_prefix is None else [target_prefix]
            return self.translate([texts], prefix, split_sentences, **options)[0]
        return [result.hypotheses[0] for result in
                self.translate_batch(texts, target_prefix=target_prefix, split_sentences=split_sentences, **options)]

    def translate_batch(self, texts, return_scores=False, target_prefix=None, split_sentences=True, **options):
        """Translates a list of texts; returns a TranslationResult per text: the
        num_hypotheses best hypotheses (texts, scores, ids, token log-probabilities,
        ended_with_eos) and a warning. A single str is one text: its
        TranslationResult is returned. Beam search and n-best always have scores;
        greedy decoding computes them only with return_scores=True. target_prefix:
        per text, the text its translation starts with (None or "": none).
        split_sentences as translate: a paragraph's hypotheses join its
        sentences' (ids, log-probabilities, alignments one after the other,
        scores added up)."""
        if isinstance(texts, str):
            prefix = None if target_prefix is None else [target_prefix]
            return self.translate_batch([texts], return_scores, prefix, split_sentences, **options)[0]
        texts = _texts(texts)
        return self._translate_texts(texts, _prefixes(target_prefix, len(texts), ids=False),
                                     self._decoding(options), bool(return_scores), 0, bool(split_sentences))

    def translate_document(self, text, html=False, **options):
        """Translates a document (any text: paragraphs, line breaks, blank lines,
        indentation, CRLF): every line split into sentences, the sentences
        translated together, and put back with the document's own whitespace and
        lines. html=True: the text is HTML (a page or a snippet): the text of
        each block is translated, inline tags go back around the translated
        words they surrounded, and script, style, code, attributes, comments
        and translate="no" stay as they are. A sentence that fails keeps its
        source text, with a RuntimeWarning. Decoding options as translate_batch
        (no target_prefix, no alternatives)."""
        if not isinstance(text, str):
            raise TypeError("text is %s, not str" % type(text).__name__)
        translation, failed, why = self._translate_document(text, self._decoding(options), bool(html))
        if failed:
            warnings.warn("%d sentence%s of the document not translated (the source stands in): %s"
                          % (failed, "s" if failed > 1 else "", why), RuntimeWarning, stacklevel=2)
        return translation

    def translate_ids(self, sources, target_prefix=None, **options):
        """Translates token ids: each source a list of source-vocabulary ids without
        </s> (it is added). Returns the best translation's ids for each (list[list[int]],
        without </s>). Works with models that have no tokenizer."""
        return [result.ids[0] for result in self.translate_ids_batch(sources, target_prefix=target_prefix, **options)]

    def translate_ids_batch(self, sources, return_scores=False, target_prefix=None, **options):
        """As translate_ids, returning a TranslationResult per source (n-best ids and
        scores; hypotheses holds their texts when the model has a tokenizer).
        target_prefix: per source, target ids its translation starts with."""
        sources = [list(ids) for ids in sources]
        return self._translate_ids(sources, _prefixes(target_prefix, len(sources), ids=True),
                                   self._decoding(options), bool(return_scores), 0)

    def score_batch(self, sources, targets):
        """Scores targets[i] as the translation of sources[i], as CTranslate2's
        score_batch: a TranslationResult per pair whose one hypothesis is the
        target, token_log_probs[0] the log-probability of each of its ids and
        then of </s>, and scores[0] their sum."""
        sources, targets = _texts(sources, "sources"), _texts(targets, "targets")
        if len(sources) != len(targets):
            raise ValueError("%d sources and %d targets" % (len(sources), len(targets)))
        return self._score_texts(sources, targets)

    def score_ids_batch(self, sources, targets):
        """As score_batch for ids: sources without </s> (it is added), targets
        without <s> and </s>."""
        sources, targets = [list(ids) for ids in sources], [list(ids) for ids in targets]
        if len(sources) != len(targets):
            raise ValueError("%d sources and %d targets" % (len(sources), len(targets)))
        return self._score_ids(sources, targets)

    def translate_iterable(self, lines, batch_size=32, split_sentences=True, **options):
        """Yields the best translation of each line of an iterable (a text file, a
        generator), in order, one per line. Lines are read 16 x batch_size at a
        time, as the output is consumed, and each such window is sorted by length
        into batches (of at most the translator's max_batch_size), so that a batch
        holds sentences of similar lengths; memory stays bounded for input of any
        size. A line's ending ("\\n", "\\r\\n") is not part of its text. A line
        that fails raises, naming it by its index from 0 ("source 12345: ...").
        Each line is a paragraph unless split_sentences=False (as translate)."""
        if isinstance(lines, str):
            raise TypeError("lines is a str: give an iterable of lines (a file, a list), or use translate(text)")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError("batch_size must be an int of at least 1, not %r" % (batch_size,))
        decode = self._decoding(options)
        window = _READ_AHEAD_BATCHES * batch_size
        texts = []
        first = 0
        for line in lines:
            texts.append(_line(line, first + len(texts)))
            if len(texts) == window:
                yield from self._best(texts, decode, first, split_sentences)
                first += len(texts)
                texts = []
        if texts:
            yield from self._best(texts, decode, first, split_sentences)

    def _best(self, texts, decode, first_index, split_sentences):
        return [result.hypotheses[0] for result in
                self._translate_texts(texts, [], decode, False, first_index, bool(split_sentences))]

    def translate_stream(self, text, split_sentences=True, **options):
        """Returns a generator of the translation of one text, piece by piece as the
        decoder produces it (greedy or sampling; beam_size > 1 raises ValueError).
        Pieces are whole characters, and they add up to exactly what translate()
        gives. Decoding runs on a worker thread, without the GIL; closing the
        generator early (break, .close()) stops decoding at the next piece and waits
        for that thread, after which the translator is free again. While the stream
        runs, this translator's other calls wait for it. A paragraph streams
        sentence after sentence (split_sentences as translate)."""
        if not isinstance(text, str):
            raise TypeError("text is %s, not str" % type(text).__name__)
        split = bool(split_sentences)
        return self._pieces(text, self._decoding(options, greedy_only=True),
                            lambda text, decode: self._start_stream(text, decode, split))

    def translate_document_stream(self, text, **options):
        """Returns a generator of translate_document(text)'s output, sentence by
        sentence as they are translated (in document order, max_batch_size at
        a time): kept whitespace, translations, failed sentences' sources. The
        pieces add up to exactly translate_document(text). Runs on a worker
        thread as translate_stream does."""
        if not isinstance(text, str):
            raise TypeError("text is %s, not str" % type(text).__name__)
        return self._pieces(text, self._decoding(options), self._start_document_stream)

    def _pieces(self, text, decode, start):
        stream = start(text, decode)
        try:
            while True:
                piece = stream.next()
                if piece is None:
                    return
                yield piece
        finally:
            stream.close()
