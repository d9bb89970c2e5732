#include "decoding/decoding_job.h"

#include <algorithm>
#include <cmath>

namespace edgemt {

void DecodingScratch::Plan(size_t batch, size_t rows, size_t vocab, ArenaLayout* layout) {
  layout->Add(&row_tokens, rows);
  layout->Add(&row_slots, rows);
  layout->Add(&row_alignments, rows);
  layout->Add(&states, batch);
  layout->Add(&probs, vocab);
  layout->Add(&ids, vocab);
}

size_t StepsLimit(const DecodeOptions& options, float length_factor, size_t source_size, size_t prefix_size,
                  size_t max_target) {
  if (options.max_length > 0) return static_cast<size_t>(options.max_length);
  if (length_factor > 0.0f) {
    // Marian stops at step t once t + 1 >= factor x source length, in float.
    const float steps = std::ceil(length_factor * static_cast<float>(source_size));
    return std::min(static_cast<size_t>(steps) + prefix_size, max_target);
  }
  return std::min(2 * source_size + 10 + prefix_size, max_target);
}

size_t DecodingJob::StepsFor(size_t s) const {
  if (step_limits != nullptr) return static_cast<size_t>(step_limits[s]);
  return StepsLimit(*options, config->default_max_length_factor, SourceOf(s).size, PrefixOf(s).size, max_target);
}

void DecodingJob::ApplyProcessors(size_t s, const int32_t* output, size_t produced, float* logits,
                                  const OutputColumns& columns) const {
  if (!processors.active()) return;
  const size_t from = std::min(ScoredFrom(s), produced);
  ApplyLogitsProcessors(processors, output + from, produced - from, logits, columns);
}

BannedIds ModelBans(const ModelConfig& config, bool greedy) {
  BannedIds banned;
  if (config.states_banned_ids) {
    for (int i = 0; i < config.banned_count; ++i) banned.Add(config.banned_ids[i]);
  } else if (!greedy) {
    banned.Add(config.pad_id);
    banned.Add(config.unk_id);
    banned.Add(config.bos_id);
  }
  return banned;
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void AddChoiceTime(TranslationProfile* profile, std::chrono::steady_clock::time_point start) {
  if (profile == nullptr) return;
  const double ms = MillisecondsSince(start);
  profile->other_ms += ms;
  profile->decoder_ms += ms;
}

}  // namespace edgemt
