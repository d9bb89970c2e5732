/* EdgeMT's C API: offline translation for any language with a C FFI (JNI,
 * Swift, Dart, Rust, Go, ...). Pure C99; also compiles as C++. This header
 * is the C API only, not an umbrella of the C++ one: C++ callers include
 * the headers beside it (edgemt/model.h, edgemt/translator.h, ...).
 *
 * Every function that can fail returns an edgemt_status; the message of the
 * last failure on the calling thread is edgemt_last_error(). Nothing aborts
 * and no C++ exception crosses this boundary. Handles are opaque; each has a
 * free function, which accepts NULL. A model may be freed before the
 * translators made from it (they keep what they need). One translator
 * serves one call at a time: concurrent calls on the same translator wait
 * for each other; for parallel work create one translator per thread.
 *
 * Options structs carry their own size (struct_size): initialize them with
 * their _init function, so a program built against this header keeps
 * working with later versions of the library that add fields.
 *
 * In libedgemt.so these are the only symbols exported; link with -ledgemt.
 */
#ifndef EDGEMT_EDGEMT_H_
#define EDGEMT_EDGEMT_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define EDGEMT_API __attribute__((visibility("default")))
#else
#define EDGEMT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum edgemt_status {
  EDGEMT_OK = 0,
  EDGEMT_INVALID_ARGUMENT = 1,   /* a bad request: NULL, a wrong handle, ids out of range, options out of limits */
  EDGEMT_INVALID_MODEL = 2,      /* the model file is corrupt or inconsistent */
  EDGEMT_UNSUPPORTED = 3,        /* a valid file this library cannot run, or a feature this build lacks */
  EDGEMT_NOT_FOUND = 4,          /* a file that cannot be opened, a model without a tokenizer */
  EDGEMT_RESOURCE_EXHAUSTED = 5, /* out of memory */
  EDGEMT_INTERNAL = 6,           /* a dependency failed */
  EDGEMT_BUFFER_TOO_SMALL = 7,   /* the caller's buffer is too small: the size needed was written */
  EDGEMT_STATUS_MAX_ENUM = 0x7fffffff  /* not a status: any int value a caller passes is in range */
} edgemt_status;

/* The message of this thread's last failed call ("" before any). Valid until
 * this thread's next call into EdgeMT. */
EDGEMT_API const char* edgemt_last_error(void);
/* "OK", "INVALID_ARGUMENT", ...; "UNKNOWN" for other values. */
EDGEMT_API const char* edgemt_status_name(edgemt_status status);
/* The library's version, "MAJOR.MINOR.PATCH". */
EDGEMT_API const char* edgemt_version(void);
/* The model file format versions this library reads, "MAJOR.MINOR-MAJOR.MINOR". */
EDGEMT_API const char* edgemt_model_formats(void);

typedef struct edgemt_model edgemt_model;
typedef struct edgemt_tokenizer edgemt_tokenizer;
typedef struct edgemt_translator edgemt_translator;
typedef struct edgemt_results edgemt_results;

/* ---- Models ---- */

/* Memory-maps a model file written by edgemt-convert. */
EDGEMT_API edgemt_status edgemt_model_load(const char* path, edgemt_model** model);
/* A model in the caller's memory: 64-byte aligned, alive and unchanged until
 * the model and every translator made from it are freed. */
EDGEMT_API edgemt_status edgemt_model_load_from_memory(const void* data, size_t size, edgemt_model** model);
EDGEMT_API void edgemt_model_free(edgemt_model* model);

/* ---- Tokenizers (the SentencePiece model inside the model file) ---- */

typedef enum edgemt_side { EDGEMT_SOURCE = 0, EDGEMT_TARGET = 1, EDGEMT_SIDE_MAX_ENUM = 0x7fffffff } edgemt_side;

EDGEMT_API edgemt_status edgemt_tokenizer_create(const edgemt_model* model, edgemt_side side,
                                                 edgemt_tokenizer** tokenizer);
