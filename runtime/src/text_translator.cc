#include "edgemt/text_translator.h"

#include <algorithm>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#include "edgemt/tokenizer.h"
#include "streaming_text.h"

namespace edgemt {
namespace {

bool IsBlank(const std::string& text) {
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  }
  return true;
}

// Runs `run(items, count)` over `items` in consecutive batches: a batch ends
// at `capacity` items, and (max_tokens > 0) before its items x the length
// of the one to add would pass max_tokens. A batch that fails runs again
// item by item, so that only a bad item's result holds its failure.
template <typename Length, typename Run>
void RunInBatches(const std::vector<size_t>& items, size_t capacity, size_t max_tokens, Length length, Run run,
                  std::vector<TextResult>* results) {
  std::vector<size_t> batch;
  auto flush = [&]() {
    if (batch.empty()) return;
    if (!run(batch.data(), batch.size()).ok()) {
      for (size_t item : batch) {
        const Status status = run(&item, 1);
        if (!status.ok()) (*results)[item].status = status;
      }
    }
    batch.clear();
  };
  for (size_t item : items) {
    if (max_tokens > 0 && !batch.empty() && (batch.size() + 1) * length(item) > max_tokens) flush();
    batch.push_back(item);
    if (batch.size() == capacity) flush();
  }
  flush();
}

// What a blank source gives: num_hypotheses empty translations, score 0.
void BlankResult(const DecodeOptions& decode, TextResult* result) {
  result->hypotheses.assign(static_cast<size_t>(decode.num_hypotheses), TextHypothesis());
}

}  // namespace

struct TextTranslator::Impl {
  std::shared_ptr<const Model> model;
  TextTranslatorOptions options;
  std::unique_ptr<Translator> translator;
  std::unique_ptr<Tokenizer> source_tokenizer;  // both or neither
  std::unique_ptr<Tokenizer> target_tokenizer;
  // Ok with tokenizers; else why texts cannot be translated (the model has
  // none, or the build has no SentencePiece).
  Status tokenizer_status;
  // One call at a time: the translator's arena serves one call.
  std::mutex busy;

  bool has_tokenizer() const { return source_tokenizer != nullptr; }

