#include "ops/linear.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <new>
#include <utility>
#include <vector>

#include "ops/quantize.h"
#include "profiler.h"

namespace edgemt {

LinearOp::~LinearOp() {
  if (op_ != nullptr) xnn_delete_operator(op_);
}

LinearOp::LinearOp(LinearOp&& other) noexcept { *this = std::move(other); }

LinearOp& LinearOp::operator=(LinearOp&& other) noexcept {
  if (this != &other) {
    if (op_ != nullptr) xnn_delete_operator(op_);
    op_ = std::exchange(other.op_, nullptr);
    view_ = other.view_;
    name_ = other.name_;
    fuse_relu_ = other.fuse_relu_;
    in_features_ = other.in_features_;
    out_features_ = other.out_features_;
    int8_ = other.int8_;
  }
  return *this;
}

void LinearOp::Configure(const LinearView& view, bool fuse_relu, const char* name) {
  view_ = view;
  name_ = name;
  fuse_relu_ = fuse_relu;
  in_features_ = view.weight.cols;
  out_features_ = view.weight.rows;
  int8_ = view.is_int8();
}

Status LinearOp::Pack() {
  if (op_ != nullptr) return Status(StatusCode::kInternal, std::string(name_) + ": packed twice");
  const LinearView& view = view_;
  const bool fuse_relu = fuse_relu_;
  const char* name = name_;
  xnn_status status;
  if (!int8_) {
    const float lo = fuse_relu ? 0.0f : -std::numeric_limits<float>::infinity();
    status = xnn_create_fully_connected_nc_f32(in_features_, out_features_, in_features_, out_features_,
                                               view.weight.f32(), view.bias, lo,
                                               std::numeric_limits<float>::infinity(), 0, &op_);
  } else {
    // Bias in the accumulator's units: input_scale * weight_scale[row].
    std::vector<int32_t> bias(static_cast<size_t>(out_features_), 0);
    if (view.bias != nullptr) {
      for (int r = 0; r < out_features_; ++r) {
        if (!QuantizeBias(view.bias[r], view.input_quant.scale, view.weight.scales[r], &bias[static_cast<size_t>(r)]))
          return Status(StatusCode::kInvalidModel, std::string(name) + ": a bias does not fit the int8 accumulator");
      }
    }
    const int8_t lo = fuse_relu ? view.output_quant.zero_point : int8_t{-128};
    status = xnn_create_convolution2d_nhwc_qc8(
        /*padding*/ 0, 0, 0, 0, /*kernel*/ 1, 1, /*subsampling*/ 1, 1, /*dilation*/ 1, 1, /*groups*/ 1,
        in_features_, out_features_, in_features_, out_features_, view.input_quant.zero_point,
        view.input_quant.scale, view.weight.scales, view.weight.i8(), bias.data(), view.output_quant.zero_point,
        view.output_quant.scale, lo, 127, 0, &op_);
  }
  if (status == xnn_status_out_of_memory)
    return Status(StatusCode::kResourceExhausted, std::string(name) + ": out of memory packing weights");
  if (status != xnn_status_success)
    return Status(StatusCode::kInternal,
                  std::string(name) + ": XNNPACK refused the layer (status " + std::to_string(status) + ")");
  return Status::Ok();
}

namespace {

// pthreadpool_parallelize_1d already orders the caller's writes before the
// tasks and the tasks before its return. The two atomics say so in our own
// code, where ThreadSanitizer sees it (pthreadpool is not instrumented).
struct PackJob {
  const std::vector<LinearOp*>* linears;
  const std::vector<size_t>* order;
  std::vector<Status>* results;
  const std::function<void(const LinearOp&)>* after_pack;
  std::atomic<bool> published{false};
  std::atomic<size_t> finished{0};
};

void PackOne(void* context, size_t i) {
  PackJob& job = *static_cast<PackJob*>(context);
  (void)job.published.load(std::memory_order_acquire);
  const size_t index = (*job.order)[i];
  LinearOp& linear = *(*job.linears)[index];
  (*job.results)[index] = linear.Pack();
  if ((*job.results)[index].ok()) (*job.after_pack)(linear);
  job.finished.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace

Status PackLinears(const std::vector<LinearOp*>& linears, pthreadpool_t pool,
                   const std::function<void(const LinearOp&)>& after_pack) {
  if (pool == nullptr) {
    for (LinearOp* linear : linears) {
      EDGEMT_RETURN_IF_ERROR(linear->Pack());
      after_pack(*linear);
    }
    return Status::Ok();
  }
  // Largest first, so that the threads finish together.
  std::vector<size_t> order(linears.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return linears[a]->view().weight.bytes() > linears[b]->view().weight.bytes();
  });
  std::vector<Status> results(linears.size());
  PackJob job;
  job.linears = &linears;
  job.order = &order;
  job.results = &results;
  job.after_pack = &after_pack;
  job.published.store(true, std::memory_order_release);
  pthreadpool_parallelize_1d(pool, PackOne, &job, order.size(), 0);
  if (job.finished.load(std::memory_order_acquire) != order.size())
    return Status(StatusCode::kInternal, "the thread pool skipped layers to pack");
  for (const Status& result : results) EDGEMT_RETURN_IF_ERROR(result);
  return Status::Ok();
}

bool LinearOp::RunsInParallel(size_t rows) const {
  return rows * static_cast<size_t>(in_features_) * static_cast<size_t>(out_features_) >= kMinParallelMacs;
}

bool AnyRunsInParallel(const std::vector<const LinearOp*>& linears, size_t rows) {
  for (const LinearOp* linear : linears) {
    if (linear->RunsInParallel(rows)) return true;
  }
  return false;
}

Status LinearOp::RunToInt8(const float* in, size_t rows, const LinearScratch& scratch, pthreadpool_t pool,
                           TranslationProfile* profile) const {
  if (!int8_) return Status(StatusCode::kInternal, "RunToInt8 on a float layer");
  if (rows == 0) return Status::Ok();
  pthreadpool_t threads = RunsInParallel(rows) ? pool : nullptr;
  {
    ScopedTimer timer(profile, TimeCategory::kOther);
    QuantizeInt8(in, rows * in_features_, view_.input_quant.scale, view_.input_quant.zero_point, scratch.input);
  }
  ScopedTimer timer(profile, TimeCategory::kXnnpack);
  xnn_status status = xnn_setup_convolution2d_nhwc_qc8(op_, rows, 1, 1, scratch.input, scratch.output, threads);
  if (status == xnn_status_success) status = xnn_run_operator(op_, threads);
  if (status != xnn_status_success)
    return Status(StatusCode::kInternal, "XNNPACK failed to run a linear layer (status " + std::to_string(status) + ")");
  return Status::Ok();
}

Status LinearOp::Run(const float* in, size_t rows, float* out, const LinearScratch& scratch, pthreadpool_t pool,
                     TranslationProfile* profile) const {
  if (rows == 0) return Status::Ok();
  pthreadpool_t threads = RunsInParallel(rows) ? pool : nullptr;
  xnn_status status;
  if (!int8_) {
    ScopedTimer timer(profile, TimeCategory::kXnnpack);
    status = xnn_setup_fully_connected_nc_f32(op_, rows, in, out, threads);
    if (status == xnn_status_success) status = xnn_run_operator(op_, threads);
  } else {
    EDGEMT_RETURN_IF_ERROR(RunToInt8(in, rows, scratch, pool, profile));
    ScopedTimer timer(profile, TimeCategory::kOther);
    DequantizeInt8(scratch.output, rows * out_features_, view_.output_quant.scale, view_.output_quant.zero_point, out);
    return Status::Ok();
  }
  if (status != xnn_status_success)
    return Status(StatusCode::kInternal, "XNNPACK failed to run a linear layer (status " + std::to_string(status) + ")");
  return Status::Ok();
}

}  // namespace edgemt
