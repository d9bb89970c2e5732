#include "ops/shortlisted_projection.h"

#include <cstring>
#include <string>

#include "ops/dequantize.h"
#include "ops/quantization_params.h"
#include "ops/vectorize.h"
#include "profiler.h"
#include "thread_pool.h"

namespace edgemt {
namespace {

// Rows computed together over one weight row: a beam's worth.
constexpr size_t kGroupRows = 4;

// Integer sums are exact, so every instruction set gives the same bits.
inline int32_t DotInt8(const int16_t* a, const int8_t* w, size_t n) {
  int32_t acc = 0;
  for (size_t k = 0; k < n; ++k) acc += static_cast<int32_t>(a[k]) * static_cast<int32_t>(w[k]);
  return acc;
}

// w holds n / 2 bytes of nibble pairs (q + 8, the lower nibble first).
inline int32_t DotInt4(const int16_t* a, const uint8_t* w, size_t n) {
  int32_t acc = 0;
  for (size_t k = 0; k < n / 2; ++k) {
    acc += static_cast<int32_t>(a[2 * k]) * (static_cast<int32_t>(w[k] & 0xF) - 8);
    acc += static_cast<int32_t>(a[2 * k + 1]) * (static_cast<int32_t>(w[k] >> 4) - 8);
  }
  return acc;
}

inline float DotFloat(const float* a, const float* w, size_t n) {
  float partial[kDotLanes] = {};
  size_t k = 0;
  for (; k + kDotLanes <= n; k += kDotLanes) {
    for (size_t j = 0; j < kDotLanes; ++j) partial[j] += a[k + j] * w[k + j];
  }
  for (; k < n; ++k) partial[0] += a[k] * w[k];
  return AddLanes(partial);
}

// One group: `rows` rows (at most kGroupRows) sharing `columns`.
struct Group {
  const float* in;              // float rows (float32 weights)
  const int16_t* centered;      // the quantized rows minus their zero points
  const xnn_quantization_params* params;
  size_t rows;
  float* out;
};

EDGEMT_VECTORIZED
void ProjectInt8(const MatrixView& w, const float* bias, const OutputColumns& columns, const Group& g,
                 size_t in, size_t out_stride) {
  for (size_t c = 0; c < columns.count; ++c) {
    const size_t id = static_cast<size_t>(columns.ids[c]);
    const int8_t* row = w.i8() + id * in;
    const float scale = w.scales[id];
    const float b = bias != nullptr ? bias[id] : 0.0f;
    for (size_t r = 0; r < g.rows; ++r) {
      const int32_t acc = DotInt8(g.centered + r * in, row, in);
      g.out[r * out_stride + c] = static_cast<float>(acc) * g.params[r].scale * scale + b;
    }
  }
}

EDGEMT_VECTORIZED
void ProjectInt4(const MatrixView& w, const float* bias, const OutputColumns& columns, const Group& g,
                 size_t in, size_t out_stride) {
  const size_t block = static_cast<size_t>(w.block_size);
  const size_t blocks = in / block;
  for (size_t c = 0; c < columns.count; ++c) {
    const size_t id = static_cast<size_t>(columns.ids[c]);
    const uint8_t* row = w.nibbles() + id * in / 2;
    const uint16_t* scales = w.block_scales + id * blocks;
    const float b = bias != nullptr ? bias[id] : 0.0f;
    for (size_t r = 0; r < g.rows; ++r) {
      const int16_t* a = g.centered + r * in;
      float sum = 0.0f;
      for (size_t k = 0; k < blocks; ++k)
        sum += static_cast<float>(DotInt4(a + k * block, row + k * block / 2, block)) * Bfloat16ToFloat(scales[k]);
      g.out[r * out_stride + c] = sum * g.params[r].scale + b;
    }
  }
}

EDGEMT_VECTORIZED
void ProjectFloat(const MatrixView& w, const float* bias, const OutputColumns& columns, const Group& g, size_t in,
                  size_t out_stride) {
  for (size_t c = 0; c < columns.count; ++c) {
    const size_t id = static_cast<size_t>(columns.ids[c]);
    const float* row = w.f32() + id * in;
    const float b = bias != nullptr ? bias[id] : 0.0f;
    for (size_t r = 0; r < g.rows; ++r) g.out[r * out_stride + c] = DotFloat(g.in + r * in, row, in) + b;
  }
}

EDGEMT_VECTORIZED
void Center(const int8_t* q, int32_t zero_point, size_t n, int16_t* out) {
  for (size_t k = 0; k < n; ++k) out[k] = static_cast<int16_t>(static_cast<int32_t>(q[k]) - zero_point);
}

}  // namespace

ShortlistedProjection::~ShortlistedProjection() {
  if (quantize_op_ != nullptr) xnn_delete_operator(quantize_op_);
}

void ShortlistedProjection::Configure(const LinearView& view) { view_ = view; }

Status ShortlistedProjection::Create() {
  if (!view_.is_quantized() || quantize_op_ != nullptr) return Status::Ok();
  const xnn_status status = xnn_create_convert_nc_f32_qd8(0, &quantize_op_);
  if (status == xnn_status_out_of_memory)
    return Status(StatusCode::kResourceExhausted, "output projection: out of memory creating the shortlist's convert");
  if (status != xnn_status_success)
    return Status(StatusCode::kInternal, "XNNPACK refused the shortlist's convert (status " + std::to_string(status) + ")");
  return Status::Ok();
}

Status ShortlistedProjection::Run(const float* in, size_t rows, const OutputColumns* columns, float* out,
                                  size_t out_stride, const ShortlistScratch& scratch, pthreadpool_t pool,
                                  TranslationProfile* profile) const {
  if (rows == 0) return Status::Ok();
  ScopedTimer timer(profile, TimeCategory::kXnnpack);
  const size_t width = static_cast<size_t>(view_.weight.cols);
  const MatrixView& w = view_.weight;
  if (view_.is_quantized()) {
    // XNNPACK's own per-row quantization, as the full product's.
    xnn_status status = xnn_status_success;
    if (rows != reshaped_rows_) {
      reshaped_rows_ = 0;
      status = xnn_reshape_convert_nc_f32_qd8(quantize_op_, rows, width, width, width, nullptr);
      if (status == xnn_status_success) reshaped_rows_ = rows;
    }
    if (status == xnn_status_success)
      status = xnn_setup_convert_nc_f32_qd8(quantize_op_, in, scratch.quantized.input, scratch.quantized.params);
    if (status == xnn_status_success) status = xnn_run_operator(quantize_op_, nullptr);
    if (status != xnn_status_success)
      return Status(StatusCode::kInternal, "XNNPACK failed to quantize the output projection's input (status " +
                                               std::to_string(status) + ")");
    for (size_t r = 0; r < rows; ++r)
      Center(scratch.quantized.input + r * width, scratch.quantized.params[r].zero_point, width,
             scratch.centered + r * width);
  }
  // Groups: consecutive rows with the same list, kGroupRows at most.
  size_t work = 0;
  for (size_t r = 0; r < rows; ++r) work += columns[r].count;
  const bool parallel = work * width >= kMinParallelMacs;
  size_t groups = 0;
  for (size_t r = 0; r < rows; ++groups) {
    scratch.group_starts[groups] = static_cast<uint32_t>(r);
    size_t n = 1;
    while (r + n < rows && n < kGroupRows && columns[r + n].ids == columns[r].ids) ++n;
    r += n;
  }
  scratch.group_starts[groups] = static_cast<uint32_t>(rows);
  auto run_group = [&](size_t, size_t index) {
    const size_t r = scratch.group_starts[index];
    const size_t n = scratch.group_starts[index + 1] - r;
    // The quantized input exists for quantized weights only.
    const bool quantized = view_.is_quantized();
    Group g{in + r * width, quantized ? scratch.centered + r * width : nullptr,
            quantized ? scratch.quantized.params + r : nullptr, n, out + r * out_stride};
    if (w.type == WeightType::kInt8) {
      ProjectInt8(w, view_.bias, columns[r], g, width, out_stride);
    } else if (w.type == WeightType::kInt4) {
      ProjectInt4(w, view_.bias, columns[r], g, width, out_stride);
    } else {
      ProjectFloat(w, view_.bias, columns[r], g, width, out_stride);
    }
  };
  ParallelFor(pool, parallel, groups, run_group);
  return Status::Ok();
}

}  // namespace edgemt
