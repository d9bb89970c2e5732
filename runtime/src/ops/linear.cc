#include "ops/linear.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <new>
#include <utility>
#include <vector>

#include "ops/dequantize.h"
#include "ops/linear_trace.h"
#include "ops/profiler.h"

namespace edgemt {

namespace {
std::atomic<LinearTracer*> linear_tracer{nullptr};
}  // namespace

void SetLinearTracer(LinearTracer* tracer) { linear_tracer.store(tracer, std::memory_order_release); }

LinearOp::~LinearOp() {
  if (op_ != nullptr) xnn_delete_operator(op_);
  if (quantize_op_ != nullptr) xnn_delete_operator(quantize_op_);
}

LinearOp::LinearOp(LinearOp&& other) noexcept { *this = std::move(other); }

LinearOp& LinearOp::operator=(LinearOp&& other) noexcept {
  if (this != &other) {
    if (op_ != nullptr) xnn_delete_operator(op_);
    if (quantize_op_ != nullptr) xnn_delete_operator(quantize_op_);
    op_ = std::exchange(other.op_, nullptr);
    quantize_op_ = std::exchange(other.quantize_op_, nullptr);
    reshaped_rows_ = std::exchange(other.reshaped_rows_, 0);
    reshaped_threads_ = other.reshaped_threads_;
    product_rows_ = std::exchange(other.product_rows_, 0);
    product_threads_ = other.product_threads_;
    relaxed_ = std::move(other.relaxed_);
    parts_ = std::move(other.parts_);
    name_ = other.name_;
    fuse_relu_ = other.fuse_relu_;
    in_features_ = other.in_features_;
    out_features_ = other.out_features_;
    output_stride_ = other.output_stride_;
    block_size_ = other.block_size_;
    kind_ = other.kind_;
  }
  return *this;
}

void LinearOp::Configure(const LinearView& view, bool fuse_relu, const char* name) {
  Configure({view}, name);
  fuse_relu_ = fuse_relu;
}

void LinearOp::Configure(std::initializer_list<LinearView> parts, const char* name) {
  parts_.count = 0;
  for (const LinearView& part : parts) {
    if (parts_.count < LinearParts::kMax) parts_.items[parts_.count++] = part;
  }
  name_ = name;
  fuse_relu_ = false;
  output_stride_ = 0;
  in_features_ = parts_.empty() ? 0 : parts_.front().weight.cols;
  out_features_ = 0;
  bool all_int8 = !parts_.empty();
  bool all_int4 = !parts_.empty();
  block_size_ = parts_.empty() ? 0 : parts_.front().weight.block_size;
  for (const LinearView& part : parts_) {
    out_features_ += part.weight.rows;
    all_int8 = all_int8 && part.is_int8();
    all_int4 = all_int4 && part.is_int4() && part.weight.block_size == block_size_;
  }
  kind_ = all_int8 ? WeightType::kInt8 : all_int4 ? WeightType::kInt4 : WeightType::kFloat32;
  if (kind_ != WeightType::kInt4) block_size_ = 0;
}

size_t LinearOp::weight_bytes() const {
  size_t bytes = 0;
  for (const LinearView& part : parts_) bytes += part.weight.bytes();
  return bytes;
}

namespace {

// The fused layers' weights, scales and biases stacked along the output
// dimension, in the element type the operator runs in.
struct StackedWeights {
  FixedArray<float> f32;
  FixedArray<int8_t> i8;
  FixedArray<uint8_t> nibbles;
  FixedArray<float> scales;
  FixedArray<uint16_t> block_scales;
  FixedArray<float> bias;  // empty: no part has a bias
};

Status Stack(const LinearParts& parts, WeightType kind, int in, const char* name, StackedWeights* out) {
  const size_t cols = static_cast<size_t>(in);
  bool any_bias = false;
  size_t rows = 0;
  for (const LinearView& part : parts) {
    rows += static_cast<size_t>(part.weight.rows);
    any_bias = any_bias || part.bias != nullptr;
  }
  // Bounded by the file's size: the reader checked every shape against it.
  const size_t elements = rows * cols;
  if (elements / cols != rows)
    return Status(StatusCode::kInvalidModel, std::string(name) + ": the fused layers are too large");
  bool allocated = true;
  if (kind == WeightType::kInt8) {
    allocated = out->i8.Allocate(elements + kPackingReadSlack) && out->scales.Allocate(rows);
  } else if (kind == WeightType::kInt4) {
    // Every part has the operator's block size (Configure), and cols is a multiple of it.
    allocated = out->nibbles.Allocate(elements / 2 + kPackingReadSlack) &&
                out->block_scales.Allocate(rows * (cols / static_cast<size_t>(parts.front().weight.block_size)));
  } else {
    allocated = out->f32.Allocate(elements + kPackingReadSlack / sizeof(float));
  }
  if (any_bias) allocated = allocated && out->bias.Allocate(rows);  // zeros
  if (!allocated) return Status(StatusCode::kResourceExhausted, std::string(name) + ": out of memory stacking fused layers");
  size_t row = 0;
  size_t block_scale = 0;
  for (const LinearView& part : parts) {
    const size_t part_rows = static_cast<size_t>(part.weight.rows);
    if (kind == WeightType::kInt8) {
      std::memcpy(out->i8.data() + row * cols, part.weight.i8(), part_rows * cols);
      std::memcpy(out->scales.data() + row, part.weight.scales, part_rows * sizeof(float));
    } else if (kind == WeightType::kInt4) {
      std::memcpy(out->nibbles.data() + row * cols / 2, part.weight.nibbles(), part_rows * cols / 2);
      const size_t count = part.weight.block_scale_count();
      std::memcpy(out->block_scales.data() + block_scale, part.weight.block_scales, count * sizeof(uint16_t));
      block_scale += count;
    } else if (part.is_quantized()) {
      // A float operator computes a quantized part with its dequantized weights.
      for (size_t r = 0; r < part_rows; ++r) DequantizeRow(part.weight, r, out->f32.data() + (row + r) * cols);
    } else {
      std::memcpy(out->f32.data() + row * cols, part.weight.f32(), part_rows * cols * sizeof(float));
    }
    if (part.bias != nullptr) std::memcpy(out->bias.data() + row, part.bias, part_rows * sizeof(float));
    row += part_rows;
  }
  return Status::Ok();
}

}  // namespace

xnn_status LinearOp::Create(const void* weight, const float* scales, const uint16_t* block_scales, const float* bias,
                            xnn_weights_cache_t cache) {
  const float lo = fuse_relu_ ? 0.0f : -std::numeric_limits<float>::infinity();
  const float hi = std::numeric_limits<float>::infinity();
  const size_t in = static_cast<size_t>(in_features_);
  const size_t out = static_cast<size_t>(out_features_);
  const size_t out_stride = OutputStride();
  if (kind_ == WeightType::kInt8)
    return xnn_create_fully_connected_nc_qd8_f32_qc8w(in, out, in, out_stride, scales, static_cast<const int8_t*>(weight),
                                                      bias, lo, hi, 0, nullptr, cache, &op_);
  // Nibbles hold q + 8: XNNPACK's kernel zero point 8.
  if (kind_ == WeightType::kInt4)
    return xnn_create_fully_connected_nc_qd8_f32_qb4w(in, out, in, out_stride, static_cast<size_t>(block_size_),
                                                      /*kernel_zero_point=*/8, block_scales, weight, bias, lo, hi, 0,
                                                      nullptr, cache, &op_);
  return xnn_create_fully_connected_nc_f32(in, out, in, out_stride, static_cast<const float*>(weight), bias, lo, hi, 0,
                                           nullptr, cache, &op_);
}

Status LinearOp::Pack(PackedWeights* store) {
  if (op_ != nullptr || relaxed_.packed())
    return Status(StatusCode::kInternal, std::string(name_) + ": packed twice");
  if (parts_.empty()) return Status(StatusCode::kInternal, std::string(name_) + ": not configured");
  for (const LinearView& part : parts_) {
    if (part.weight.cols != in_features_)
      return Status(StatusCode::kInvalidModel, std::string(name_) + ": fused layers differ in input width");
  }
  const RelaxedSimdKernels* relaxed = ActiveRelaxedSimdKernels();
  if (kind_ == WeightType::kInt8 && relaxed != nullptr && RelaxedSimdProduct::Supports(in_features_, out_features_))
    return PackRelaxedSimd(*relaxed);
  const uint64_t layer = store != nullptr ? store->LayerId(parts_, kind_) : 0;
  const LinearView& first = parts_.front();
  xnn_status status = xnn_status_uninitialized;
  // A fused layer that is packed already needs no stacked copy: XNNPACK
  // finds it without reading the weights passed, and the probe makes the
  // create fail instead of packing them should it not find it.
  if (parts_.size() > 1 && store != nullptr && store->Contains(layer)) {
    PackedWeights::Packing probe(store, layer, /*probe=*/true);
    if (probe.active()) {
      status = Create(first.weight.data, first.weight.scales, first.weight.block_scales, first.bias,
                      store->provider());
    }
  }
  if (op_ == nullptr) {
    // One layer is packed straight from the file; fused ones from a stacked copy.
    StackedWeights stacked;
    const void* weight = first.weight.data;
    const float* scales = first.weight.scales;
    const uint16_t* block_scales = first.weight.block_scales;
    const float* bias = first.bias;
    if (parts_.size() > 1) {
      EDGEMT_RETURN_IF_ERROR(Stack(parts_, kind_, in_features_, name_, &stacked));
      weight = kind_ == WeightType::kInt8   ? static_cast<const void*>(stacked.i8.data())
               : kind_ == WeightType::kInt4 ? static_cast<const void*>(stacked.nibbles.data())
                                            : static_cast<const void*>(stacked.f32.data());
      scales = stacked.scales.data();
      block_scales = stacked.block_scales.data();
      bias = stacked.bias.empty() ? nullptr : stacked.bias.data();
    }
    PackedWeights::Packing packing(store, layer, /*probe=*/false);
    status = Create(weight, scales, block_scales, bias, packing.active() ? store->provider() : nullptr);
  }
  if (status == xnn_status_success && quantizes_input()) status = xnn_create_convert_nc_f32_qd8(0, &quantize_op_);
  if (status == xnn_status_out_of_memory)
    return Status(StatusCode::kResourceExhausted, std::string(name_) + ": out of memory packing weights");
  if (status != xnn_status_success)
    return Status(StatusCode::kInternal,
                  std::string(name_) + ": XNNPACK refused the layer (status " + std::to_string(status) + ")");
  return Status::Ok();
}

Status LinearOp::PackRelaxedSimd(const RelaxedSimdKernels& kernels) {
  // Its own copy, in the kernels' tiles: a PackedWeights store holds XNNPACK's layout.
  const LinearView& first = parts_.front();
  if (parts_.size() == 1)
    return relaxed_.Pack(first.weight.i8(), first.weight.scales, first.bias, in_features_, out_features_, fuse_relu_,
                         kernels, name_);
  StackedWeights stacked;
  EDGEMT_RETURN_IF_ERROR(Stack(parts_, kind_, in_features_, name_, &stacked));
  return relaxed_.Pack(stacked.i8.data(), stacked.scales.data(), stacked.bias.empty() ? nullptr : stacked.bias.data(),
                       in_features_, out_features_, fuse_relu_, kernels, name_);
}

namespace {

// pthreadpool_parallelize_1d already orders the caller's writes before the
// tasks and the tasks before its return. The two atomics say so in our own
// code, where ThreadSanitizer sees it (pthreadpool is not instrumented).
struct PackJob {
  const LinearOpList* linears;
  const FixedArray<size_t>* order;
  FixedArray<Status>* results;
  const std::function<void(const LinearOp&)>* after_pack;
  PackedWeights* store;
  std::atomic<bool> published{false};
  std::atomic<size_t> finished{0};
};

void PackOne(void* context, size_t i) {
  PackJob& job = *static_cast<PackJob*>(context);
  (void)job.published.load(std::memory_order_acquire);
  const size_t index = (*job.order)[i];
  LinearOp& linear = *(*job.linears)[index];
  (*job.results)[index] = linear.Pack(job.store);
  if ((*job.results)[index].ok()) (*job.after_pack)(linear);
  job.finished.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace

Status PackLinears(const LinearOpList& linears, PackedWeights* store, pthreadpool_t pool,
                   const std::function<void(const LinearOp&)>& after_pack) {
  if (pool == nullptr) {
    for (LinearOp* linear : linears) {
      EDGEMT_RETURN_IF_ERROR(linear->Pack(store));
      after_pack(*linear);
    }
    return Status::Ok();
  }
  // Largest first, so that the threads finish together.
  FixedArray<size_t> order;
  FixedArray<Status> results;
  if (!order.Allocate(linears.size()) || !results.Allocate(linears.size()))
    return Status(StatusCode::kResourceExhausted, "out of memory");
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return linears[a]->weight_bytes() > linears[b]->weight_bytes();
  });
  PackJob job;
  job.linears = &linears;
  job.order = &order;
  job.results = &results;
  job.after_pack = &after_pack;
  job.store = store;
  job.published.store(true, std::memory_order_release);
  pthreadpool_parallelize_1d(pool, PackOne, &job, order.size(), 0);
  if (job.finished.load(std::memory_order_acquire) != order.size())
    return Status(StatusCode::kInternal, "the thread pool skipped layers to pack");
  for (const Status& result : results) EDGEMT_RETURN_IF_ERROR(result);
  return Status::Ok();
}

bool LinearOp::RunsInParallel(size_t rows) const {
  const size_t weights = static_cast<size_t>(in_features_) * static_cast<size_t>(out_features_);
  return rows * weights >= kMinParallelMacs || weights >= kMinParallelWeights;
}

bool AnyRunsInParallel(const ConstLinearOpList& linears, size_t rows) {
  for (const LinearOp* linear : linears) {
    if (linear->RunsInParallel(rows)) return true;
  }
  return false;
}

namespace {

Status RunFailed(xnn_status status) {
  return Status(StatusCode::kInternal, "XNNPACK failed to run a linear layer (status " + std::to_string(status) + ")");
}

}  // namespace

pthreadpool_t LinearOp::QuantizeThreads(size_t rows, pthreadpool_t threads) const {
  return rows * static_cast<size_t>(in_features_) >= kMinParallelQuantizedInputs ? threads : nullptr;
}

xnn_status LinearOp::Reshape(size_t rows, pthreadpool_t threads) const {
  if (rows == reshaped_rows_ && threads == reshaped_threads_) return xnn_status_success;
  const size_t width = static_cast<size_t>(in_features_);
  reshaped_rows_ = 0;
  xnn_status status = xnn_status_success;
  if (kind_ != WeightType::kFloat32)
    status = xnn_reshape_convert_nc_f32_qd8(quantize_op_, rows, width, width, width, QuantizeThreads(rows, threads));
  if (status == xnn_status_success) status = ReshapeProduct(kind_ == WeightType::kInt8 ? FirstProductRows(rows) : rows, threads);
  if (status != xnn_status_success) return status;
  reshaped_rows_ = rows;
  reshaped_threads_ = threads;
  return xnn_status_success;
}

xnn_status LinearOp::ReshapeProduct(size_t rows, pthreadpool_t threads) const {
  if (rows == product_rows_ && threads == product_threads_) return xnn_status_success;
  product_rows_ = 0;
  xnn_status status;
  if (kind_ == WeightType::kInt8) {
    status = xnn_reshape_fully_connected_nc_qd8_f32_qc8w(op_, rows, threads);
  } else if (kind_ == WeightType::kInt4) {
    status = xnn_reshape_fully_connected_nc_qd8_f32_qb4w(op_, rows, threads);
  } else {
    status = xnn_reshape_fully_connected_nc_f32(op_, rows, threads);
  }
  if (status != xnn_status_success) return status;
  product_rows_ = rows;
  product_threads_ = threads;
  return xnn_status_success;
}

size_t LinearOp::FirstProductRows(size_t rows) {
#if defined(__EMSCRIPTEN__)
  // WebAssembly's int8 kernels compute 1 or 4 rows, and a 4-row tile costs
  // as much as three single rows (tests/bench/ANALYSIS.md): a remainder of
  // one or two rows runs row by row instead of in a padded tile.
  const size_t rest = rows % 4;
  if (rows > 1 && (rest == 1 || rest == 2)) return rows - rest;
#endif
  return rows;
}

xnn_status LinearOp::RunInt8Product(size_t rows, float* out, const LinearScratch& scratch,
                                    pthreadpool_t threads) const {
  const size_t first = FirstProductRows(rows);
  xnn_status status = xnn_status_success;
  if (first > 0) {
    status = ReshapeProduct(first, threads);
    if (status == xnn_status_success)
      status = xnn_setup_fully_connected_nc_qd8_f32_qc8w(op_, scratch.input, out, scratch.params);
    if (status == xnn_status_success) status = xnn_run_operator(op_, threads);
  }
  const size_t width = static_cast<size_t>(in_features_);
  for (size_t row = first; row < rows && status == xnn_status_success; ++row) {
    status = ReshapeProduct(1, threads);
    if (status == xnn_status_success)
      status = xnn_setup_fully_connected_nc_qd8_f32_qc8w(op_, scratch.input + row * width, out + row * OutputStride(),
                                                         scratch.params + row);
    if (status == xnn_status_success) status = xnn_run_operator(op_, threads);
  }
  return status;
}

Status LinearOp::Run(const float* in, size_t rows, float* out, const LinearScratch& scratch, pthreadpool_t pool,
                     TranslationProfile* profile) const {
  if (rows == 0) return Status::Ok();
  if (relaxed_.packed()) {
    // One thread: the kernels run only in the single-threaded WebAssembly build.
    ScopedTimer timer(profile, TimeCategory::kXnnpack);
    relaxed_.Run(in, rows, out, OutputStride(), reinterpret_cast<uint8_t*>(scratch.input));
    return Status::Ok();
  }
  pthreadpool_t threads = RunsInParallel(rows) ? pool : nullptr;
  ScopedTimer timer(profile, TimeCategory::kXnnpack);
  if (profile != nullptr && threads != nullptr) ++profile->parallel_products;
  xnn_status status = Reshape(rows, threads);
  if (kind_ == WeightType::kFloat32) {
    if (status == xnn_status_success) status = xnn_setup_fully_connected_nc_f32(op_, in, out);
    if (status == xnn_status_success) status = xnn_run_operator(op_, threads);
    return status == xnn_status_success ? Status::Ok() : RunFailed(status);
  }
  // Each row gets its own range (docs/int8.md), then the quantized product returns float.
  if (status == xnn_status_success) status = xnn_setup_convert_nc_f32_qd8(quantize_op_, in, scratch.input, scratch.params);
  if (status == xnn_status_success) status = xnn_run_operator(quantize_op_, QuantizeThreads(rows, threads));
  if (status == xnn_status_success) {
    PadQuantizationParams(scratch.params, rows);
    if (kind_ == WeightType::kInt8) {
      status = RunInt8Product(rows, out, scratch, threads);
    } else {
      status = xnn_setup_fully_connected_nc_qd8_f32_qb4w(op_, scratch.input, out, scratch.params);
      if (status == xnn_status_success) status = xnn_run_operator(op_, threads);
    }
  }
  if (status != xnn_status_success) return RunFailed(status);
  if (LinearTracer* tracer = linear_tracer.load(std::memory_order_acquire)) {
    LinearCall call;
    call.op = this;
    call.rows = rows;
    call.input = in;
    call.quantized = scratch.input;
    call.params = scratch.params;
    call.output = out;
    call.output_stride = OutputStride();
    tracer->Traced(call);
  }
  return Status::Ok();
}

}  // namespace edgemt