  // A model without a tokenizer still translates ids; a broken one is an error.
  Status CreateTokenizers() {
    auto source = Tokenizer::Create(*model, Tokenizer::Side::kSource);
    if (!source.ok()) {
      const StatusCode code = source.status().code();
      if (code == StatusCode::kNotFound)
        tokenizer_status = Status(code, "the model has no tokenizer: translate token ids instead");
      else if (code == StatusCode::kUnsupported)
        tokenizer_status = source.status();
      else
        return source.status();
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

  Status IdsOfText(const std::string& text, std::vector<int32_t>* ids, std::string* warning) const {
    EDGEMT_RETURN_IF_ERROR(source_tokenizer->Encode(text, ids));
    if (ids->empty()) return Status::Ok();  // nothing the tokenizer keeps: a blank source
    FrameSource(model->config(), ids);
    return Limit(ids, warning);
  }

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

  // Copies a hypothesis out of the translator's memory.
  Status Copy(const Hypothesis& h, bool with_scores, TextHypothesis* out) const {
    out->ids.assign(h.ids.data, h.ids.data + h.ids.size);
    out->ended_with_eos = h.ended_with_eos;
    if (with_scores) {
      out->score = h.score;
      const size_t scored = h.ids.size + (h.ended_with_eos ? 1 : 0);
      if (h.token_log_probs != nullptr) out->token_log_probs.assign(h.token_log_probs, h.token_log_probs + scored);
    }
    return TextOf(h.ids.data, h.ids.size, &out->text);
  }

  // Translates sources[0..count) (each ends with </s>) into results[0..count),
  // each with its target prefix (prefixes null: none).
  Status TranslateBatch(const std::vector<int32_t>* const* sources, const std::vector<int32_t>* const* prefixes,
                        size_t count, const DecodeOptions& options, bool return_scores, TextResult* const* results) {
    // Scores cost a pass over the vocabulary per greedy step; beams have them anyway.
    const bool with_scores =
        return_scores || options.beam_size > 1 || options.num_hypotheses > 1 || options.return_alternatives;
    const size_t per_source = static_cast<size_t>(options.num_hypotheses);
    std::vector<TokenIds> inputs(count);
    for (size_t s = 0; s < count; ++s) inputs[s] = TokenIds{sources[s]->data(), sources[s]->size()};
    std::vector<TokenIds> prefix_ids(prefixes != nullptr ? count : 0);
    for (size_t s = 0; s < prefix_ids.size(); ++s) prefix_ids[s] = TokenIds{prefixes[s]->data(), prefixes[s]->size()};
    DecodeOptions decode = options;
    decode.target_prefixes = prefixes != nullptr ? prefix_ids.data() : nullptr;
    std::vector<Hypothesis> hypotheses(count * per_source);
    if (with_scores) {
      EDGEMT_RETURN_IF_ERROR(translator->Translate(inputs.data(), count, hypotheses.data(), decode));
    } else {
      std::vector<TokenIds> outputs(count);
      EDGEMT_RETURN_IF_ERROR(translator->Translate(inputs.data(), count, outputs.data(), decode));
      for (size_t s = 0; s < count; ++s) hypotheses[s].ids = outputs[s];
    }
    for (size_t s = 0; s < count; ++s) {
      results[s]->hypotheses.assign(per_source, TextHypothesis());
      for (size_t k = 0; k < per_source; ++k) {
        const Status status = Copy(hypotheses[s * per_source + k], with_scores, &results[s]->hypotheses[k]);
        if (!status.ok()) {
          results[s]->status = status;
          results[s]->hypotheses.clear();
          break;
        }
      }
    }
    return Status::Ok();
  }

  // Translates the prepared sources (results with a failed status or blank
  // ones are left alone) shortest first, in batches of at most
  // max_batch_size sentences and max_batch_tokens padded source tokens, so
  // that a batch's sentences have similar lengths (less padding, and they
  // finish at similar steps). A batch that fails is translated one by one
  // so that only the bad source is lost.
  // `prefixes`: null, or each source's target prefix.
  void TranslatePrepared(std::vector<std::vector<int32_t>>& sources, const std::vector<std::vector<int32_t>>* prefixes,
                         const DecodeOptions& decode, bool return_scores, std::vector<TextResult>* results) {
    std::vector<size_t> order;
    for (size_t i = 0; i < sources.size(); ++i) {
      TextResult& result = (*results)[i];
      if (!result.status.ok()) continue;
      if (sources[i].empty()) {
        BlankResult(decode, &result);
        // As in CTranslate2, a blank source's translations are its prefix.
        if (prefixes != nullptr && !(*prefixes)[i].empty()) {
          for (TextHypothesis& h : result.hypotheses) {
            h.ids = (*prefixes)[i];
            h.token_log_probs.assign(h.ids.size(), 0.0f);
            result.status = TextOf(h.ids.data(), h.ids.size(), &h.text);
          }
        }
        continue;
      }
      order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&sources](size_t a, size_t b) { return sources[a].size() < sources[b].size(); });
    // Alternatives are decoded as num_hypotheses sentences each.
    const size_t capacity = std::max<size_t>(
        1, static_cast<size_t>(translator->options().max_batch_size) /
               (decode.return_alternatives ? static_cast<size_t>(decode.num_hypotheses) : 1));
    std::vector<const std::vector<int32_t>*> batch, batch_prefixes;
    std::vector<TextResult*> batch_results;
    auto translate = [&](const size_t* items, size_t count) {
      batch.clear();
      batch_prefixes.clear();
      batch_results.clear();
      for (size_t k = 0; k < count; ++k) {
        batch.push_back(&sources[items[k]]);
        if (prefixes != nullptr) batch_prefixes.push_back(&(*prefixes)[items[k]]);
        batch_results.push_back(&(*results)[items[k]]);
      }
      return TranslateBatch(batch.data(), prefixes != nullptr ? batch_prefixes.data() : nullptr, count, decode,
                            return_scores, batch_results.data());
    };
    // Sorted: each source is its batch's longest so far.
    RunInBatches(order, capacity, options.max_batch_tokens, [&sources](size_t i) { return sources[i].size(); },
                 translate, results);
  }

  // Scores the prepared pairs in batches of max_batch_size, in order (a
  // failed batch pair by pair). A blank source scores nothing: its
  // result is the target with no log-probabilities.
  void ScorePrepared(const std::vector<std::vector<int32_t>>& sources, const std::vector<std::vector<int32_t>>& targets,
                     std::vector<TextResult>* results) {
    std::vector<size_t> order;
    for (size_t i = 0; i < sources.size(); ++i) {
      TextResult& r = (*results)[i];
      if (!r.status.ok()) continue;
      if (sources[i].empty()) {
        r.hypotheses.assign(1, TextHypothesis());
        r.hypotheses[0].ids = targets[i];
        r.status = TextOf(targets[i].data(), targets[i].size(), &r.hypotheses[0].text);
        continue;
      }
      order.push_back(i);
    }
    auto score = [&](const size_t* items, size_t count) {
      std::vector<TokenIds> source_ids(count), target_ids(count);
      for (size_t k = 0; k < count; ++k) {
        source_ids[k] = TokenIds{sources[items[k]].data(), sources[items[k]].size()};
        target_ids[k] = TokenIds{targets[items[k]].data(), targets[items[k]].size()};
      }
      std::vector<Hypothesis> scored(count);
      EDGEMT_RETURN_IF_ERROR(translator->Score(source_ids.data(), target_ids.data(), count, scored.data()));
      for (size_t k = 0; k < count; ++k) {
        TextResult& r = (*results)[items[k]];
        r.hypotheses.assign(1, TextHypothesis());
        r.status = Copy(scored[k], /*with_scores=*/true, &r.hypotheses[0]);
      }
      return Status::Ok();
    };
    RunInBatches(order, static_cast<size_t>(translator->options().max_batch_size), /*max_tokens=*/0,
                 [](size_t) { return size_t{0}; }, score, results);
  }
};

TextTranslator::TextTranslator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TextTranslator::~TextTranslator() = default;

Result<std::unique_ptr<TextTranslator>> TextTranslator::Create(std::shared_ptr<const Model> model,
                                                               const TextTranslatorOptions& options) {
  if (model == nullptr) return Status(StatusCode::kInvalidArgument, "the model is null");
  auto impl = std::unique_ptr<Impl>(new (std::nothrow) Impl);
  if (!impl) return Status(StatusCode::kResourceExhausted, "out of memory");
  impl->model = std::move(model);
  impl->options = options;
  EDGEMT_RETURN_IF_ERROR(impl->CreateTokenizers());
  auto translator = Translator::Create(impl->model, options.translator);
  if (!translator.ok()) return translator.status();
  impl->translator = std::move(translator.value());
  impl->options.translator = impl->translator->options();
  return std::unique_ptr<TextTranslator>(new (std::nothrow) TextTranslator(std::move(impl)));
}

namespace {

// What fails a whole call before any source is looked at.
Status CheckCall(const Translator& translator, const DecodeOptions& decode) {
  if (decode.target_prefixes != nullptr)
    return Status(StatusCode::kInvalidArgument, "give the text layer its target prefixes as an argument, one per source");
  return translator.CheckOptions(decode);
}

Status FailAll(const Status& status, std::vector<TextResult>* results) {
  for (TextResult& r : *results) r.status = status;
  return status;
}

}  // namespace

Status TextTranslator::TranslateTexts(const std::string* texts, size_t count, const DecodeOptions& decode,
                                      std::vector<TextResult>* results, bool return_scores,
                                      const std::string* target_prefixes) {
  std::lock_guard<std::mutex> lock(impl_->busy);
  results->assign(count, TextResult());
  Status status = CheckCall(*impl_->translator, decode);
  if (status.ok()) status = impl_->tokenizer_status;
  if (status.ok() && texts == nullptr && count > 0) status = Status(StatusCode::kInvalidArgument, "texts is null");
  if (!status.ok()) return FailAll(status, results);
  std::vector<std::vector<int32_t>> sources(count);
  std::vector<std::vector<int32_t>> prefixes(target_prefixes != nullptr ? count : 0);
  for (size_t i = 0; i < count; ++i) {
    TextResult& r = (*results)[i];
    if (target_prefixes != nullptr) r.status = impl_->target_tokenizer->Encode(target_prefixes[i], &prefixes[i]);
    if (IsBlank(texts[i]) || !r.status.ok()) continue;
    r.status = impl_->IdsOfText(texts[i], &sources[i], &r.warning);
  }
  impl_->TranslatePrepared(sources, target_prefixes != nullptr ? &prefixes : nullptr, decode, return_scores, results);
  return Status::Ok();
}

Status TextTranslator::TranslateIds(const std::vector<int32_t>* sources, size_t count, const DecodeOptions& decode,
                                    std::vector<TextResult>* results, bool return_scores,
                                    const std::vector<int32_t>* target_prefixes) {
  std::lock_guard<std::mutex> lock(impl_->busy);
  results->assign(count, TextResult());
  Status status = CheckCall(*impl_->translator, decode);
  if (status.ok() && sources == nullptr && count > 0) status = Status(StatusCode::kInvalidArgument, "sources is null");
  if (!status.ok()) return FailAll(status, results);
  std::vector<std::vector<int32_t>> prepared(sources, sources + count);
  std::vector<std::vector<int32_t>> prefixes;
  if (target_prefixes != nullptr) prefixes.assign(target_prefixes, target_prefixes + count);
  for (size_t i = 0; i < count; ++i) {
    TextResult& r = (*results)[i];
    r.status = impl_->CheckIds(&prepared[i], &r.warning);
  }
  impl_->TranslatePrepared(prepared, target_prefixes != nullptr ? &prefixes : nullptr, decode, return_scores,
                           results);
  return Status::Ok();
}

Status TextTranslator::ScoreTexts(const std::string* sources, const std::string* targets, size_t count,
                                  std::vector<TextResult>* results) {
  std::lock_guard<std::mutex> lock(impl_->busy);
  results->assign(count, TextResult());
  Status status = impl_->tokenizer_status;
  if (status.ok() && (sources == nullptr || targets == nullptr) && count > 0)
    status = Status(StatusCode::kInvalidArgument, "sources or targets is null");
  if (!status.ok()) return FailAll(status, results);
  std::vector<std::vector<int32_t>> source_ids(count);
  std::vector<std::vector<int32_t>> target_ids(count);
  for (size_t i = 0; i < count; ++i) {
    TextResult& r = (*results)[i];
    r.status = impl_->target_tokenizer->Encode(targets[i], &target_ids[i]);
    if (r.status.ok() && !IsBlank(sources[i])) r.status = impl_->IdsOfText(sources[i], &source_ids[i], &r.warning);
  }
  impl_->ScorePrepared(source_ids, target_ids, results);
  return Status::Ok();
}

Status TextTranslator::ScoreIds(const std::vector<int32_t>* sources, const std::vector<int32_t>* targets,
                                size_t count, std::vector<TextResult>* results) {
  std::lock_guard<std::mutex> lock(impl_->busy);
  results->assign(count, TextResult());
  if ((sources == nullptr || targets == nullptr) && count > 0)
    return FailAll(Status(StatusCode::kInvalidArgument, "sources or targets is null"), results);
  std::vector<std::vector<int32_t>> source_ids(sources, sources + count);
  std::vector<std::vector<int32_t>> target_ids(targets, targets + count);
  for (size_t i = 0; i < count; ++i) {
    TextResult& r = (*results)[i];
    r.status = impl_->CheckIds(&source_ids[i], &r.warning);
  }
  impl_->ScorePrepared(source_ids, target_ids, results);
  return Status::Ok();
}

Status TextTranslator::TranslateStreaming(const std::string& text, const DecodeOptions& decode,
                                          const PieceCallback& on_piece, TextResult* result) {
  if (result == nullptr) return Status(StatusCode::kInvalidArgument, "result is null");
  std::lock_guard<std::mutex> lock(impl_->busy);
  *result = TextResult();
  Status status = impl_->translator->CheckOptions(decode);
  if (status.ok() && decode.beam_size != 1)
    status = Status(StatusCode::kInvalidArgument, "streaming needs beam_size 1 (greedy or sampling)");
  if (status.ok() && decode.num_hypotheses != 1)
    status = Status(StatusCode::kInvalidArgument, "streaming gives one hypothesis (num_hypotheses 1)");
  if (status.ok() && decode.on_token != nullptr)
    status = Status(StatusCode::kInvalidArgument, "streaming sets on_token itself");
  if (status.ok()) status = impl_->tokenizer_status;
  if (status.ok() && !on_piece) status = Status(StatusCode::kInvalidArgument, "on_piece is empty");
  if (!status.ok()) {
    result->status = status;
    return status;
  }
  std::vector<int32_t> source;
  if (!IsBlank(text)) result->status = impl_->IdsOfText(text, &source, &result->warning);
  if (!result->status.ok()) return result->status;
  if (source.empty()) {
    BlankResult(decode, result);
    return Status::Ok();
  }
  // Each new id: the text of all ids so far, of which the settled part not yet sent goes out.
  StreamingText stream([this](const int32_t* ids, size_t count, std::string* out) {
    return impl_->TextOf(ids, count, out);
  }, on_piece);
  DecodeOptions streaming = decode;
  streaming.on_token = [](void* user_data, size_t, int32_t id) { return static_cast<StreamingText*>(user_data)->Add(id); };
  streaming.on_token_user_data = &stream;
  const std::vector<int32_t>* one = &source;
  TextResult* out = result;
  status = impl_->TranslateBatch(&one, nullptr, 1, streaming, /*return_scores=*/false, &out);
  if (!status.ok()) result->status = status;
  if (!result->status.ok()) return result->status;
  if (!stream.stopped()) result->status = stream.Finish(result->hypotheses[0].text);
  return result->status;
}

const Model& TextTranslator::model() const { return *impl_->model; }
Translator& TextTranslator::translator() { return *impl_->translator; }
const TextTranslatorOptions& TextTranslator::options() const { return impl_->options; }
bool TextTranslator::has_tokenizer() const { return impl_->has_tokenizer(); }
const Status& TextTranslator::tokenizer_status() const { return impl_->tokenizer_status; }

DecodeOptions ModelDecodeDefaults(const ModelConfig& config, int max_beam_size, bool greedy_only) {
  DecodeOptions decode;
  if (!greedy_only && config.default_beam_size > 1) decode.beam_size = std::min(config.default_beam_size, max_beam_size);
  decode.max_length = config.default_max_length;
  decode.length_penalty = config.default_length_penalty;
  return decode;
}

void FrameSource(const ModelConfig& config, std::vector<int32_t>* ids) {
  if (ids->empty()) return;
  if (config.source_bos) ids->insert(ids->begin(), config.bos_id);
  if (config.source_eos) ids->push_back(config.eos_id);
}

int ModelMaxBeamSize(const ModelConfig& config) { return std::max(1, config.default_beam_size); }

}  // namespace edgemt
