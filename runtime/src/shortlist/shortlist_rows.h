// A source's shortlist as the shortlisted projection reads it
// (ops/shortlisted_projection.h): `count` columns, column c from row ids[c]
// of `weights`, or from row c where the rows were gathered into the arena
// (ids null; `weights` then views the copy).
#pragma once

#include <cstddef>
#include <cstdint>

#include "model_file/model_weights.h"

namespace edgemt {

struct ShortlistRows {
  size_t count = 0;
  const int32_t* ids = nullptr;
  LinearView weights;
};

}  // namespace edgemt
