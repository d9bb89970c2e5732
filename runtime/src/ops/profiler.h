// Optional accounting of where translation time goes, by kind of op (the
// public TranslationProfile's fields). Disabled, it costs a null check per
// scope.
#pragma once

#include <chrono>

#include "edgemt/types.h"

namespace edgemt {

enum class TimeCategory { kXnnpack, kAttention, kLayerNorm, kEmbedding, kOther };

class ScopedTimer {
 public:
  ScopedTimer(TranslationProfile* profile, TimeCategory category) : profile_(profile), category_(category) {
    if (profile_ != nullptr) start_ = std::chrono::steady_clock::now();
  }
  ~ScopedTimer() {
    if (profile_ == nullptr) return;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
    switch (category_) {
      case TimeCategory::kXnnpack: profile_->xnnpack_ms += ms; break;
      case TimeCategory::kAttention: profile_->attention_ms += ms; break;
      case TimeCategory::kLayerNorm: profile_->layer_norm_ms += ms; break;
      case TimeCategory::kEmbedding: profile_->embedding_ms += ms; break;
      case TimeCategory::kOther: profile_->other_ms += ms; break;
    }
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  TranslationProfile* profile_;
  TimeCategory category_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace edgemt
