#include "decoding/log_sum_exp.h"

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
  if (status != xnn_status_success)
    return Status(StatusCode::kInternal, "XNNPACK refused the softmax (status " + std::to_string(status) + ")");
  vocab_ = vocab;
  return Status::Ok();
}

float LogSumExp::Of(const float* logits, float* probabilities) const {
  xnn_status status = xnn_setup_softmax_nc_f32(softmax_, logits, probabilities);
  if (status == xnn_status_success) status = xnn_run_operator(softmax_, nullptr);
  if (status != xnn_status_success) return std::numeric_limits<float>::quiet_NaN();
  return LargestValue(logits, vocab_) - std::log(LargestValue(probabilities, vocab_));
}

}  // namespace edgemt
