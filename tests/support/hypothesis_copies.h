// Unit-test helpers for what Translator::Translate returns: a translator
// made for a test model's batch and beam, and hypotheses copied out of its
// memory (which the next call reuses). Header-only: doctest's REQUIRE stops
// the test case that calls them.
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "edgemt/translator.h"
#include "test_model.h"

namespace edgemt::testing {

inline std::unique_ptr<Translator> MakeTranslator(const TestModel& test, int batch, int beam) {
  TranslatorOptions options;
  options.max_batch_size = batch;
  options.max_beam_size = beam;
  options.num_threads = 1;
  auto translator = Translator::Create(test.model, options);
  REQUIRE_MESSAGE(translator.ok(), translator.status().ToString());
  return std::move(translator.value());
}

// A hypothesis copied out of the translator's memory; equal only bit for bit.
struct HypothesisCopy {
  std::vector<int32_t> ids;
  std::vector<float> log_probs;
  float score = 0.0f;
  bool eos = false;
  bool operator==(const HypothesisCopy& o) const {
    return ids == o.ids && log_probs == o.log_probs && std::memcmp(&score, &o.score, sizeof(float)) == 0 &&
           eos == o.eos;
  }
};

// Translates sources[0..count) and copies out count x num_hypotheses hypotheses.
inline std::vector<HypothesisCopy> TranslateCopies(Translator& translator, const TokenIds* sources, size_t count,
                                                   const DecodeOptions& decode) {
  std::vector<Hypothesis> hyps(count * static_cast<size_t>(decode.num_hypotheses));
  const Status status = translator.Translate(sources, count, hyps.data(), decode);
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  std::vector<HypothesisCopy> out;
  for (const Hypothesis& h : hyps) {
    const size_t scored = h.token_log_probs == nullptr ? 0 : h.ids.size + (h.ended_with_eos ? 1 : 0);
    out.push_back(HypothesisCopy{std::vector<int32_t>(h.ids.data, h.ids.data + h.ids.size),
                                 std::vector<float>(h.token_log_probs, h.token_log_probs + scored), h.score,
                                 h.ended_with_eos});
  }
  return out;
}

}  // namespace edgemt::testing
