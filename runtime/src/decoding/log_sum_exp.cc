#include "decoding/log_sum_exp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "decoding/next_token.h"

namespace edgemt {

LogSumExp::~LogSumExp() {
  if (softmax_ != nullptr) xnn_delete_operator(softmax_);
}

Status LogSumExp::Init(size_t vocab) {
  xnn_status status = xnn_create_softmax_nc_f32(0, &softmax_);
  // One row per call, single-threaded: a row is a few microseconds.
  if (status == xnn_status_success) status = xnn_reshape_softmax_nc_f32(softmax_, vocab, vocab, vocab, 1, nullptr);
  if (status == xnn_status_out_of_memory) return Status(StatusCode::kResourceExhausted, "out of memory");
  if (status != xnn_status_success)
    return Status(StatusCode::kInternal, "XNNPACK refused the softmax (status " + std::to_string(status) + ")");
  vocab_ = vocab;
  shaped_ = vocab;
  return Status::Ok();
}

float LogSumExp::Of(const float* logits, size_t count, float* probabilities) const {
  xnn_status status = xnn_status_success;
  if (count == 0 || count > vocab_) return std::numeric_limits<float>::quiet_NaN();
  if (count != shaped_) {
    shaped_ = 0;
    status = xnn_reshape_softmax_nc_f32(softmax_, count, count, count, 1, nullptr);
    if (status == xnn_status_success) shaped_ = count;
  }
  if (status == xnn_status_success) status = xnn_setup_softmax_nc_f32(softmax_, logits, probabilities);
  if (status == xnn_status_success) status = xnn_run_operator(softmax_, nullptr);
  if (status != xnn_status_success) return std::numeric_limits<float>::quiet_NaN();
  return LargestValue(logits, count) - std::log(LargestValue(probabilities, count));
}

float ExcludingIds(float lse, const float* logits, const float* probabilities, size_t vocab,
                   const BannedIds& excluded) {
  double removed = 0.0;
  for (size_t i = 0; i < excluded.count; ++i) {
    const int32_t id = excluded.ids[i];
    bool repeated = false;  // (an id listed twice counts once)
    for (size_t j = 0; j < i; ++j) repeated = repeated || excluded.ids[j] == id;
    if (!repeated && id >= 0 && static_cast<size_t>(id) < vocab) removed += static_cast<double>(probabilities[id]);
  }
  if (removed == 0.0) return lse;
  const double kept = 1.0 - removed;
  // float32 probabilities leave ~1e-7 of error: fine for what is kept above 1e-3.
  if (kept > 1e-3) return static_cast<float>(static_cast<double>(lse) + std::log(kept));
  double top = -std::numeric_limits<double>::infinity();
  for (size_t v = 0; v < vocab; ++v) {
    if (!excluded.Contains(static_cast<int32_t>(v))) top = std::max(top, static_cast<double>(logits[v]));
  }
  if (top == -std::numeric_limits<double>::infinity()) return static_cast<float>(top);
  double sum = 0.0;
  for (size_t v = 0; v < vocab; ++v) {
    if (!excluded.Contains(static_cast<int32_t>(v))) sum += std::exp(static_cast<double>(logits[v]) - top);
  }
  return static_cast<float>(top + std::log(sum));
}

}  // namespace edgemt
