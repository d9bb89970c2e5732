#include "decoding/row_normalizers.h"

#include "decoding/log_sum_exp.h"

namespace edgemt {

void RowNormalizers::Run(size_t i) {
  const ChoosingRow& choosing = rows_[i];
  const size_t s = static_cast<size_t>(choosing.sentence);
  const size_t row = static_cast<size_t>(choosing.row);
  float* logits = model_.logits() + row * static_cast<size_t>(job_.config->target_vocab_size);
  const OutputColumns columns = model_.ColumnsOf(job_.SourceIndexOf(s));
  const size_t hypothesis = s * histories_.beam + static_cast<size_t>(choosing.hypothesis);
  job_.ApplyProcessors(s, histories_.ids + hypothesis * histories_.stride, step_, logits, columns);
  const float lse = ListedLogSumExp(logits, columns.count, model_.UnlistedLogMass(row));
  normalizers_[row] = ExcludingIds(lse, logits, columns.count, ColumnsOf(excluded_, columns));
}

}  // namespace edgemt