/* The ids of `text` (UTF-8, without </s>) into ids[0..capacity); *count gets
 * their number, also when it is EDGEMT_BUFFER_TOO_SMALL. */
EDGEMT_API edgemt_status edgemt_tokenizer_encode(const edgemt_tokenizer* tokenizer, const char* text, int32_t* ids,
                                                 size_t capacity, size_t* count);
/* The text of ids[0..count) into text[0..capacity), NUL-terminated; *length
 * gets its length without the NUL, also when it is EDGEMT_BUFFER_TOO_SMALL. */
EDGEMT_API edgemt_status edgemt_tokenizer_decode(const edgemt_tokenizer* tokenizer, const int32_t* ids, size_t count,
                                                 char* text, size_t capacity, size_t* length);
EDGEMT_API void edgemt_tokenizer_free(edgemt_tokenizer* tokenizer);

/* ---- Translators ---- */

typedef struct edgemt_translator_options {
  size_t struct_size;            /* sizeof(edgemt_translator_options) */
  int32_t num_threads;           /* 0: all cores */
  int32_t max_batch_size;        /* sentences per call at most (default 1); batches are split at it */
  int32_t max_beam_size;         /* the widest beam_size allowed (default 1) */
  int32_t max_source_length;     /* 0: the model's positions */
  int32_t max_target_length;     /* 0: the model's positions */
  int32_t truncate_long_inputs;  /* 1 (default): translate a long source's beginning, with a warning; 0: refuse it;
                                  * 2: split a long text into parts that fit (LongInput::kSplit) */
  const char* packed_cache_dir;  /* NULL: no packed-weights cache file */
  /* A batch also stops growing before its sentences x its longest source
   * would pass this many tokens (sources are sorted by length into batches);
   * 0 (default): max_batch_size alone bounds it. Added after the fields
   * above: an older caller's smaller struct_size leaves it 0. */
  int64_t max_batch_tokens;
  /* Translations kept for sentences seen before (bounded caches of this many
   * bytes; a hit gives exactly the translation again): of
   * edgemt_translate_texts and the other text calls (default 0: none), and of
   * edgemt_translate_document's sentences (default 32 MiB; 0: none).
   * Added after the fields above: an older caller's smaller struct_size
   * keeps these defaults. */
  int64_t cache_bytes;
  int64_t document_cache_bytes;
} edgemt_translator_options;

EDGEMT_API void edgemt_translator_options_init(edgemt_translator_options* options);

/* options NULL: the defaults. */
EDGEMT_API edgemt_status edgemt_translator_create(const edgemt_model* model, const edgemt_translator_options* options,
                                                  edgemt_translator** translator);
EDGEMT_API void edgemt_translator_free(edgemt_translator* translator);

