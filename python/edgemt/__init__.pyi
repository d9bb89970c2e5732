"""EdgeMT: offline machine translation on CPUs (type stubs; help(edgemt) documents the API)."""
import os
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union, overload

__version__: str
MODEL_FORMATS: str

class TranslationResult:
    """One source's translations, best first (num_hypotheses of them)."""
    @property
    def hypotheses(self) -> List[str]:
        """Texts of the hypotheses, best first."""
    @property
    def scores(self) -> List[float]:
        """Sum of token log-probabilities / length**length_penalty (0.0 for greedy unless return_scores)."""
    @property
    def ids(self) -> List[List[int]]:
        """Target ids of each hypothesis, without </s>."""
    @property
    def token_log_probs(self) -> List[List[float]]:
        """Each id's log-probability, then </s>'s when the hypothesis ended with it."""
    @property
    def ended_with_eos(self) -> List[bool]:
        """Whether each hypothesis ended with </s> (else at the length limit)."""
    @property
    def alignments(self) -> List[List[int]]:
        """return_alignments: each id's aligned source position (among the source's ids as translated)."""
    @property
    def word_alignments(self) -> List[List[Tuple[int, int]]]:
        """return_alignments: (source word, target word) pairs, sorted by target word (Moses' i-j)."""
    @property
    def confidences(self) -> List[float]:
        """With scores: exp of the mean log-probability of each hypothesis's ids and </s> (0..1)."""
    @property
    def word_confidences(self) -> List[List[float]]:
        """With scores: the same per word (what spaces separate) of each hypothesis."""
    @property
    def warning(self) -> str:
        """A warning about the source (e.g. truncated), or ''."""

class Model:
    """A model file, memory-mapped and verified; translators made from one Model share its packed weights."""
    def __init__(self, path: str) -> None: ...
    @property
    def source_vocab_size(self) -> int: ...
    @property
    def target_vocab_size(self) -> int: ...
    @property
    def max_positions(self) -> int: ...
    @property
    def file_size(self) -> int: ...
    @property
    def default_beam_size(self) -> int: ...
    @property
    def default_max_length(self) -> int: ...

