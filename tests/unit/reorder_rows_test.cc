// Beam search's cache move (runtime/src/ops/reorder_rows.h) against a copy
// through a full second buffer, for every parent pattern of up to 4 rows
// (swaps, cycles, one parent for all, parents past the live rows).
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "ops/reorder_rows.h"

TEST_CASE("ReorderRows gives every row its parent's old contents") {
  const size_t used = 5, stride = 7, rows_total = 6;
  for (size_t live = 1; live <= 4; ++live) {
    size_t patterns = 1;
    for (size_t r = 0; r < live; ++r) patterns *= rows_total;  // parents range over all 6 rows
    for (size_t code = 0; code < patterns; ++code) {
      std::vector<int32_t> parents(live);
      for (size_t r = 0, c = code; r < live; ++r, c /= rows_total) parents[r] = static_cast<int32_t>(c % rows_total);
      std::vector<float> rows(rows_total * stride);
      for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>(i);
      std::vector<float> expected = rows;
      for (size_t r = 0; r < live; ++r) {
        for (size_t i = 0; i < used; ++i)
          expected[r * stride + i] = rows[static_cast<size_t>(parents[r]) * stride + i];
      }
      std::vector<float> scratch(live * used, -1.0f);
      edgemt::ReorderRows(parents.data(), live, used, stride, rows.data(), scratch.data());
      CAPTURE(live);
      CAPTURE(code);
      CHECK(rows == expected);  // the floats past `used` and the rows past `live` untouched too
    }
  }
}
