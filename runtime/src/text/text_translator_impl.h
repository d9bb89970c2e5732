// TextTranslator's insides (text_translator.cc translates, text_scoring.cc
// scores given translations): the model's tokenizers, the translator, the
// caches, and the steps from texts to prepared source ids and back.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "text/batching.h"
#include "edgemt/text_translator.h"
#include "edgemt/tokenizer.h"
#include "translator/planned_translator.h"
#include "text/text_parts.h"
#include "text/translation_cache.h"

namespace edgemt {

// Only spaces, tabs and line breaks: a blank source, translated as nothing.
inline bool IsBlank(const std::string& text) {
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  }
  return true;
}

// A failure of a whole call: every result holds it.
inline Status FailAll(const Status& status, std::vector<TextResult>* results) {
  for (TextResult& r : *results) r.status = status;
  return status;
}

// What a blank source gives: num_hypotheses empty translations, score 0.
inline void BlankResult(const DecodeOptions& decode, TextResult* result) {
  result->hypotheses.assign(static_cast<size_t>(decode.num_hypotheses), TextHypothesis());
}

// Scores cost a pass over the vocabulary per greedy step; beams have them
// anyway. Alignments come with hypotheses (Translator's second overload).
inline bool WithScores(const DecodeOptions& decode, bool return_scores) {
  return return_scores || decode.beam_size > 1 || decode.num_hypotheses > 1 || decode.return_alternatives ||
         decode.return_alignments;
}

struct TextTranslator::Impl {
  std::shared_ptr<const Model> model;
  TextTranslatorOptions options;
  std::unique_ptr<PlannedTranslator> translator;
  std::unique_ptr<Tokenizer> source_tokenizer;  // both or neither
  std::unique_ptr<Tokenizer> target_tokenizer;
  // Null with tokenizers; else why texts cannot be translated: the model has
  // none (kNoTokenizer, made when the library loads, so that creating a
  // translator for ids allocates no message), or the build has no
  // SentencePiece (unsupported_tokenizer).
  const Status* tokenizer_problem = nullptr;
  Status unsupported_tokenizer;
  static inline const Status kNoTokenizer{StatusCode::kNotFound,
                                          "the model has no tokenizer: translate token ids instead"};
  static inline const Status kNoProblem{};
  const Status& tokenizer_status() const { return tokenizer_problem != nullptr ? *tokenizer_problem : kNoProblem; }
  // One call at a time: the translator's arena serves one call.
  std::mutex busy;
  std::unique_ptr<TranslationCache> cache;           // options.cache_bytes
  std::unique_ptr<TranslationCache> document_cache;  // options.document_cache_bytes

  bool has_tokenizer() const { return source_tokenizer != nullptr; }

  // A model without a tokenizer still translates ids; a broken one is an error.
  Status CreateTokenizers() {
    if (model->source_tokenizer().empty() && !model->has_vocabularies()) {
      tokenizer_problem = &kNoTokenizer;
      return Status::Ok();
    }
    auto source = Tokenizer::Create(*model, Tokenizer::Side::kSource);
    if (!source.ok()) {
      if (source.status().code() != StatusCode::kUnsupported) return source.status();
      unsupported_tokenizer = source.status();
      tokenizer_problem = &unsupported_tokenizer;
      return Status::Ok();
    }
    auto target = Tokenizer::Create(*model, Tokenizer::Side::kTarget, source.value().get());
    if (!target.ok()) return target.status();
    source_tokenizer = std::move(source.value());
    target_tokenizer = std::move(target.value());
    return Status::Ok();
  }

  // Applies the length limit to a source (its </s>, if the model's sources
  // end with one, stays last).
  Status Limit(std::vector<int32_t>* ids, std::string* warning) const {
    const ModelConfig& config = model->config();
    const size_t limit = static_cast<size_t>(translator->options().max_source_length);
    if (ids->size() <= limit) return Status::Ok();
    const std::string message =
        "the source has " + std::to_string(ids->size()) + " tokens, more than the limit of " + std::to_string(limit);
    if (options.long_input == LongInput::kError) return Status(StatusCode::kInvalidArgument, message);
    *warning = message + ": translating its first " + std::to_string(limit);
    if (config.source_eos) {
      ids->resize(limit - 1);
      ids->push_back(config.eos_id);
    } else {
      ids->resize(limit);
    }
    return Status::Ok();
  }

  // `limit`: apply the length limit (else the caller splits a long source).
  Status IdsOfText(std::string_view text, std::vector<int32_t>* ids, std::string* warning, bool limit = true) const {
    EDGEMT_RETURN_IF_ERROR(source_tokenizer->Encode(text, ids));
    if (ids->empty()) return Status::Ok();  // nothing the tokenizer keeps: a blank source
    FrameSource(model->config(), ids);
    return limit ? Limit(ids, warning) : Status::Ok();
  }

