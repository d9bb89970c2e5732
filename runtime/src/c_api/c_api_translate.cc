// The C API's translating entry points and their results (edgemt/edgemt.h).
// Compiled with exceptions, as c_api.cc.
#include "c_api/c_api_support.h"
#include "edgemt/document.h"
#include "edgemt/html.h"

using namespace edgemt_c;

namespace {

// edgemt_translate_document and edgemt_translate_html.
edgemt_status TranslatePage(edgemt_translator* translator, const char* text, size_t text_length,
                            const edgemt_decode_options* options, char* output, size_t capacity, size_t* length,
                            size_t* failed, bool html) {
  return Guard([&] {
    if (length == nullptr) return Null("length");
    *length = 0;
    if (failed != nullptr) *failed = 0;
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if (text == nullptr && text_length > 0) return Null("text");
    edgemt_decode_options o;
    if (!ReadDecodeOptions(options, &o)) return EDGEMT_INVALID_ARGUMENT;
    const std::string_view page(text == nullptr ? "" : text, text_length);
    edgemt::DocumentResult result;
    const edgemt::Status status =
        html ? edgemt::TranslateHtml(*translator->translator, page, DecodeOf(o), &result)
             : edgemt::TranslateDocument(*translator->translator, page, DecodeOf(o), &result);
    if (!status.ok()) return Report(status);
    if (failed != nullptr) *failed = result.failed;
    const edgemt_status copied = CopyOut(result.text, output, capacity, length);
    if (copied == EDGEMT_OK && result.failed > 0) Report(result.first_failure);  // for edgemt_last_error
    return copied;
  });
}

}  // namespace

