#include "decoding/scoring.h"

#include "decoding/log_sum_exp.h"

namespace edgemt {

Status ScoreTargets(const DecodingJob& job, const TokenIds* targets, StepModel& model, DecodingScratch& scratch,
                    GreedyBuffers& b) {
  const size_t vocab = static_cast<size_t>(job.config->target_vocab_size);
  const size_t stride = job.max_target + 1;
  size_t rows = job.count;
  for (size_t s = 0; s < job.count; ++s) {
    scratch.row_slots[s] = static_cast<int32_t>(s);
    scratch.row_tokens[s] = job.config->decoder_start_id;
  }
  for (size_t step = 0; rows > 0; ++step) {
    EDGEMT_RETURN_IF_ERROR(model.Step(scratch.row_tokens, scratch.row_slots, rows, /*per_source=*/1, step));
    const auto start = std::chrono::steady_clock::now();
    size_t kept = 0;
    for (size_t r = 0; r < rows; ++r) {
      const size_t s = static_cast<size_t>(scratch.row_slots[r]);
      const TokenIds& target = targets[s];
      const bool inside = step < target.size;
      const int32_t expected = inside ? target.data[step] : job.config->eos_id;
      const float* row = model.logits() + r * vocab;
      b.output_log_probs[s * stride + step] = row[expected] - LogSumExp(row, vocab);
      if (!inside) continue;
      scratch.row_slots[kept] = static_cast<int32_t>(s);  // kept <= r: compacts in place
      scratch.row_tokens[kept] = expected;
      ++kept;
    }
    rows = kept;
    AddChoiceTime(job.profile, start);
  }
  for (size_t s = 0; s < job.count; ++s) {
    Hypothesis& h = job.hypotheses[s];
    h.ids = targets[s];
    h.token_log_probs = b.output_log_probs + s * stride;
    h.ended_with_eos = true;
    float sum = 0.0f;
    for (size_t i = 0; i <= targets[s].size; ++i) sum += h.token_log_probs[i];
    h.score = sum;
  }
  return Status::Ok();
}

}  // namespace edgemt
