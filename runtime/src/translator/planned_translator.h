// The text layer's Translator, with a memory plan that fits the work it is
// given. Planned at its limits (the CLI's defaults: 16 sentences of the
// model's 256 positions), the Multi30k arena is 105 MB, to translate one
// short line. Here the plan starts small (one sentence of 64 ids, one beam)
// and grows between calls, when a call's batch, source, output length or
// beam is larger than any before: never while translating, never beyond
// the limits, which stay what calls are checked against. Growing makes a
// new Translator (the packed weights are the model's, shared), after the
// old one's arena is freed. A caller's own arena is planned once, at the
// limits.
#pragma once

#include <cstddef>
#include <memory>

#include "edgemt/model.h"
#include "edgemt/status.h"
#include "edgemt/translator.h"

namespace edgemt {

// What a plan is made for (TranslatorOptions' max_* sizes).
struct PlanSizes {
  size_t batch = 1;
  size_t source = 1;  // ids, </s> included
  size_t target = 1;  // output ids
  size_t beam = 1;
};

class PlannedTranslator {
 public:
  // `on_demand` false: planned once, at the limits (as Translator::Create).
  static Result<std::unique_ptr<PlannedTranslator>> Create(std::shared_ptr<const Model> model,
                                                           const TranslatorOptions& options, bool on_demand);

  // The options with their defaults resolved: the limits.
  const TranslatorOptions& options() const { return limits_; }
  // A call's decoding options against the limits (Translator::CheckOptions).
  Status CheckOptions(const DecodeOptions& decode) const;

  // Translator's Translate and Score, the plan grown first when they need it.
  Status Translate(const TokenIds* sources, size_t count, TokenIds* outputs, const DecodeOptions& decode);
  Status Translate(const TokenIds* sources, size_t count, Hypothesis* hypotheses, const DecodeOptions& decode);
  Status Score(const TokenIds* sources, const TokenIds* targets, size_t count, Hypothesis* results);

  // The translator of the current plan (a later call may replace it), and
  // its arena; null and 0 after a plan could not be made.
  Translator* current() { return translator_.get(); }
  size_t arena_bytes() const { return translator_ ? translator_->arena_bytes() : 0; }

 private:
  PlannedTranslator(std::shared_ptr<const Model> model, const TranslatorOptions& limits, bool on_demand);
  // Makes sure the plan covers `work`; the translator to use.
  Result<Translator*> For(const PlanSizes& work);
  PlanSizes Needed(const TokenIds* sources, size_t count, const DecodeOptions& decode) const;

  std::shared_ptr<const Model> model_;
  TranslatorOptions limits_;  // resolved
  bool on_demand_;
  std::unique_ptr<Translator> translator_;  // its options() are the current plan
};

}  // namespace edgemt
