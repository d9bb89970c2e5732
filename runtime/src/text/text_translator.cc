#include "edgemt/text_translator.h"

#include <algorithm>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#include "decoding/decoding_job.h"
#include "text/long_text.h"
#include "text/sentence_splitter.h"
#include "text/text_parts.h"
#include "text/text_translator_impl.h"
#include "text/word_level.h"

namespace edgemt {
namespace {

// A cache of `bytes` in *cache (none for 0); false when memory runs out.
bool MakeCache(size_t bytes, std::unique_ptr<TranslationCache>* cache) {
  if (bytes == 0) return true;
  cache->reset(new (std::nothrow) TranslationCache(bytes));
  return *cache != nullptr;
}

}  // namespace

Status TextTranslator::Impl::SourceWords(const std::vector<int32_t>& source, std::vector<int32_t>* words) const {
  const ModelConfig& config = model->config();
  std::vector<uint8_t> starts(source.size(), 1), skip(source.size(), 0);
  if (config.source_bos && !source.empty() && source.front() == config.bos_id) skip.front() = 1;
  if (config.source_eos && !source.empty() && source.back() == config.eos_id) skip.back() = 1;
  if (source_tokenizer != nullptr) {
    // The ids between the framing are the tokenizer's.
    const size_t first = skip.empty() ? 0 : skip.front(), last = source.size() - (skip.empty() ? 0 : skip.back());
    std::vector<uint8_t> inner;
    if (last > first) EDGEMT_RETURN_IF_ERROR(source_tokenizer->WordStarts(source.data() + first, last - first, &inner));
    std::copy(inner.begin(), inner.end(), starts.begin() + static_cast<std::ptrdiff_t>(first));
  }
  *words = WordsOf(starts, &skip);
  return Status::Ok();
}

Status TextTranslator::Impl::TargetWords(const std::vector<int32_t>& ids, std::vector<int32_t>* words) const {
  std::vector<uint8_t> starts(ids.size(), 1);
  if (target_tokenizer != nullptr) EDGEMT_RETURN_IF_ERROR(target_tokenizer->WordStarts(ids.data(), ids.size(), &starts));
  *words = WordsOf(starts);
  return Status::Ok();
}

Status TextTranslator::Impl::AddWordLevel(const std::vector<int32_t>& source, TextHypothesis* out) const {
  if (out->alignments.empty() && out->token_log_probs.empty()) return Status::Ok();
  std::vector<int32_t> target_words;
  EDGEMT_RETURN_IF_ERROR(TargetWords(out->ids, &target_words));
  if (!out->alignments.empty()) {
    std::vector<int32_t> source_words;
    EDGEMT_RETURN_IF_ERROR(SourceWords(source, &source_words));
    out->word_alignments = WordAlignments(source_words, target_words, out->alignments);
  }
  if (!out->token_log_probs.empty()) {
    out->confidence = SentenceConfidence(out->token_log_probs);
    const size_t words = target_words.empty() ? 0 : static_cast<size_t>(target_words.back() + 1);
    out->word_confidences = WordConfidences(out->token_log_probs, target_words, words);
  }
  return Status::Ok();
}

Status TextTranslator::Impl::TranslateBatch(const std::vector<int32_t>* const* sources,
                                            const std::vector<int32_t>* const* prefixes, size_t count,
                                            const DecodeOptions& options, bool return_scores,
                                            TextResult* const* results) {
  const bool with_scores = WithScores(options, return_scores);
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
      const Status status =
          Copy(hypotheses[s * per_source + k], with_scores, *sources[s], &results[s]->hypotheses[k]);
      if (!status.ok()) {
        results[s]->status = status;
        results[s]->hypotheses.clear();
        break;
      }
    }
  }
  return Status::Ok();
}