  // A text whose `ids` pass the length limit, split into parts that fit
  // (long_text.h), appended to `sources` as their ids, with a warning;
  // parts->first, count and words say where they are.
  Status SplitLong(std::string_view text, size_t length, std::vector<std::vector<int32_t>>* sources,
                   TextParts* parts, std::string* warning) const;

  Status CheckIds(std::vector<int32_t>* ids, std::string* warning) const {
    const int vocab = model->config().source_vocab_size;
    for (int32_t id : *ids) {
      if (id < 0 || id >= vocab)
        return Status(StatusCode::kInvalidArgument, "id " + std::to_string(id) +
                                                        " is outside the source vocabulary (0.." +
                                                        std::to_string(vocab - 1) + ")");
    }
    if (ids->empty()) return Status::Ok();
    return Limit(ids, warning);
  }

  // The text of output ids, one line whatever pieces the vocabulary has;
  // empty without a tokenizer.
  Status TextOf(const int32_t* ids, size_t count, std::string* text) const {
    text->clear();
    if (target_tokenizer == nullptr) return Status::Ok();
    EDGEMT_RETURN_IF_ERROR(target_tokenizer->Decode(ids, count, text));
    for (char& c : *text) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return Status::Ok();
  }

  // Copies a hypothesis of `source` out of the translator's memory, with
  // its word-level alignments and confidences when it has those.
  Status Copy(const Hypothesis& h, bool with_scores, const std::vector<int32_t>& source, TextHypothesis* out) const {
    out->ids.assign(h.ids.data, h.ids.data + h.ids.size);
    out->ended_with_eos = h.ended_with_eos;
    if (with_scores) {
      out->score = h.score;
      const size_t scored = h.ids.size + (h.ended_with_eos ? 1 : 0);
      if (h.token_log_probs != nullptr) out->token_log_probs.assign(h.token_log_probs, h.token_log_probs + scored);
    }
    if (h.alignments != nullptr) out->alignments.assign(h.alignments, h.alignments + h.ids.size);
    EDGEMT_RETURN_IF_ERROR(TextOf(h.ids.data, h.ids.size, &out->text));
    return AddWordLevel(source, out);
  }

  // The word of each source id (-1: the <s> and </s> of the framing) and of
  // each output id (word_level.h).
  Status SourceWords(const std::vector<int32_t>& source, std::vector<int32_t>* words) const;
  Status TargetWords(const std::vector<int32_t>& ids, std::vector<int32_t>* words) const;
  // TextHypothesis's word_alignments, confidence and word_confidences.
  Status AddWordLevel(const std::vector<int32_t>& source, TextHypothesis* out) const;

  // Translates sources[0..count) (each ends with </s>) into results[0..count),
  // each with its target prefix (prefixes null: none).
  Status TranslateBatch(const std::vector<int32_t>* const* sources, const std::vector<int32_t>* const* prefixes,
                        size_t count, const DecodeOptions& options, bool return_scores, TextResult* const* results);

  // Translates the prepared sources (results with a failed status or blank
  // ones are left alone) shortest first, in batches of at most
  // max_batch_size sentences and max_batch_tokens padded source tokens, so
  // that a batch's sentences have similar lengths (less padding, and they
  // finish at similar steps). A batch that fails is translated one by one
  // so that only the bad source is lost.
  // `prefixes`: null, or each source's target prefix. With a cache (and no
  // on_token callback, which must see every token), a source found there
  // takes its stored hypotheses, and the others' translations are stored.
  void TranslatePrepared(std::vector<std::vector<int32_t>>& sources, const std::vector<std::vector<int32_t>>* prefixes,
                         const DecodeOptions& decode, bool return_scores, std::vector<TextResult>* results,
                         TranslationCache* cache);

  // TranslateTexts' work on texts that are each one sentence, under the
  // call's lock; source_lengths (null: not wanted) gets each text's
  // source ids as translated (a long text's parts' added up).
  Status TranslateSentences(const std::string* texts, size_t count, const DecodeOptions& decode,
                            std::vector<TextResult>* results, bool return_scores, const std::string* target_prefixes,
                            TranslationCache* cache, bool document, std::vector<size_t>* source_lengths);
  // TranslateStreaming's work on one sentence, under the call's lock, its options checked.
  Status StreamSentence(const std::string& text, const DecodeOptions& decode, const PieceCallback& on_piece,
                        TextResult* result, size_t* source_length);

  // Adds to `warning` that a text (or the text of source ids, with a
  // tokenizer) holds several sentences, where a call takes it as one: `why`.
  void WarnOfSentences(std::string_view text, const char* why, std::string* warning) const;
  void WarnOfSentences(const std::vector<int32_t>& ids, const char* why, std::string* warning) const;

  // Scores the prepared pairs in batches of max_batch_size, in order (a
  // failed batch pair by pair). A blank source scores nothing: its
  // result is the target with no log-probabilities. (text_scoring.cc)
  void ScorePrepared(const std::vector<std::vector<int32_t>>& sources, const std::vector<std::vector<int32_t>>& targets,
                     std::vector<TextResult>* results);
};

}  // namespace edgemt
