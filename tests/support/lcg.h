// A deterministic pseudo-random sequence for test and benchmark data (no
// dependence on <random>'s implementation, so every platform sees the same
// data). Header-only: programs that link nothing of EdgeMT use it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace edgemt {
namespace testing {

class Lcg {
 public:
  explicit Lcg(uint32_t seed) : state_(seed) {}
  uint32_t Next() {
    state_ = state_ * 1664525u + 1013904223u;
    return state_ >> 8;
  }
  // Uniform in [lo, hi].
  int Int(int lo, int hi) { return lo + static_cast<int>(Next() % static_cast<uint32_t>(hi - lo + 1)); }
  float Float(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(Next() & 0xFFFF) / 65535.0f; }
  // `n` values uniform in [lo, hi].
  std::vector<float> Floats(size_t n, float lo, float hi) {
    std::vector<float> v(n);
    for (float& x : v) x = Float(lo, hi);
    return v;
  }

 private:
  uint32_t state_;
};

}  // namespace testing
}  // namespace edgemt
