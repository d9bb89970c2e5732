#include "ops/output_columns.h"

#include <algorithm>

namespace edgemt {

int64_t OutputColumns::ColumnOf(int32_t id) const {
  if (id < 0) return -1;
  if (ids == nullptr) return static_cast<size_t>(id) < count ? id : -1;
  const int32_t* end = ids + count;
  const int32_t* at = std::lower_bound(ids, end, id);
  return at != end && *at == id ? at - ids : -1;
}

}  // namespace edgemt
