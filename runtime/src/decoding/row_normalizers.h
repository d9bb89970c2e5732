// Beam search's log-normalizers for the rows a step chooses from: each row's
// logits processors, then its log-sum-exp over the ids the step may choose
// (CTranslate2's log-probabilities). Rows are independent, so the model's
// threads share them (StepModel::ForEachRow).
#pragma once

#include <cstddef>
#include <cstdint>

#include "decoding/banned_ids.h"
#include "decoding/decoding_job.h"
#include "decoding/step_model.h"

namespace edgemt {

// A row of a step's logits that chooses.
struct ChoosingRow {
  int32_t sentence;
  int32_t hypothesis;  // within the sentence
  int32_t row;         // the logits row
};

// The output so far of hypothesis h of sentence s: ids + (s * beam + h) * stride.
struct Histories {
  const int32_t* ids;
  size_t beam;
  size_t stride;
};

// Run(i) rewrites rows[i]'s logits (the processors) and writes its
// normalizer to normalizers[rows[i].row].
class RowNormalizers final : public RowTask {
 public:
  RowNormalizers(const DecodingJob& job, const BannedIds& excluded, size_t step, const ChoosingRow* rows,
                 const Histories& histories, StepModel& model, float* normalizers)
      : job_(job), excluded_(excluded), step_(step), rows_(rows), histories_(histories), model_(model),
        normalizers_(normalizers) {}

  void Run(size_t i) override;

 private:
  const DecodingJob& job_;
  const BannedIds& excluded_;  // a model's banned ids, </s> before min_length
  size_t step_;
  const ChoosingRow* rows_;
  Histories histories_;
  StepModel& model_;
  float* normalizers_;
};

}  // namespace edgemt