void TextTranslator::Impl::TranslatePrepared(std::vector<std::vector<int32_t>>& sources,
                                             const std::vector<std::vector<int32_t>>* prefixes,
                                             const DecodeOptions& decode, bool return_scores,
                                             std::vector<TextResult>* results, TranslationCache* cache) {
  if (decode.on_token != nullptr) cache = nullptr;
  std::vector<std::string> keys(cache != nullptr ? sources.size() : 0);
  std::vector<size_t> order;
  for (size_t i = 0; i < sources.size(); ++i) {
    TextResult& result = (*results)[i];
    if (!result.status.ok()) continue;
    if (sources[i].empty()) {
      BlankResult(decode, &result);
      // As in CTranslate2, a blank source's translations are its prefix, cut
      // at the length limit as any prefix is (DecodeOptions::target_prefixes).
      if (prefixes != nullptr && !(*prefixes)[i].empty()) {
        const std::vector<int32_t>& prefix = (*prefixes)[i];
        const size_t limit = StepsLimit(decode, model->config().default_max_length_factor, 0, prefix.size(),
                                        static_cast<size_t>(translator->options().max_target_length));
        for (TextHypothesis& h : result.hypotheses) {
          h.ids.assign(prefix.begin(), prefix.begin() + static_cast<std::ptrdiff_t>(std::min(limit, prefix.size())));
          h.token_log_probs.assign(h.ids.size(), 0.0f);
          result.status = TextOf(h.ids.data(), h.ids.size(), &h.text);
        }
      }
      continue;
    }
    if (cache != nullptr) {
      keys[i] = TranslationCache::KeyOf(decode, WithScores(decode, return_scores), sources[i],
                                        prefixes != nullptr ? &(*prefixes)[i] : nullptr);
      if (const std::vector<TextHypothesis>* found = cache->Find(keys[i])) {
        result.hypotheses = *found;
        continue;
      }
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
  if (cache == nullptr) return;
  for (size_t i : order) {
    if ((*results)[i].status.ok()) cache->Insert(keys[i], (*results)[i].hypotheses);
  }
}

Status TextTranslator::Impl::SplitLong(std::string_view text, size_t length,
                                       std::vector<std::vector<int32_t>>* sources, TextParts* text_parts,
                                       std::string* warning) const {
  const size_t limit = static_cast<size_t>(translator->options().max_source_length);
  std::vector<int32_t> ids;
  std::string unused;
  auto length_of = [&](std::string_view part) {
    return IdsOfText(part, &ids, &unused, /*limit=*/false).ok() ? ids.size() : limit + 1;
  };
  const std::vector<std::string> parts = SplitLongText(text, limit, length_of);
  text_parts->first = sources->size();
  for (const std::string& part : parts) {
    sources->emplace_back();
    ++text_parts->count;
    text_parts->words.push_back(WordSpans(part).size());  // all three grow together, whatever follows
    EDGEMT_RETURN_IF_ERROR(IdsOfText(part, &sources->back(), &unused));  // a lone character may still be cut
  }
  *warning = "the source has " + std::to_string(length) + " tokens, more than the limit of " +
             std::to_string(limit) + ": translated in " + std::to_string(parts.size()) + " parts";
  return Status::Ok();
}

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
  auto translator = PlannedTranslator::Create(impl->model, options.translator, options.plan_for_work);
  if (!translator.ok()) return translator.status();
  impl->translator = std::move(translator.value());
  impl->options.translator = impl->translator->options();
  if (!MakeCache(options.cache_bytes, &impl->cache) || !MakeCache(options.document_cache_bytes, &impl->document_cache))
    return Status(StatusCode::kResourceExhausted, "out of memory");
  std::unique_ptr<TextTranslator> made(new (std::nothrow) TextTranslator(std::move(impl)));
  if (!made) return Status(StatusCode::kResourceExhausted, "out of memory");
  return made;
}

namespace {

// What fails a whole call before any source is looked at.
Status CheckCall(const PlannedTranslator& translator, const DecodeOptions& decode) {
  if (decode.target_prefixes != nullptr)
    return Status(StatusCode::kInvalidArgument, "give the text layer its target prefixes as an argument, one per source");
  return translator.CheckOptions(decode);
}

// Whether a call's results can be joined from its sources' sentences: one
// hypothesis each, no prefixes and no alternatives (which are per sentence).
bool Splittable(const DecodeOptions& decode, const std::string* target_prefixes) {
  return target_prefixes == nullptr && decode.num_hypotheses == 1 && !decode.return_alternatives;
}

constexpr const char* kPerSentence = "n-best lists, alternatives and target prefixes are per sentence";

}  // namespace

void TextTranslator::Impl::WarnOfSentences(std::string_view text, const char* why, std::string* warning) const {
  const size_t count = SplitTextSentences(text, model->source_language()).size();
  if (count < 2) return;
  if (!warning->empty()) warning->append("; ");
  *warning += "the source holds " + std::to_string(count) + " sentences, translated as one (" + why + ")";
}

void TextTranslator::Impl::WarnOfSentences(const std::vector<int32_t>& ids, const char* why,
                                           std::string* warning) const {
  if (source_tokenizer == nullptr || ids.empty()) return;
  const ModelConfig& config = model->config();
  const size_t first = config.source_bos && ids.front() == config.bos_id ? 1 : 0;
  size_t last = ids.size();
  if (config.source_eos && last > first && ids[last - 1] == config.eos_id) --last;
  std::string text;
  if (last > first && source_tokenizer->Decode(ids.data() + first, last - first, &text).ok())
    WarnOfSentences(text, why, warning);
}

Status TextTranslator::TranslateTexts(const std::string* texts, size_t count, const DecodeOptions& decode,
                                      std::vector<TextResult>* results, bool return_scores,
                                      const std::string* target_prefixes, Sentences sentences) {
  return TranslateTextsCached(texts, count, decode, results, return_scores, target_prefixes, impl_->cache.get(),
                              /*document=*/false, sentences);
}

Status TextTranslator::TranslateTextsCached(const std::string* texts, size_t count, const DecodeOptions& decode,
                                            std::vector<TextResult>* results, bool return_scores,
                                            const std::string* target_prefixes, TranslationCache* cache,
                                            bool document, Sentences sentences) {
  std::lock_guard<std::mutex> lock(impl_->busy);
  results->assign(count, TextResult());
  Status status = CheckCall(*impl_->translator, decode);
  if (status.ok()) status = impl_->tokenizer_status();
  if (status.ok() && texts == nullptr && count > 0) status = Status(StatusCode::kInvalidArgument, "texts is null");
  if (!status.ok()) return FailAll(status, results);
  if (sentences == Sentences::kOnePerText || !Splittable(decode, target_prefixes)) {
    EDGEMT_RETURN_IF_ERROR(impl_->TranslateSentences(texts, count, decode, results, return_scores, target_prefixes,
                                                     cache, document, nullptr));
    for (size_t i = 0; i < count && sentences == Sentences::kSplit; ++i)
      impl_->WarnOfSentences(texts[i], kPerSentence, &(*results)[i].warning);
    return Status::Ok();
  }
  // Each text's sentences as sources of their own, all in one call.
  std::vector<std::string> split;
  std::vector<TextParts> parts(count);
  for (size_t i = 0; i < count; ++i) SplitParagraph(texts[i], impl_->model->source_language(), &split, &parts[i]);
  std::vector<TextResult> split_results;
  std::vector<size_t> split_ids;
  const Status call = impl_->TranslateSentences(split.data(), split.size(), decode, &split_results, return_scores,
                                                nullptr, cache, document, &split_ids);
  if (!call.ok()) return FailAll(call, results);
  for (size_t i = 0; i < count; ++i) {
    if (parts[i].count == 0)
      (*results)[i] = std::move(split_results[parts[i].first]);
    else
      JoinParts(split_results, parts[i], &split_ids, &(*results)[i]);
  }
  return Status::Ok();
}

Status TextTranslator::Impl::TranslateSentences(const std::string* texts, size_t count, const DecodeOptions& decode,
                                                std::vector<TextResult>* results, bool return_scores,
                                                const std::string* target_prefixes, TranslationCache* cache,
                                                bool document, std::vector<size_t>* source_lengths) {
  results->assign(count, TextResult());
  const LongInput long_input = options.long_input;
  const bool split = target_prefixes == nullptr &&
                     (long_input == LongInput::kSplit || (document && long_input != LongInput::kError));
  const size_t limit = static_cast<size_t>(translator->options().max_source_length);
  std::vector<std::vector<int32_t>> sources(count);
  std::vector<std::vector<int32_t>> prefixes(target_prefixes != nullptr ? count : 0);
  std::vector<TextParts> parts(count);  // a long source's parts among `sources`
  if (source_lengths != nullptr) source_lengths->assign(count, 0);
  for (size_t i = 0; i < count; ++i) {
    TextResult& r = (*results)[i];
    if (target_prefixes != nullptr) r.status = target_tokenizer->Encode(target_prefixes[i], &prefixes[i]);
    if (IsBlank(texts[i]) || !r.status.ok()) continue;
    r.status = IdsOfText(texts[i], &sources[i], &r.warning, /*limit=*/!split);
    if (!split || !r.status.ok() || sources[i].size() <= limit) continue;
    r.status = SplitLong(texts[i], sources[i].size(), &sources, &parts[i], &r.warning);
    sources[i].clear();  // translated as its parts
  }
  if (source_lengths != nullptr) {
    for (size_t i = 0; i < count; ++i) {
      (*source_lengths)[i] = sources[i].size();
      for (size_t p = parts[i].first; p < parts[i].first + parts[i].count; ++p) (*source_lengths)[i] += sources[p].size();
    }
  }
  results->resize(sources.size());
  TranslatePrepared(sources, target_prefixes != nullptr ? &prefixes : nullptr, decode, return_scores, results, cache);
  for (size_t i = 0; i < count; ++i) {
    if (parts[i].count > 0) JoinParts(*results, parts[i], nullptr, &(*results)[i]);
  }
  results->resize(count);
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
    if (r.status.ok()) impl_->WarnOfSentences(prepared[i], "ids are translated as they are given", &r.warning);
  }
  impl_->TranslatePrepared(prepared, target_prefixes != nullptr ? &prefixes : nullptr, decode, return_scores,
                           results, impl_->cache.get());
  return Status::Ok();
}