class Translator:
    """A model loaded and ready to translate (help(edgemt.Translator) documents every argument)."""
    def __init__(self, model_path: Union[str, "os.PathLike[str]", Model], threads: int = 1,
                 max_batch_size: int = 32, max_beam_size: Optional[int] = None, max_source_length: int = 0,
                 max_target_length: int = 0, long_input: str = "truncate",
                 packed_cache_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
                 max_batch_tokens: int = 0, cache_mb: float = 0, document_cache_mb: float = 32) -> None: ...
    @property
    def has_tokenizer(self) -> bool: ...
    @property
    def threads(self) -> int: ...
    @property
    def max_batch_size(self) -> int: ...
    @property
    def max_beam_size(self) -> int: ...
    @property
    def max_source_length(self) -> int: ...
    @property
    def max_target_length(self) -> int: ...
    @property
    def max_batch_tokens(self) -> int: ...
    def cache_stats(self) -> Dict[str, Dict[str, int]]: ...
    @overload
    def translate(self, texts: str, target_prefix: Optional[str] = None, split_sentences: bool = True,
                  **options: object) -> str: ...
    @overload
    def translate(self, texts: Iterable[str], target_prefix: Optional[Sequence[Optional[str]]] = None,
                  split_sentences: bool = True, *, beam_size: int = ..., length_penalty: float = 1.0,
                  num_hypotheses: int = 1, max_length: int = ..., min_length: int = 0, sampling_topk: int = 1,
                  sampling_topp: float = 1.0, sampling_temperature: float = 1.0,
                  sampling_seed: int = 0,
                  return_alternatives: bool = False, min_alternative_expansion_prob: float = 0.0,
                  repetition_penalty: float = 1.0, no_repeat_ngram_size: int = 0, disable_unk: bool = False,
                  return_alignments: bool = False, alignment_layer: int = -1) -> List[str]:
        """The best translation of each text (each a paragraph, unless split_sentences=False)."""
    @overload
    def translate_batch(self, texts: str, return_scores: bool = False, target_prefix: Optional[str] = None,
                        split_sentences: bool = True, **options: object) -> TranslationResult: ...
    @overload
    def translate_batch(self, texts: Iterable[str], return_scores: bool = False,
                        target_prefix: Optional[Sequence[Optional[str]]] = None, split_sentences: bool = True,
                        *, beam_size: int = ...,
                        length_penalty: float = 1.0, num_hypotheses: int = 1, max_length: int = ...,
                        min_length: int = 0, sampling_topk: int = 1, sampling_topp: float = 1.0,
                        sampling_temperature: float = 1.0, sampling_seed: int = 0,
                        return_alternatives: bool = False, min_alternative_expansion_prob: float = 0.0,
                        repetition_penalty: float = 1.0, no_repeat_ngram_size: int = 0, disable_unk: bool = False,
                        return_alignments: bool = False, alignment_layer: int = -1) -> List[TranslationResult]:
        """A TranslationResult (n-best, scores, ids, log-probabilities, warning) per text."""
    def translate_ids(self, sources: Iterable[Sequence[int]],
                      target_prefix: Optional[Sequence[Optional[Sequence[int]]]] = None, *, beam_size: int = ..., length_penalty: float = 1.0,
                      num_hypotheses: int = 1, max_length: int = ..., min_length: int = 0, sampling_topk: int = 1,
                      sampling_topp: float = 1.0, sampling_temperature: float = 1.0,
                      sampling_seed: int = 0,
                      return_alternatives: bool = False, min_alternative_expansion_prob: float = 0.0,
                      repetition_penalty: float = 1.0, no_repeat_ngram_size: int = 0, disable_unk: bool = False,
                      return_alignments: bool = False, alignment_layer: int = -1) -> List[List[int]]:
        """The best translation's ids for each source (ids without </s> in and out)."""
    def translate_ids_batch(self, sources: Iterable[Sequence[int]], return_scores: bool = False,
                            target_prefix: Optional[Sequence[Optional[Sequence[int]]]] = None, *,
                            beam_size: int = ..., length_penalty: float = 1.0, num_hypotheses: int = 1,
                            max_length: int = ..., min_length: int = 0, sampling_topk: int = 1,
                            sampling_topp: float = 1.0, sampling_temperature: float = 1.0,
                            sampling_seed: int = 0,
                            return_alternatives: bool = False, min_alternative_expansion_prob: float = 0.0,
                            repetition_penalty: float = 1.0, no_repeat_ngram_size: int = 0, disable_unk: bool = False,
                            return_alignments: bool = False, alignment_layer: int = -1) -> List[TranslationResult]:
        """A TranslationResult per source of ids."""
    def translate_iterable(self, lines: Iterable[str], batch_size: int = 32, split_sentences: bool = True, *,
                           beam_size: int = ...,
                           length_penalty: float = 1.0, num_hypotheses: int = 1, max_length: int = ...,
                           min_length: int = 0, sampling_topk: int = 1, sampling_topp: float = 1.0,
                           sampling_temperature: float = 1.0, sampling_seed: int = 0,
                           return_alternatives: bool = False, min_alternative_expansion_prob: float = 0.0,
                           repetition_penalty: float = 1.0, no_repeat_ngram_size: int = 0, disable_unk: bool = False,
                           return_alignments: bool = False, alignment_layer: int = -1) -> Iterator[str]:
        """One translation per line, in order, reading 16 x batch_size lines at a time, sorted by length into batches (bounded memory)."""
    def translate_stream(self, text: str, split_sentences: bool = True, *, beam_size: int = ...,
                         length_penalty: float = 1.0,
                         num_hypotheses: int = 1, max_length: int = ..., min_length: int = 0,
                         sampling_topk: int = 1, sampling_topp: float = 1.0, sampling_temperature: float = 1.0,
                         sampling_seed: int = 0,
                         return_alternatives: bool = False, min_alternative_expansion_prob: float = 0.0,
                         repetition_penalty: float = 1.0, no_repeat_ngram_size: int = 0, disable_unk: bool = False,
                         return_alignments: bool = False, alignment_layer: int = -1) -> Iterator[str]:
        """The translation of one text, piece by piece as the decoder produces it; closing stops decoding."""
    def translate_document_stream(self, text: str, **options: object) -> Iterator[str]:
        """translate_document's output, sentence by sentence as it is translated."""
    def translate_document(self, text: str, html: bool = False, *, beam_size: int = ..., length_penalty: float = 1.0,
                           max_length: int = ..., min_length: int = 0,
                           sampling_topk: int = 1, sampling_topp: float = 1.0, sampling_temperature: float = 1.0,
                           sampling_seed: int = 0, repetition_penalty: float = 1.0, no_repeat_ngram_size: int = 0,
                           disable_unk: bool = False,
                           return_alignments: bool = False, alignment_layer: int = -1) -> str:
        """Every line split into sentences, translated, put back with the document's own whitespace and lines."""
    def score_batch(self, sources: Iterable[str], targets: Iterable[str]) -> List[TranslationResult]:
        """Per pair, the target as one hypothesis: token_log_probs[0] per id and then </s>, scores[0] their sum."""
    def score_ids_batch(self, sources: Iterable[Sequence[int]],
                        targets: Iterable[Sequence[int]]) -> List[TranslationResult]:
        """As score_batch, for ids (sources without </s>, targets without <s> and </s>)."""

class CatalogResult:
    text: str
    alternatives: List[str]
    source_language: str
    language_confidence: float
    models: List[str]
    warning: str
    error: str

class Catalog:
    def __init__(self, directory: Union[str, os.PathLike], pivot_language: str = "en", memory_budget_mb: float = 0.0,
                 threads: int = 0, max_batch_size: int = 16) -> None: ...
    def languages(self) -> List[str]: ...
    def targets(self, from_: str) -> List[str]: ...
    def route(self, from_: str, to: str) -> List[str]: ...
    def models(self) -> List[Dict[str, Union[str, int]]]: ...
    def translate(self, text: str, from_: str, to: str, format: str = "text") -> str: ...
    def translate_batch(self, texts: Sequence[str], from_: str, to: str, format: str = "text",
                        alternatives: int = 0) -> List[CatalogResult]: ...
    def stats(self) -> Dict[str, int]: ...

def detect_language(text: str, html: bool = False) -> List[Tuple[str, float]]: ...
