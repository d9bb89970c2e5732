// Scoring given translations through the text layer (TextTranslator's
// ScoreTexts and ScoreIds, over Translator::Score).
#include <mutex>
#include <string>
#include <vector>

#include "edgemt/text_translator.h"
#include "text/text_translator_impl.h"

namespace edgemt {

void TextTranslator::Impl::ScorePrepared(const std::vector<std::vector<int32_t>>& sources,
                                         const std::vector<std::vector<int32_t>>& targets,
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
      r.status = Copy(scored[k], /*with_scores=*/true, sources[items[k]], &r.hypotheses[0]);
    }
    return Status::Ok();
  };
  RunInBatches(order, static_cast<size_t>(translator->options().max_batch_size), /*max_tokens=*/0,
               [](size_t) { return size_t{0}; }, score, results);
}

Status TextTranslator::ScoreTexts(const std::string* sources, const std::string* targets, size_t count,
                                  std::vector<TextResult>* results) {
  std::lock_guard<std::mutex> lock(impl_->busy);
  results->assign(count, TextResult());
  Status status = impl_->tokenizer_status();
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

}  // namespace edgemt
