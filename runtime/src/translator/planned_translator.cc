#include "translator/planned_translator.h"

#include <algorithm>
#include <new>
#include <utility>

#include "model/model_state.h"
#include "translator/request_checks.h"

namespace edgemt {
namespace {

// The first plan: one sentence of up to 64 ids, one beam, and the longest
// output the limits allow (calls that leave max_length to the model need it).
constexpr size_t kFirstSource = 64;

// Sizes grow in steps, so that a file whose lines grow a little at a time
// does not make a new plan for each: batches to a power of two, sources to
// a multiple of 64 ids.
size_t RoundBatch(size_t n) {
  size_t rounded = 1;
  while (rounded < n) rounded *= 2;
  return rounded;
}
size_t RoundSource(size_t n) { return (n + kFirstSource - 1) / kFirstSource * kFirstSource; }

PlanSizes SizesOf(const TranslatorOptions& options) {
  return PlanSizes{static_cast<size_t>(options.max_batch_size), static_cast<size_t>(options.max_source_length),
                   static_cast<size_t>(options.max_target_length), static_cast<size_t>(options.max_beam_size)};
}

}  // namespace

PlannedTranslator::PlannedTranslator(std::shared_ptr<const Model> model, const TranslatorOptions& limits,
                                     bool on_demand)
    : model_(std::move(model)), limits_(limits), on_demand_(on_demand && limits.arena == nullptr) {}

Result<std::unique_ptr<PlannedTranslator>> PlannedTranslator::Create(std::shared_ptr<const Model> model,
                                                                     const TranslatorOptions& options, bool on_demand) {
  if (model == nullptr) return Status(StatusCode::kInvalidArgument, "the model is null");
  TranslatorOptions limits = options;
  EDGEMT_RETURN_IF_ERROR(ResolveTranslatorOptions(model->config(), &limits));
  std::unique_ptr<PlannedTranslator> self(new (std::nothrow) PlannedTranslator(std::move(model), limits, on_demand));
  if (!self) return Status(StatusCode::kResourceExhausted, "out of memory");
  // Made now, so that what fails for every call (XNNPACK on this CPU, the
  // packed cache, no memory even for the first plan) fails here.
  PlanSizes first = SizesOf(limits);
  if (self->on_demand_) first = PlanSizes{1, std::min(kFirstSource, first.source), first.target, 1};
  auto made = self->For(first);
  if (!made.ok()) return made.status();
  return self;
}

Status PlannedTranslator::CheckOptions(const DecodeOptions& decode) const {
  return CheckDecodeOptions(decode, LimitsOf(limits_, StateOf(*model_).weights), model_->config().decoder_layers);
}

Result<Translator*> PlannedTranslator::For(const PlanSizes& work) {
  // The larger of each size and the current plan's, in steps, within the
  // limits (past them the translator refuses the call, as it would at the limits).
  PlanSizes next = work;
  const PlanSizes plan = translator_ ? SizesOf(translator_->options()) : PlanSizes{};
  if (translator_) {
    next.batch = std::max(next.batch, plan.batch);
    next.source = std::max(next.source, plan.source);
    next.target = std::max(next.target, plan.target);
    next.beam = std::max(next.beam, plan.beam);
  }
  next.batch = std::min(RoundBatch(next.batch), static_cast<size_t>(limits_.max_batch_size));
  next.source = std::min(RoundSource(next.source), static_cast<size_t>(limits_.max_source_length));
  next.target = std::min(next.target, static_cast<size_t>(limits_.max_target_length));
  next.beam = std::min(next.beam, static_cast<size_t>(limits_.max_beam_size));
  if (translator_ && next.batch <= plan.batch && next.source <= plan.source && next.target <= plan.target &&
      next.beam <= plan.beam)
    return translator_.get();
  TranslatorOptions options = limits_;
  options.max_batch_size = static_cast<int>(next.batch);
  options.max_source_length = static_cast<int>(next.source);
  options.max_target_length = static_cast<int>(next.target);
  options.max_beam_size = static_cast<int>(next.beam);
  translator_.reset();  // its arena goes first: the two are never held together
  auto created = Translator::Create(model_, options);
  if (!created.ok()) return created.status();  // the next call plans again, for its own work only
  translator_ = std::move(created.value());
  return translator_.get();
}

PlanSizes PlannedTranslator::Needed(const TokenIds* sources, size_t count, const DecodeOptions& decode) const {
  PlanSizes work;
  // Alternatives are decoded as num_hypotheses sentences each.
  work.batch = std::max<size_t>(1, count) *
               (decode.return_alternatives ? static_cast<size_t>(std::max(1, decode.num_hypotheses)) : 1);
  for (size_t s = 0; s < count && sources != nullptr; ++s) work.source = std::max(work.source, sources[s].size);
  // Decoding stops at max_length, or at the plan's output length when the call leaves it to the model.
  work.target = decode.max_length > 0 ? static_cast<size_t>(decode.max_length)
                                      : static_cast<size_t>(limits_.max_target_length);
  work.beam = static_cast<size_t>(std::max(1, decode.beam_size));
  return work;
}

Status PlannedTranslator::Translate(const TokenIds* sources, size_t count, TokenIds* outputs,
                                    const DecodeOptions& decode) {
  auto translator = For(Needed(sources, count, decode));
  if (!translator.ok()) return translator.status();
  return translator.value()->Translate(sources, count, outputs, decode);
}

Status PlannedTranslator::Translate(const TokenIds* sources, size_t count, Hypothesis* hypotheses,
                                    const DecodeOptions& decode) {
  auto translator = For(Needed(sources, count, decode));
  if (!translator.ok()) return translator.status();
  return translator.value()->Translate(sources, count, hypotheses, decode);
}

Status PlannedTranslator::Score(const TokenIds* sources, const TokenIds* targets, size_t count, Hypothesis* results) {
  PlanSizes work = Needed(sources, count, DecodeOptions());
  work.target = 1;
  for (size_t s = 0; s < count && targets != nullptr; ++s) work.target = std::max(work.target, targets[s].size + 1);
  auto translator = For(work);
  if (!translator.ok()) return translator.status();
  return translator.value()->Score(sources, targets, count, results);
}

}  // namespace edgemt
