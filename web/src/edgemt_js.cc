// The WebAssembly module's one class, `Session` (embind): a model's bytes,
// the Model read from them and a TextTranslator, with JavaScript values in
// and out. web/js/edgemt.mjs builds the public API on it; errors come back
// as values ({error: message}) that it turns into exceptions, since the
// runtime is built without C++ exceptions.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "edgemt/document.h"
#include "edgemt/html.h"
#include "edgemt/model.h"
#include "js_values.h"
#include "edgemt/text_translator.h"

namespace {

using emscripten::val;

using edgemt_js::ArrayOf;
using edgemt_js::Error;

template <typename T>
T Field(const val& options, const char* name, T fallback) {
  if (options.isUndefined() || options.isNull()) return fallback;
  const val v = options[name];
  if (v.isUndefined() || v.isNull()) return fallback;
  return v.as<T>();
}

// Decoding options: the model's own defaults (its beam size, length
// penalty...) as the CLI takes them, then what the call gives.
edgemt::DecodeOptions DecodeOptionsOf(const edgemt::TextTranslator& translator, const val& options) {
  const edgemt::TextTranslatorOptions& resolved = translator.options();
  edgemt::DecodeOptions d = edgemt::ModelDecodeDefaults(translator.model().config(),
                                                        resolved.translator.max_beam_size);
  d.beam_size = Field(options, "beamSize", d.beam_size);
  d.num_hypotheses = Field(options, "numHypotheses", d.num_hypotheses);
  d.length_penalty = Field(options, "lengthPenalty", d.length_penalty);
  d.max_length = Field(options, "maxLength", d.max_length);
  d.min_length = Field(options, "minLength", d.min_length);
  d.sampling_topk = Field(options, "samplingTopk", d.sampling_topk);
  d.sampling_topp = Field(options, "samplingTopp", d.sampling_topp);
  d.sampling_temperature = Field(options, "samplingTemperature", d.sampling_temperature);
  d.sampling_seed = static_cast<uint64_t>(Field(options, "samplingSeed", static_cast<double>(d.sampling_seed)));
  d.repetition_penalty = Field(options, "repetitionPenalty", d.repetition_penalty);
  d.no_repeat_ngram_size = Field(options, "noRepeatNgramSize", d.no_repeat_ngram_size);
  d.disable_unk = Field(options, "disableUnk", d.disable_unk);
  d.use_shortlist = Field(options, "useShortlist", d.use_shortlist);
  d.return_alignments = Field(options, "returnAlignments", d.return_alignments);
  return d;
}

val ResultOf(const edgemt::TextResult& result) {
  val out = val::object();
  if (!result.status.ok()) out.set("error", result.status.message());
  if (!result.warning.empty()) out.set("warning", result.warning);
  val hypotheses = val::array();
  for (size_t k = 0; k < result.hypotheses.size(); ++k) {
    const edgemt::TextHypothesis& h = result.hypotheses[k];
    val hyp = val::object();
    hyp.set("text", h.text);
    hyp.set("score", h.score);
    hyp.set("ids", ArrayOf(h.ids));
    hyp.set("endedWithEos", h.ended_with_eos);
    if (!h.token_log_probs.empty()) {
      hyp.set("tokenLogProbs", ArrayOf(h.token_log_probs));
      hyp.set("confidence", h.confidence);
    }
    if (!h.word_alignments.empty()) {
      val pairs = val::array();
      for (size_t i = 0; i < h.word_alignments.size(); ++i) {
        val pair = val::array();
        pair.set(0, h.word_alignments[i].first);
        pair.set(1, h.word_alignments[i].second);
        pairs.set(i, pair);
      }
      hyp.set("wordAlignments", pairs);
    }
    hypotheses.set(k, hyp);
  }
  out.set("hypotheses", hypotheses);
  return out;
}

// A text is a paragraph unless options.splitSentences is false.
edgemt::Sentences SentencesOf(const val& options) {
  return Field(options, "splitSentences", true) ? edgemt::Sentences::kSplit : edgemt::Sentences::kOnePerText;
}

class Session {
 public:
  Session() = default;
  ~Session() { Close(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // A buffer for the model file, 64-byte aligned as Model::FromBuffer asks;
  // 0 when the WebAssembly memory cannot hold it. JavaScript copies the
  // file there, then calls Open.
  uintptr_t Reserve(double size) {
    Close();
    if (!(size > 0) || size > static_cast<double>(SIZE_MAX - 64)) return 0;
    size_ = static_cast<size_t>(size);
    bytes_ = std::aligned_alloc(64, (size_ + 63) / 64 * 64);
    if (bytes_ == nullptr) size_ = 0;
    return reinterpret_cast<uintptr_t>(bytes_);
  }

  // Reads the reserved bytes as a model and makes its translator; {} or {error}.
  val Open(const val& options) {
    if (bytes_ == nullptr) return Error("no model bytes (Reserve first)");
    auto model = edgemt::Model::FromBuffer(bytes_, size_);
    if (!model.ok()) return Error(model.status().message());
    edgemt::TextTranslatorOptions o;
    o.translator.num_threads = Field(options, "threads", 1);
    if (o.translator.num_threads < 1) return Error("threads must be at least 1");
#if !defined(__EMSCRIPTEN_PTHREADS__)
    if (o.translator.num_threads > 1)
      return Error("threads: " + std::to_string(o.translator.num_threads) +
                   " asked, but this edgemt.wasm is the single-threaded build (the threaded one runs more)");
#endif
    o.translator.max_batch_size = Field(options, "maxBatchSize", 16);
    o.translator.max_beam_size = Field(options, "maxBeamSize", edgemt::ModelMaxBeamSize(model.value()->config()));
    o.translator.max_source_length = Field(options, "maxSourceLength", 0);
    o.translator.max_target_length = Field(options, "maxTargetLength", 0);
    o.cache_bytes = static_cast<size_t>(Field(options, "cacheBytes", 0.0));
    auto translator = edgemt::TextTranslator::Create(model.value(), o);
    if (!translator.ok()) return Error(translator.status().message());
    translator_ = std::move(translator.value());
    return val::object();
  }

  val Info() const {
    if (!translator_) return Error("no model");
    const edgemt::Model& m = translator_->model();
    val out = val::object();
    out.set("sourceLanguage", std::string(m.source_language()));
    out.set("targetLanguage", std::string(m.target_language()));
    out.set("fileBytes", static_cast<double>(m.file_size()));
    out.set("int8", m.is_int8());
    out.set("hasShortlist", m.has_shortlist());
    out.set("hasTokenizer", translator_->has_tokenizer());
    out.set("maxBatchSize", translator_->options().translator.max_batch_size);
    out.set("maxBeamSize", translator_->options().translator.max_beam_size);
    out.set("sourceVocabSize", m.config().source_vocab_size);
    out.set("targetVocabSize", m.config().target_vocab_size);
    out.set("maxPositions", m.config().max_positions);
    out.set("threads", translator_->options().translator.num_threads);
    return out;
  }

  // texts: an array of strings; {results: [...]} or {error}.
  val Translate(const val& texts, const val& options) {
    if (!translator_) return Error("no model");
    const std::vector<std::string> sources = emscripten::vecFromJSArray<std::string>(texts);
    std::vector<edgemt::TextResult> results;
    const bool scores = Field(options, "returnScores", false);
    const edgemt::Status status =
        translator_->TranslateTexts(sources.data(), sources.size(), DecodeOptionsOf(*translator_, options), &results,
                                    scores, nullptr, SentencesOf(options));
    if (!status.ok()) return Error(status.message());
    val out = val::object();
    val list = val::array();
    for (size_t i = 0; i < results.size(); ++i) list.set(i, ResultOf(results[i]));
    out.set("results", list);
    return out;
  }

  // Calls onPiece(piece) as the translation grows; onPiece returning false
  // stops it. {result} or {error}.
  val TranslateStreaming(const std::string& text, const val& options, const val& on_piece) {
    if (!translator_) return Error("no model");
    edgemt::TextResult result;
    const edgemt::Status status = translator_->TranslateStreaming(
        text, DecodeOptionsOf(*translator_, options),
        [&on_piece](std::string_view piece) { return on_piece(std::string(piece)).as<bool>(); }, &result,
        SentencesOf(options));
    if (!status.ok()) return Error(status.message());
    val out = val::object();
    out.set("result", ResultOf(result));
    return out;
  }

  // A document (plain text, or HTML when html is true): {text, sentences,
  // failed, firstFailure} or {error}. With onPiece (not undefined), the
  // translation also comes out piece by piece, in order.
  val TranslateDocument(const std::string& text, const val& options, bool html, const val& on_piece) {
    if (!translator_) return Error("no model");
    const edgemt::DecodeOptions decode = DecodeOptionsOf(*translator_, options);
    edgemt::DocumentResult result;
    edgemt::Status status;
    if (html) {
      status = edgemt::TranslateHtml(*translator_, text, decode, &result);
    } else if (on_piece.isUndefined()) {
      status = edgemt::TranslateDocument(*translator_, text, decode, &result);
    } else {
      status = edgemt::TranslateDocumentStreaming(
          *translator_, text, decode,
          [&on_piece](std::string_view piece) { return on_piece(std::string(piece)).as<bool>(); }, &result);
    }
    if (!status.ok()) return Error(status.message());
    val out = val::object();
    out.set("text", result.text);
    out.set("sentences", static_cast<double>(result.sentences));
    out.set("failed", static_cast<double>(result.failed));
    if (!result.first_failure.ok()) out.set("firstFailure", result.first_failure.message());
    return out;
  }

  // Releases the translator, the model and its bytes (in that order: the
  // bytes must outlive both).
  void Close() {
    translator_.reset();
    std::free(bytes_);
    bytes_ = nullptr;
    size_ = 0;
  }

 private:
  void* bytes_ = nullptr;
  size_t size_ = 0;
  std::unique_ptr<edgemt::TextTranslator> translator_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(edgemt) {
  emscripten::class_<Session>("Session")
      .constructor<>()
      .function("reserve", &Session::Reserve)
      .function("open", &Session::Open)
      .function("info", &Session::Info)
      .function("translate", &Session::Translate)
      .function("translateStreaming", &Session::TranslateStreaming)
      .function("translateDocument", &Session::TranslateDocument)
      .function("close", &Session::Close);
}