/* As DecodeOptions in edgemt/translator.h, which documents each rule. */
typedef struct edgemt_decode_options {
  size_t struct_size;            /* sizeof(edgemt_decode_options) */
  int32_t beam_size;             /* 1 (default): greedy */
  float length_penalty;          /* 1 */
  int32_t num_hypotheses;        /* n-best, 1..beam_size (default 1) */
  int32_t max_length;            /* 0: min(2 * source length + 10, max_target_length) */
  int32_t min_length;            /* 0 */
  int32_t return_scores;         /* 0 (default): greedy results have score 0 (beams always have scores) */
  int32_t sampling_topk;         /* 1 (default): no sampling; 0: the whole vocabulary */
  float sampling_topp;           /* 1 */
  float sampling_temperature;    /* 1 */
  uint64_t sampling_seed;        /* 0 */
  /* CTranslate2's options (DecodeOptions documents each). Target prefixes,
   * one per source or NULL: texts for edgemt_translate_text and
   * edgemt_translate_batch (NULL or "" entries: none), target ids for
   * edgemt_translate_ids (target_prefix_ids[i][0..target_prefix_lengths[i])). */
  const char* const* target_prefixes;          /* NULL */
  const int32_t* const* target_prefix_ids;     /* NULL */
  const size_t* target_prefix_lengths;         /* NULL */
  int32_t return_alternatives;   /* 0; 1: num_hypotheses alternatives after the prefix (may exceed beam_size) */
  float min_alternative_expansion_prob;        /* 0 */
  float repetition_penalty;      /* 1: off */
  int32_t no_repeat_ngram_size;  /* 0: off */
  int32_t disable_unk;           /* 0 */
  /* Added after the fields above (an older caller's smaller struct_size
   * keeps these defaults). Alignments: each hypothesis's alignments and
   * word alignments (edgemt_hypothesis), from the cross-attention of
   * decoder layer alignment_layer (negative: from the last) averaged over
   * its heads; not with return_alternatives. */
  int32_t return_alignments;     /* 0 */
  int32_t alignment_layer;       /* -1: the last */
  /* Added after the fields above. With a model that has a vocabulary
   * shortlist (docs/shortlist.md), choose among each sentence's shortlist
   * only; 0: the whole vocabulary. */
  int32_t use_shortlist;         /* 1 */
  /* Added after the fields above. 1: a text is a paragraph, translated
   * sentence by sentence and joined with its own whitespace (texts and
   * streams; edgemt/text_translator.h, Sentences); 0: each text is one
   * sentence, translated as it is. Calls whose results are per sentence
   * (target prefixes, num_hypotheses > 1, alternatives) take a text as one
   * sentence, with a warning when it holds more (edgemt_results_warning). */
  int32_t split_sentences;       /* 1 */
} edgemt_decode_options;

EDGEMT_API void edgemt_decode_options_init(edgemt_decode_options* options);
/* The defaults, with the beam size and length limit the model's checkpoint
 * chose when it states them (a converted Marian model's generation config:
 * e.g. num_beams 4); create the translator with a max_beam_size of at least
 * that beam size. model NULL: as edgemt_decode_options_init. */
EDGEMT_API void edgemt_decode_options_init_for_model(const edgemt_model* model, edgemt_decode_options* options);

/* One text (UTF-8) to its best translation, into output[0..capacity),
 * NUL-terminated; *length gets the translation's length without the NUL,
 * also when it is EDGEMT_BUFFER_TOO_SMALL (translate again with a bigger
 * buffer). options NULL: the defaults. */
EDGEMT_API edgemt_status edgemt_translate_text(edgemt_translator* translator, const char* text,
                                               const edgemt_decode_options* options, char* output, size_t capacity,
                                               size_t* length);

/* A document (UTF-8, text_length bytes: paragraphs, line breaks, blank
 * lines, indentation, CRLF) split into sentences, translated, and put back
 * with its own whitespace and lines (edgemt/document.h), into
 * output[0..capacity) as edgemt_translate_text does (EDGEMT_BUFFER_TOO_SMALL:
 * translate again with a bigger buffer). *failed (NULL: not wanted) gets how
 * many sentences failed: their source text stands in their place, and
 * edgemt_last_error says why the first did. Target prefixes and
 * alternatives do not apply. */
EDGEMT_API edgemt_status edgemt_translate_document(edgemt_translator* translator, const char* text,
                                                   size_t text_length, const edgemt_decode_options* options,
                                                   char* output, size_t capacity, size_t* length, size_t* failed);

/* The same for HTML (a page or a snippet; edgemt/html.h): the text of each
 * block translated, inline tags put back around the translated words they
 * surrounded, script, style, code, comments, attributes and translate="no"
 * copied as they are. */
EDGEMT_API edgemt_status edgemt_translate_html(edgemt_translator* translator, const char* html, size_t html_length,
                                               const edgemt_decode_options* options, char* output, size_t capacity,
                                               size_t* length, size_t* failed);

/* Texts to results (n-best, scores, ids). A source that fails does not fail
 * the call: see edgemt_results_status. The call fails for what concerns
 * every source (NULL arguments, options out of the translator's limits). */
EDGEMT_API edgemt_status edgemt_translate_batch(edgemt_translator* translator, const char* const* texts, size_t count,
                                                const edgemt_decode_options* options, edgemt_results** results);
