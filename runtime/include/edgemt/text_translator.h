// Text in, text out: the rules every front end shares (edgemt-translate, the
// C API, the Python module), so that all of them give the same outputs.
// A TextTranslator tokenizes with the model's SentencePiece model, sorts
// the sources of a call by length and splits them into batches of at most
// max_batch_size sentences (and max_batch_tokens), translates, detokenizes
// and returns the results in the caller's order. Batching changes no
// output: a batch gives exactly its sentences' one-by-one translations.
// One source's failure (a bad id, an over-long source with
// LongInput::kError) is that source's result; the others are unaffected.
// Calls are serialized: a second thread's call waits for the first (give
// each thread its own TextTranslator to translate in parallel). Unlike
// Translator, this layer allocates (strings and result vectors).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/status.h"
#include "edgemt/text_result.h"
#include "edgemt/translator.h"

namespace edgemt {

class TranslationCache;

// What a text is: a paragraph, translated sentence by sentence (the
// default: models are trained on sentences, and a second sentence given as
// part of one is often dropped), or one sentence, translated as it is.
// Split, a text's sentences (SplitSentences' rules with the model's source
// language; a line break ends one too) are translated as sources of their
// own, batched and cached with the call's other sentences, and joined with
// the text's own whitespace (line breaks as spaces); each hypothesis's ids,
// log-probabilities, word confidences and alignments follow one another,
// its score is their sum, its confidence that of all its log-probabilities.
// Calls whose results are per sentence (target prefixes, num_hypotheses >
// 1, alternatives; scoring; ids) translate a text as one sentence and say
// in its warning when it holds more than one.
enum class Sentences { kSplit, kOnePerText };

// A source longer than max_source_length: its first max_source_length - 1
// ids and </s> are translated (with a warning), or it fails, or (texts) it
// is split at its best inner boundaries into parts that fit (after a
// semicolon or colon, then a comma, then a space; runtime/src/text/long_text.h)
// and translated whole: the parts' translations joined with a space, with
// a warning. TranslateDocument splits unless kError.
enum class LongInput { kTruncate, kError, kSplit };

struct TextTranslatorOptions {
  // The limits: the largest batch, source, output and beam a call may ask.
  TranslatorOptions translator;
  // The memory plan fits the work instead: it starts at one sentence of 64
  // ids and grows between calls to the largest a call needed (for the
  // Multi30k model the limits' 16 x 256 positions need a 105.8 MB arena,
  // one short line 3.2 MB). false, or an arena of the caller's
  // (TranslatorOptions::arena): planned once, at the limits.
  bool plan_for_work = true;
  LongInput long_input = LongInput::kTruncate;
  // A batch also stops growing before its sentences x its longest source
  // (the padded source tokens the encoder computes) would pass this; a
  // source alone is never refused by it. 0: max_batch_size bounds it alone.
  size_t max_batch_tokens = 0;
  // Translations kept for sources seen before (a bounded LRU cache of this
  // many bytes; the key: decoding options, scores asked for or not, target
  // prefix, source ids). A hit returns exactly what translating again would.
  // 0: no cache (the core's default): TranslateTexts and TranslateIds.
  size_t cache_bytes = 0;
  // The same for the sentences of TranslateDocument (document.h), on by
  // default: a page or a document translated again costs nothing for the
  // sentences already seen. 0: none.
  size_t document_cache_bytes = size_t{32} << 20;
};

class TextTranslator {
 public:
  static Result<std::unique_ptr<TextTranslator>> Create(std::shared_ptr<const Model> model,
                                                        const TextTranslatorOptions& options = {});
  ~TextTranslator();
  TextTranslator(const TextTranslator&) = delete;
  TextTranslator& operator=(const TextTranslator&) = delete;

  // results->size() == count afterwards. The returned status fails only for
  // what concerns every source (decoding options the translator refuses,
  // no tokenizer for texts); then results holds that status for each.
  // Scores and token log-probabilities are filled with beam search, n-best
  // or return_scores (greedy scores cost a pass over the vocabulary a step).
  // target_prefixes: null, or per source the text its translation starts
  // with (DecodeOptions::target_prefixes, which must stay null here; an
  // empty text: no prefix). The hypotheses include it.
  Status TranslateTexts(const std::string* texts, size_t count, const DecodeOptions& decode,
                        std::vector<TextResult>* results, bool return_scores = false,
                        const std::string* target_prefixes = nullptr, Sentences sentences = Sentences::kSplit);
  // Source ids as Translator takes them (ending with </s>: nothing is
  // added); target prefixes as target ids (no <s> or </s>).
  Status TranslateIds(const std::vector<int32_t>* sources, size_t count, const DecodeOptions& decode,
                      std::vector<TextResult>* results, bool return_scores = false,
                      const std::vector<int32_t>* target_prefixes = nullptr);