const Model& TextTranslator::model() const { return *impl_->model; }
Translator* TextTranslator::translator() { return impl_->translator->current(); }
size_t TextTranslator::arena_bytes() const { return impl_->translator->arena_bytes(); }
const TextTranslatorOptions& TextTranslator::options() const { return impl_->options; }
bool TextTranslator::has_tokenizer() const { return impl_->has_tokenizer(); }
const Status& TextTranslator::tokenizer_status() const { return impl_->tokenizer_status(); }

Status TextTranslator::TranslateSentences(const std::string* sentences, size_t count, const DecodeOptions& decode,
                                          SentenceCache cache, std::vector<TextResult>* results) {
  TranslationCache* chosen = cache == SentenceCache::kTexts       ? impl_->cache.get()
                             : cache == SentenceCache::kDocuments ? impl_->document_cache.get()
                                                                  : nullptr;
  return TranslateTextsCached(sentences, count, decode, results, /*return_scores=*/false,
                              /*target_prefixes=*/nullptr, chosen, /*document=*/true, Sentences::kOnePerText);
}

TranslationCacheStats TextTranslator::cache_stats() const {
  std::lock_guard<std::mutex> lock(impl_->busy);
  return impl_->cache != nullptr ? impl_->cache->stats() : TranslationCacheStats();
}

TranslationCacheStats TextTranslator::document_cache_stats() const {
  std::lock_guard<std::mutex> lock(impl_->busy);
  return impl_->document_cache != nullptr ? impl_->document_cache->stats() : TranslationCacheStats();
}

}  // namespace edgemt
