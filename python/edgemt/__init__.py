"""EdgeMT: offline machine translation on CPUs, from Python.

    import edgemt
    translator = edgemt.Translator("models/multi30k-ende.int8.edgemt")
    translator.translate(["A dog runs through the snow."])      # ['Ein Hund rennt durch den Schnee.']

Decoding options, accepted by every translate method (as DecodeOptions in
edgemt/translator.h, which documents each rule): beam_size (1: greedy, up to
the translator's max_beam_size), length_penalty, num_hypotheses (n-best),
max_length, min_length, sampling_topk (1: no sampling; 0: all),
sampling_topp, sampling_temperature, sampling_seed.

Errors raise ValueError (bad arguments or options), OSError (a model file
that cannot be read) or RuntimeError (a corrupt model, anything else), with
the runtime's message. The GIL is released while translating, so threads
with a Translator each run in parallel.
"""

import queue
import threading

from ._edgemt import Model, TranslationResult, _Translator

__all__ = ["Model", "Translator", "TranslationResult"]
__version__ = "0.1.0"

_DEFAULTS = dict(beam_size=1, length_penalty=1.0, num_hypotheses=1, max_length=0, min_length=0,
                 sampling_topk=1, sampling_topp=1.0, sampling_temperature=1.0, sampling_seed=0)


def _decoding(options, allowed=tuple(_DEFAULTS)):
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError("unknown decoding option%s: %s" % ("s" if len(unknown) > 1 else "", ", ".join(unknown)))
    values = {k: _DEFAULTS[k] for k in allowed}
    values.update(options)
    return values


def _line(text):
    """A line as read from a file, without its line ending."""
    if text.endswith("\n"):
        text = text[:-1]
    if text.endswith("\r"):
        text = text[:-1]
    return text


class Translator(_Translator):
    """A model file loaded and ready to translate.

    Translator(model, threads=1, max_batch_size=32, max_beam_size=1,
               max_source_length=0, max_target_length=0, long_input="truncate",
               packed_cache_dir="")

    model: a model file's path, or an edgemt.Model, which several translators
    (e.g. one per thread) share together with its packed weights.

    threads: threads for large matrix products (0: all cores). max_batch_size:
    sentences translated together (longer lists are split). max_beam_size: the
    widest beam_size allowed. max_source_length / max_target_length: 0 for the
    model's positions. long_input: "truncate" (translate a long source's
    beginning, with a warning in its result) or "error" (raise). packed_cache_dir:
    keep the weights packed for this CPU in a cache file there ("" for none).
    One translation runs at a time per Translator; use one per thread.
    """

    def translate(self, texts, **options):
        """Translates a list of texts; returns the best translation of each (list[str])."""
        return [r.hypotheses[0] for r in self.translate_batch(texts, **options)]

    def translate_batch(self, texts, return_scores=False, **options):
        """Translates a list of texts; returns a TranslationResult per text (n-best
        hypotheses, scores, ids, token log-probabilities, warning). Greedy scores are
        computed only with return_scores=True (beam search always has them)."""
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError("texts[%d] is %s, not str" % (i, type(t).__name__))
        return self._translate_batch(texts, return_scores=bool(return_scores), **_decoding(options))

    def translate_ids(self, sources, return_scores=False, **options):
        """Translates token ids (each source a list of ids, without </s>); returns a
        TranslationResult per source (its .ids hold the output ids; .hypotheses the
        texts when the model has a tokenizer)."""
        sources = [list(s) for s in sources]
        return self._translate_ids(sources, return_scores=bool(return_scores), **_decoding(options))

    def translate_iterable(self, lines, batch_size=32, **options):
        """Yields the translation of each line of an iterable (a file, a generator), in
        order, reading batch_size lines at a time: memory stays bounded for input of any
        size. A line's ending ("\\n", "\\r\\n") is not part of its text."""
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1, not %d" % batch_size)
        batch = []
        for line in lines:
            batch.append(_line(line))
            if len(batch) == batch_size:
                yield from self.translate(batch, **options)
                batch = []
        if batch:
            yield from self.translate(batch, **options)

    def translate_stream(self, text, **options):
        """Yields the translation of one text piece by piece as the decoder produces it
        (greedy or sampling: no beam_size). The pieces add up to exactly translate()'s
        text. Closing the generator early (break) stops decoding."""
        decoding = _decoding(options, allowed=("max_length", "min_length", "sampling_topk", "sampling_topp",
                                               "sampling_temperature", "sampling_seed"))
        pieces = queue.Queue()
        stop = threading.Event()
        done = object()
        failure = []

        def on_piece(piece):
            pieces.put(piece)
            return not stop.is_set()

        def work():
            try:
                self._translate_stream(text, on_piece, **decoding)
            except BaseException as e:  # raised in the consumer's thread below
                failure.append(e)
            finally:
                pieces.put(done)

        worker = threading.Thread(target=work, name="edgemt-stream", daemon=True)
        worker.start()
        try:
            while True:
                piece = pieces.get()
                if piece is done:
                    break
                yield piece
        finally:
            stop.set()  # the next piece's callback returns False: decoding stops there
            worker.join()
        if failure:
            raise failure[0]
