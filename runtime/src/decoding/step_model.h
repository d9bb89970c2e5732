// What the decoding loops (greedy.h, beam_search.h) ask of the model: one
// decoder step over the rows they choose, its logits, and, for beam search,
// copying history slots for the hypotheses that branch. The
// translator implements it over the layers; the loops know nothing else of
// the model's insides.
#pragma once

#include <cstddef>
#include <cstdint>

#include "decoding/history_slots.h"
#include "edgemt/status.h"
#include "ops/output_columns.h"

namespace edgemt {

// Work on one row of a step's logits, which ForEachRow shares out.
class RowTask {
 public:
  virtual void Run(size_t row) = 0;

 protected:
  ~RowTask() = default;
};

class StepModel {
 public:
  // Row r feeds tokens[r] at position `step` to the hypothesis in
  // history slot slots[r], which translates source
  // slots[r] / per_source. Afterwards logits() holds [rows, target vocab].
  virtual Status Step(const int32_t* tokens, const int32_t* slots, size_t rows, size_t per_source,
                      size_t step) = 0;
  // The loops may rewrite a row before choosing from it (logits processors).
  // Rows are target-vocabulary floats apart.
  virtual float* logits() = 0;
  // The ids in the columns of the rows of source `source` (the job's
  // sources' index): every id, or the source's shortlist.
  virtual OutputColumns ColumnsOf(size_t source) const = 0;
  // The estimated log of sum(exp(logit)) over the ids outside row r's
  // shortlist in the last Step (ops/unlisted_mass.h), which its normalizer
  // adds (ListedLogSumExp); -infinity without a shortlist.
  virtual float UnlistedLogMass(size_t row) const = 0;
  // Each copy's slot `to` takes the first `positions` keys and values of
  // its slot `from` (no copy's target is another's source). The translator
  // copies the list of history rows that hold them, not the rows.
  virtual void CopyHistorySlots(const HistoryCopy* copies, size_t count, size_t positions) = 0;
  // Runs task.Run(i) for every i < count: on the model's threads when its
  // last Step used them (they are awake then), else one after another. Each
  // Run must write only what is its own.
  virtual void ForEachRow(size_t count, RowTask& task) = 0;

 protected:
  ~StepModel() = default;
};

}  // namespace edgemt
