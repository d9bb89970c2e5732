#include "ops/reorder_rows.h"

#include <cstring>

namespace edgemt {

void ReorderRows(const int32_t* parents, size_t live, size_t used, size_t stride, float* rows, float* scratch) {
  auto moves = [&](size_t r) { return parents[r] != static_cast<int32_t>(r); };
  // Rows at or past `live` are never overwritten.
  auto set_aside = [&](size_t p) {
    if (p >= live || !moves(p)) return false;
    for (size_t r = 0; r < live; ++r) {
      if (r != p && parents[r] == static_cast<int32_t>(p)) return true;
    }
    return false;
  };
  for (size_t p = 0; p < live; ++p) {
    if (set_aside(p)) std::memcpy(scratch + p * used, rows + p * stride, used * sizeof(float));
  }
  for (size_t r = 0; r < live; ++r) {
    if (!moves(r)) continue;
    // A parent that moves itself was set aside above: r is a row that reads it.
    const size_t p = static_cast<size_t>(parents[r]);
    const bool aside = p < live && moves(p);
    std::memcpy(rows + r * stride, aside ? scratch + p * used : rows + p * stride, used * sizeof(float));
  }
}

}  // namespace edgemt