/* Token ids to results: sources[i][0..lengths[i]), each as the model takes a
 * source (ending with </s>, unless its config says source_eos false). */
EDGEMT_API edgemt_status edgemt_translate_ids(edgemt_translator* translator, const int32_t* const* sources,
                                              const size_t* lengths, size_t count,
                                              const edgemt_decode_options* options, edgemt_results** results);

/* Scores given translations, as CTranslate2's score_batch: result i has one
 * hypothesis, targets[i] itself, whose token_log_probs are the
 * log-probabilities of its ids and then of </s>, and whose score is their
 * sum. A source that fails does not fail the call. */
EDGEMT_API edgemt_status edgemt_score_batch(edgemt_translator* translator, const char* const* sources,
                                            const char* const* targets, size_t count, edgemt_results** results);
/* The same for ids: sources as edgemt_translate_ids takes them, targets
 * without <s> and </s>. */
EDGEMT_API edgemt_status edgemt_score_ids(edgemt_translator* translator, const int32_t* const* sources,
                                          const size_t* lengths, const int32_t* const* targets,
                                          const size_t* target_lengths, size_t count, edgemt_results** results);

/* Receives each new piece of output text (UTF-8, whole characters; not
 * NUL-terminated); return nonzero to go on, 0 to stop decoding. */
typedef int (*edgemt_piece_callback)(const char* piece, size_t length, void* user_data);

/* Translates one text greedily (or by sampling; beam_size must be 1),
 * passing the translation to on_piece as it is produced: the pieces add up
 * to exactly edgemt_translate_text's output. on_piece runs on the calling
 * thread, while the translator is busy: it must not call this translator. */
EDGEMT_API edgemt_status edgemt_translate_stream(edgemt_translator* translator, const char* text,
                                                 const edgemt_decode_options* options, edgemt_piece_callback on_piece,
                                                 void* user_data);

/* A document's translation sentence by sentence: on_piece (see
 * edgemt_translate_stream) gets the output of edgemt_translate_document as
 * it is ready, in order; returning 0 stops. */
EDGEMT_API edgemt_status edgemt_translate_document_stream(edgemt_translator* translator, const char* text,
                                                          size_t text_length, const edgemt_decode_options* options,
                                                          edgemt_piece_callback on_piece, void* user_data);

/* ---- Results (they own their data, and outlive the translator) ---- */

typedef struct edgemt_hypothesis {
  size_t struct_size;             /* sizeof(edgemt_hypothesis), set by the caller */
  const char* text;               /* NUL-terminated ("" for ids-only models) */
  const int32_t* ids;             /* without </s> */
  size_t num_ids;
  float score;                    /* the normalized score it was ranked by */
  const float* token_log_probs;   /* per id, then </s>'s when it ended with </s>; NULL without scores */
  size_t num_token_log_probs;
  int32_t ended_with_eos;         /* 0: it stopped at the length limit */
  /* Added after the fields above: filled up to the caller's struct_size. */
  const int32_t* alignments;      /* return_alignments: per id, its aligned source position (ids as translated) */
  size_t num_alignments;          /* num_ids, or 0 */
  size_t num_word_alignments;     /* source word - target word pairs: edgemt_results_word_alignment */
  float confidence;               /* with scores: exp of the mean log-probability of the ids and </s> (0..1) */
  const float* word_confidences;  /* with scores: per word of text (what spaces separate), the same; else NULL */
  size_t num_word_confidences;
} edgemt_hypothesis;

EDGEMT_API size_t edgemt_results_count(const edgemt_results* results);
/* Source `index`'s own status; *message (may be NULL) gets its message ("" when OK). */
EDGEMT_API edgemt_status edgemt_results_status(const edgemt_results* results, size_t index, const char** message);
/* A warning about source `index` (e.g. truncated), or "". */
EDGEMT_API const char* edgemt_results_warning(const edgemt_results* results, size_t index);
/* Hypotheses of source `index` (num_hypotheses, or 0 when it failed). */
EDGEMT_API size_t edgemt_results_num_hypotheses(const edgemt_results* results, size_t index);
/* The k-th best hypothesis of source `index`; the pointers live as long as the results. */
EDGEMT_API edgemt_status edgemt_results_hypothesis(const edgemt_results* results, size_t index, size_t k,
                                                   edgemt_hypothesis* hypothesis);