  // Scores given translations (Translator::Score): each result's one
  // hypothesis is targets[i] (its text, ids), token_log_probs those of
  // its ids and then of </s>, and score their sum. A blank source scores
  // nothing (no log-probabilities).
  Status ScoreTexts(const std::string* sources, const std::string* targets, size_t count,
                    std::vector<TextResult>* results);
  Status ScoreIds(const std::vector<int32_t>* sources, const std::vector<int32_t>* targets, size_t count,
                  std::vector<TextResult>* results);

  // Which translation cache TranslateSentences goes through: the one of
  // TranslateTexts (cache_bytes), the one of documents
  // (document_cache_bytes), or none.
  enum class SentenceCache { kTexts, kDocuments, kNone };
  // Sentences a caller has split already (the document and HTML layers),
  // each translated as one source through the chosen cache; a sentence
  // longer than max_source_length is split unless long_input is kError.
  Status TranslateSentences(const std::string* sentences, size_t count, const DecodeOptions& decode,
                            SentenceCache cache, std::vector<TextResult>* results);

  // One text, decoded greedily or by sampling (beam_size 1): on_piece gets
  // the output text as the decoder produces it. Pieces are whole UTF-8
  // characters, and their concatenation is exactly result->hypotheses[0].text.
  // When on_piece returns false decoding stops there: the result holds the
  // ids so far and their text (ended_with_eos false), of which the pieces
  // sent are a prefix. on_piece must not throw.
  // A paragraph (Sentences::kSplit) streams sentence after sentence, the
  // whitespace between them as pieces of its own.
  Status TranslateStreaming(const std::string& text, const DecodeOptions& decode, const PieceCallback& on_piece,
                            TextResult* result, Sentences sentences = Sentences::kSplit);

  const Model& model() const;
  // The translator of the current memory plan (not serialized with the
  // calls above; a later call may replace it when the plan grows); null
  // when the last plan could not be made (the next call plans again).
  Translator* translator();
  // The current plan's arena (0: none), within the limits' (Translator::ArenaBytes).
  size_t arena_bytes() const;
  const TextTranslatorOptions& options() const;  // with the translator's defaults resolved
  bool has_tokenizer() const;                    // texts in and out need it
  // Ok with a tokenizer; else why texts cannot be translated: the model has
  // none (kNotFound) or the build has no SentencePiece (kUnsupported).
  const Status& tokenizer_status() const;
  // The caches of TranslateTexts/TranslateIds and of TranslateDocument
  // (all zeros when there is none).
  TranslationCacheStats cache_stats() const;
  TranslationCacheStats document_cache_stats() const;

 private:
  // TranslateTexts through `cache` (null: none); `document`: long sources
  // are split unless long_input is kError.
  Status TranslateTextsCached(const std::string* texts, size_t count, const DecodeOptions& decode,
                              std::vector<TextResult>* results, bool return_scores,
                              const std::string* target_prefixes, TranslationCache* cache, bool document,
                              Sentences sentences);

  struct Impl;
  explicit TextTranslator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The decoding a model file asks for (a Marian model's num_beams and
// max_length), for the options a caller leaves to the model: one rule for
// the CLI, the C API and Python. beam_size is the model's, at most
// max_beam_size, or 1 when the model states none or the call is greedy only
// (sampling, streaming); max_length is the model's (0: the translator's
// rule); length_penalty the model's (1 when it states none, DecodeOptions'
// default). Every other field keeps DecodeOptions' default.
DecodeOptions ModelDecodeDefaults(const ModelConfig& config, int max_beam_size, bool greedy_only = false);

// The max_beam_size a translator needs for the model's own beam size.
int ModelMaxBeamSize(const ModelConfig& config);

// A source's ids as the model takes them: <s> before them and </s> after
// them when its config says so (source_bos, source_eos). No ids stay none
// (a blank source).
void FrameSource(const ModelConfig& config, std::vector<int32_t>* ids);

}  // namespace edgemt