extern "C" {

edgemt_status edgemt_translate_text(edgemt_translator* translator, const char* text,
                                    const edgemt_decode_options* options, char* output, size_t capacity,
                                    size_t* length) {
  return Guard([&] {
    if (length == nullptr) return Null("length");
    *length = 0;
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if (text == nullptr) return Null("text");
    edgemt_decode_options o;
    if (!ReadDecodeOptions(options, &o)) return EDGEMT_INVALID_ARGUMENT;
    std::vector<edgemt::TextResult> results;
    const std::string source(text);
    const std::vector<std::string> prefixes = TextPrefixes(o, 1);
    const edgemt::Status status = translator->translator->TranslateTexts(
        &source, 1, DecodeOf(o), &results, o.return_scores != 0, prefixes.empty() ? nullptr : prefixes.data(),
        SentencesOf(o));
    if (!status.ok()) return Report(status);
    if (!results[0].status.ok()) return Report(results[0].status);
    return CopyOut(results[0].hypotheses[0].text, output, capacity, length);
  });
}


edgemt_status edgemt_translate_document(edgemt_translator* translator, const char* text, size_t text_length,
                                        const edgemt_decode_options* options, char* output, size_t capacity,
                                        size_t* length, size_t* failed) {
  return TranslatePage(translator, text, text_length, options, output, capacity, length, failed, false);
}

edgemt_status edgemt_translate_html(edgemt_translator* translator, const char* html, size_t html_length,
                                    const edgemt_decode_options* options, char* output, size_t capacity,
                                    size_t* length, size_t* failed) {
  return TranslatePage(translator, html, html_length, options, output, capacity, length, failed, true);
}

edgemt_status edgemt_translate_batch(edgemt_translator* translator, const char* const* texts, size_t count,
                                     const edgemt_decode_options* options, edgemt_results** results) {
  return Guard([&] {
    if (results == nullptr) return Null("results");
    *results = nullptr;
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if (texts == nullptr && count > 0) return Null("texts");
    edgemt_decode_options o;
    if (!ReadDecodeOptions(options, &o)) return EDGEMT_INVALID_ARGUMENT;
    std::vector<std::string> sources(count);
    for (size_t i = 0; i < count; ++i) {
      if (texts[i] == nullptr) return Null(("texts[" + std::to_string(i) + "]").c_str());
      sources[i] = texts[i];
    }
    std::unique_ptr<edgemt_results> handle(new edgemt_results);
    const std::vector<std::string> prefixes = TextPrefixes(o, count);
    const edgemt::Status status =
        translator->translator->TranslateTexts(sources.data(), count, DecodeOf(o), &handle->results,
                                               o.return_scores != 0, prefixes.empty() ? nullptr : prefixes.data(),
                                               SentencesOf(o));
    if (!status.ok()) return Report(status);
    *results = handle.release();
    return EDGEMT_OK;
  });
}

edgemt_status edgemt_translate_ids(edgemt_translator* translator, const int32_t* const* sources,
                                   const size_t* lengths, size_t count, const edgemt_decode_options* options,
                                   edgemt_results** results) {
  return Guard([&] {
    if (results == nullptr) return Null("results");
    *results = nullptr;
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if ((sources == nullptr || lengths == nullptr) && count > 0) return Null(sources == nullptr ? "sources" : "lengths");
    edgemt_decode_options o;
    if (!ReadDecodeOptions(options, &o)) return EDGEMT_INVALID_ARGUMENT;
    std::vector<std::vector<int32_t>> copies(count);
    for (size_t i = 0; i < count; ++i) {
      if (sources[i] == nullptr && lengths[i] > 0) return Null(("sources[" + std::to_string(i) + "]").c_str());
      if (lengths[i] > 0) copies[i].assign(sources[i], sources[i] + lengths[i]);
    }
    std::unique_ptr<edgemt_results> handle(new edgemt_results);
    std::vector<std::vector<int32_t>> prefixes;
    if (!IdPrefixes(o, count, &prefixes)) return EDGEMT_INVALID_ARGUMENT;
    const edgemt::Status status =
        translator->translator->TranslateIds(copies.data(), count, DecodeOf(o), &handle->results,
                                             o.return_scores != 0, prefixes.empty() ? nullptr : prefixes.data());
    if (!status.ok()) return Report(status);
    *results = handle.release();
    return EDGEMT_OK;
  });
}

edgemt_status edgemt_score_batch(edgemt_translator* translator, const char* const* sources,
                                 const char* const* targets, size_t count, edgemt_results** results) {
  return Guard([&] {
    if (results == nullptr) return Null("results");
    *results = nullptr;
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if ((sources == nullptr || targets == nullptr) && count > 0) return Null(sources == nullptr ? "sources" : "targets");
    std::vector<std::string> source_texts(count), target_texts(count);
    for (size_t i = 0; i < count; ++i) {
      if (sources[i] == nullptr) return Null(("sources[" + std::to_string(i) + "]").c_str());
      if (targets[i] == nullptr) return Null(("targets[" + std::to_string(i) + "]").c_str());
      source_texts[i] = sources[i];
      target_texts[i] = targets[i];
    }
    std::unique_ptr<edgemt_results> handle(new edgemt_results);
    const edgemt::Status status =
        translator->translator->ScoreTexts(source_texts.data(), target_texts.data(), count, &handle->results);
    if (!status.ok()) return Report(status);
    *results = handle.release();
    return EDGEMT_OK;
  });
}

edgemt_status edgemt_score_ids(edgemt_translator* translator, const int32_t* const* sources, const size_t* lengths,
                               const int32_t* const* targets, const size_t* target_lengths, size_t count,
                               edgemt_results** results) {
  return Guard([&] {
    if (results == nullptr) return Null("results");
    *results = nullptr;
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if (count > 0 && (sources == nullptr || lengths == nullptr || targets == nullptr || target_lengths == nullptr))
      return Null("sources, lengths, targets or target_lengths");
    std::vector<std::vector<int32_t>> source_ids(count), target_ids(count);
    for (size_t i = 0; i < count; ++i) {
      if ((sources[i] == nullptr && lengths[i] > 0) || (targets[i] == nullptr && target_lengths[i] > 0))
        return Null(("sources[" + std::to_string(i) + "] or targets[" + std::to_string(i) + "]").c_str());
      if (lengths[i] > 0) source_ids[i].assign(sources[i], sources[i] + lengths[i]);
      if (target_lengths[i] > 0) target_ids[i].assign(targets[i], targets[i] + target_lengths[i]);
    }
    std::unique_ptr<edgemt_results> handle(new edgemt_results);
    const edgemt::Status status =
        translator->translator->ScoreIds(source_ids.data(), target_ids.data(), count, &handle->results);
    if (!status.ok()) return Report(status);
    *results = handle.release();
    return EDGEMT_OK;
  });
}

edgemt_status edgemt_translate_stream(edgemt_translator* translator, const char* text,
                                      const edgemt_decode_options* options, edgemt_piece_callback on_piece,
                                      void* user_data) {
  return Guard([&] {
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if (text == nullptr) return Null("text");
    if (on_piece == nullptr) return Null("on_piece");
    edgemt_decode_options o;
    if (!ReadDecodeOptions(options, &o)) return EDGEMT_INVALID_ARGUMENT;
    if (o.target_prefixes != nullptr || o.target_prefix_ids != nullptr)
      return Fail(EDGEMT_INVALID_ARGUMENT, "streaming takes no target prefixes");
    edgemt::TextResult result;
    return Report(translator->translator->TranslateStreaming(
        text, DecodeOf(o),
        [&](std::string_view piece) { return on_piece(piece.data(), piece.size(), user_data) != 0; }, &result,
        SentencesOf(o)));
  });
}

edgemt_status edgemt_translate_document_stream(edgemt_translator* translator, const char* text, size_t text_length,
                                               const edgemt_decode_options* options, edgemt_piece_callback on_piece,
                                               void* user_data) {
  return Guard([&] {
    if (!Is(translator, HandleTag::kTranslator)) return NotA("translator", "a translator");
    if (text == nullptr && text_length > 0) return Null("text");
    if (on_piece == nullptr) return Null("on_piece");
    edgemt_decode_options o;
    if (!ReadDecodeOptions(options, &o)) return EDGEMT_INVALID_ARGUMENT;
    edgemt::DocumentResult result;
    const edgemt::Status status = edgemt::TranslateDocumentStreaming(
        *translator->translator, std::string_view(text == nullptr ? "" : text, text_length), DecodeOf(o),
        [&](std::string_view piece) { return on_piece(piece.data(), piece.size(), user_data) != 0; }, &result);
    if (!status.ok()) return Report(status);
    if (result.failed > 0) Report(result.first_failure);  // for edgemt_last_error
    return EDGEMT_OK;
  });
}

size_t edgemt_results_count(const edgemt_results* results) {
  return Is(results, HandleTag::kResults) ? results->results.size() : 0;
}

edgemt_status edgemt_results_status(const edgemt_results* results, size_t index, const char** message) {
  if (message != nullptr) *message = "";
  const edgemt_status access = CheckResultsAccess(results, index);
  if (access != EDGEMT_OK) return access;
  const edgemt::Status& status = results->results[index].status;
  if (message != nullptr) *message = status.message().c_str();
  return StatusOf(status.code());
}

const char* edgemt_results_warning(const edgemt_results* results, size_t index) {
  if (!Is(results, HandleTag::kResults) || index >= results->results.size()) return "";
  return results->results[index].warning.c_str();
}

size_t edgemt_results_num_hypotheses(const edgemt_results* results, size_t index) {
  if (!Is(results, HandleTag::kResults) || index >= results->results.size()) return 0;
  return results->results[index].hypotheses.size();
}

edgemt_status edgemt_results_hypothesis(const edgemt_results* results, size_t index, size_t k,
                                        edgemt_hypothesis* hypothesis) {
  if (hypothesis == nullptr) return Null("hypothesis");
  if (hypothesis->struct_size < sizeof(size_t))
    return Fail(EDGEMT_INVALID_ARGUMENT, "hypothesis->struct_size is not set (sizeof(edgemt_hypothesis))");
  const edgemt_status access = CheckResultsAccess(results, index);
  if (access != EDGEMT_OK) return access;
  const auto& hypotheses = results->results[index].hypotheses;
  if (k >= hypotheses.size())
    return Fail(EDGEMT_INVALID_ARGUMENT, "hypothesis " + std::to_string(k) + " is outside the " +
                                             std::to_string(hypotheses.size()) + " of result " + std::to_string(index));
  const edgemt::TextHypothesis& h = hypotheses[k];
  edgemt_hypothesis out;
  out.struct_size = hypothesis->struct_size;
  out.text = h.text.c_str();
  out.ids = h.ids.data();
  out.num_ids = h.ids.size();
  out.score = h.score;
  out.token_log_probs = h.token_log_probs.empty() ? nullptr : h.token_log_probs.data();
  out.num_token_log_probs = h.token_log_probs.size();
  out.ended_with_eos = h.ended_with_eos ? 1 : 0;
  out.alignments = h.alignments.empty() ? nullptr : h.alignments.data();
  out.num_alignments = h.alignments.size();
  out.num_word_alignments = h.word_alignments.size();
  out.confidence = h.confidence;
  out.word_confidences = h.word_confidences.empty() ? nullptr : h.word_confidences.data();
  out.num_word_confidences = h.word_confidences.size();
  std::memcpy(hypothesis, &out, hypothesis->struct_size < sizeof(out) ? hypothesis->struct_size : sizeof(out));
  return EDGEMT_OK;
}

edgemt_status edgemt_results_word_alignment(const edgemt_results* results, size_t index, size_t k, size_t i,
                                            int32_t* source_word, int32_t* target_word) {
  if (source_word == nullptr || target_word == nullptr) return Null("source_word or target_word");
  const edgemt_status access = CheckResultsAccess(results, index);
  if (access != EDGEMT_OK) return access;
  const auto& hypotheses = results->results[index].hypotheses;
  if (k >= hypotheses.size() || i >= hypotheses[k].word_alignments.size())
    return Fail(EDGEMT_INVALID_ARGUMENT, "no word alignment pair " + std::to_string(i) + " in hypothesis " +
                                             std::to_string(k) + " of result " + std::to_string(index));
  *source_word = hypotheses[k].word_alignments[i].first;
  *target_word = hypotheses[k].word_alignments[i].second;
  return EDGEMT_OK;
}

void edgemt_results_free(edgemt_results* results) { FreeHandle(results, HandleTag::kResults); }

}  // extern "C"
