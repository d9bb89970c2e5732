// Beam search's cache move: after a step, hypothesis r continues hypothesis
// parents[r], so its rows of keys and values become its parent's.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgemt {

// Row r < live of `rows` (rows `stride` floats apart) takes the first
// `used` floats of row parents[r] as they were before the call. Only the
// rows whose parent is another row move; a parent that is itself
// overwritten is first set aside in its own place of `scratch` (live rows
// of `used` floats).
void ReorderRows(const int32_t* parents, size_t live, size_t used, size_t stride, float* rows, float* scratch);

}  // namespace edgemt
