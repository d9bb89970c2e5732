// The per-row quantization parameters an int8 or int4 product reads, and
// how far past the last row they must go on.
//
// XNNPACK's kernels for mr rows read the parameters of all mr, the missing
// rows aliasing the last one and stored after it, so entries rows ..
// rows + mr - 2 must repeat the last row's. Its convert pads only
// XNN_EXTRA_QUANTIZATION_PARAMS (10) entries, while the kernels it picks go
// up to 16 rows (int4 14x16c8 on AVX-512 VNNI + GFNI CPUs, Zen 5 among
// them; int8 16x64c4 on AMX CPUs when XNNPACK is built with GCC 13+ or
// clang 15+, which ours with GCC 12 is not): with 2 or 3 rows the last row
// took a stray entry's zero point and scale. Header-only on XNNPACK alone,
// so that the tools timing and testing XNNPACK by itself pad alike.
#pragma once

#include <xnnpack.h>

#include <algorithm>
#include <cstddef>

namespace edgemt {

// Entries past the last row: the largest mr among XNNPACK's qd8 kernels.
constexpr size_t kQuantizationParamsPadding = 16;

// Repeats the parameters of row rows - 1 into the kQuantizationParamsPadding
// entries after it; call after XNNPACK's convert has run, before the product.
inline void PadQuantizationParams(xnn_quantization_params* params, size_t rows) {
  std::fill(params + rows, params + rows + kQuantizationParamsPadding, params[rows - 1]);
}

}  // namespace edgemt
