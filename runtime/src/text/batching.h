// Translating or scoring a call's items in batches, so that one bad item
// costs only its own result (text_translator.cc).
#pragma once

#include <cstddef>
#include <vector>

#include "edgemt/text_result.h"

namespace edgemt {

// Runs `run(items, count)` over `items` in consecutive batches: a batch ends
// at `capacity` items, and (max_tokens > 0) before its items x the length
// of the one to add would pass max_tokens. A batch that fails runs again
// item by item, so that only a bad item's result holds its failure.
template <typename Length, typename Run>
void RunInBatches(const std::vector<size_t>& items, size_t capacity, size_t max_tokens, Length length, Run run,
                  std::vector<TextResult>* results) {
  std::vector<size_t> batch;
  auto flush = [&]() {
    if (batch.empty()) return;
    if (!run(batch.data(), batch.size()).ok()) {
      for (size_t item : batch) {
        const Status status = run(&item, 1);
        if (!status.ok()) (*results)[item].status = status;
      }
    }
    batch.clear();
  };
  for (size_t item : items) {
    if (max_tokens > 0 && !batch.empty() && (batch.size() + 1) * length(item) > max_tokens) flush();
    batch.push_back(item);
    if (batch.size() == capacity) flush();
  }
  flush();
}

}  // namespace edgemt
