// What the decoding loops (greedy.h, beam_search.h) ask of the model: one
// decoder step over the rows they choose, its logits, and, for beam search,
// moving self-attention cache rows to the hypotheses that survive. The
// translator implements it over the layers; the loops know nothing else of
// the model's insides.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgemt/status.h"
#include "ops/output_columns.h"

namespace edgemt {

class StepModel {
 public:
  // Row r feeds tokens[r] at position `step` to the hypothesis in
  // self-attention cache slot slots[r], which translates source
  // slots[r] / per_source. Afterwards logits() holds [rows, target vocab].
  virtual Status Step(const int32_t* tokens, const int32_t* slots, size_t rows, size_t per_source,
                      size_t step) = 0;
  // The loops may rewrite a row before choosing from it (logits processors).
  // Rows are target-vocabulary floats apart.
  virtual float* logits() = 0;
  // The ids in the columns of the rows of source `source` (the job's
  // sources' index): every id, or the source's shortlist.
  virtual OutputColumns ColumnsOf(size_t source) const = 0;
  // Cache slots first + r (r < live) take the first `positions` keys and
  // values of slots first + parents[r].
  virtual void ReorderCache(size_t first, const int32_t* parents, size_t live, size_t positions) = 0;

 protected:
  ~StepModel() = default;
};

}  // namespace edgemt