/* The i-th (source word, target word) pair of that hypothesis's word
 * alignment (0-based words, what spaces separate; sorted by target word:
 * Moses' and fast_align's "i-j"). */
EDGEMT_API edgemt_status edgemt_results_word_alignment(const edgemt_results* results, size_t index, size_t k,
                                                       size_t i, int32_t* source_word, int32_t* target_word);
EDGEMT_API void edgemt_results_free(edgemt_results* results);

/* ---- Model sets (edgemt/catalog.h): a folder of model files, each a language pair ---- */

typedef struct edgemt_catalog edgemt_catalog;

typedef struct edgemt_catalog_options {
  size_t struct_size;            /* sizeof(edgemt_catalog_options) */
  const char* pivot_language;    /* "en": the language a pair no file holds goes through */
  size_t memory_budget_bytes;    /* 0: no limit; else the least recently used idle models are closed */
  int32_t num_threads;           /* 0: all cores */
  int32_t max_batch_size;        /* 16 */
} edgemt_catalog_options;

typedef enum edgemt_text_format {
  EDGEMT_FORMAT_TEXT = 0,        /* a paragraph, split into sentences */
  EDGEMT_FORMAT_DOCUMENT = 1,    /* whitespace and lines kept (edgemt_translate_document) */
  EDGEMT_FORMAT_HTML = 2,        /* tags kept (edgemt_translate_html) */
  EDGEMT_FORMAT_MAX_ENUM = 0x7fffffff
} edgemt_text_format;

EDGEMT_API void edgemt_catalog_options_init(edgemt_catalog_options* options);
/* Every *.edgemt file of `directory` with a language pair (others are left out). */
EDGEMT_API edgemt_status edgemt_catalog_open(const char* directory, const edgemt_catalog_options* options,
                                             edgemt_catalog** catalog);
EDGEMT_API void edgemt_catalog_free(edgemt_catalog* catalog);
/* The languages its files read or write, sorted; the strings live as long as the catalog. */
EDGEMT_API size_t edgemt_catalog_num_languages(const edgemt_catalog* catalog);
EDGEMT_API const char* edgemt_catalog_language(const edgemt_catalog* catalog, size_t index);
/* Texts from one language (or "auto": each text's language detected) to
 * another, directly or through the pivot. Each result has one hypothesis
 * (its text) or its own failure; edgemt_results_source_language and
 * edgemt_results_model tell the rest. */
EDGEMT_API edgemt_status edgemt_catalog_translate(edgemt_catalog* catalog, const char* const* texts, size_t count,
                                                  const char* from, const char* to, edgemt_text_format format,
                                                  edgemt_results** results);
/* Of a catalog's result: the source language given or detected ("" for a
 * translator's results); *confidence (may be NULL): 0-100 (100 when given). */
EDGEMT_API const char* edgemt_results_source_language(const edgemt_results* results, size_t index, float* confidence);
/* The model files result `index` went through, in order (0 for a translator's results). */
EDGEMT_API size_t edgemt_results_num_models(const edgemt_results* results, size_t index);
EDGEMT_API const char* edgemt_results_model(const edgemt_results* results, size_t index, size_t k);

/* The language of a UTF-8 text (CLD2): its code into code[0..capacity)
 * (NUL-terminated), *confidence (may be NULL) 0-100. EDGEMT_NOT_FOUND when
 * the text has too few letters to tell. */
EDGEMT_API edgemt_status edgemt_detect_language(const char* text, size_t length, char* code, size_t capacity,
                                                float* confidence);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* EDGEMT_EDGEMT_H_ */
