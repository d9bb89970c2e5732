// The shortlisted projection's AVX-512 VNNI loop (runtime/src/ops/shortlisted_vnni.h)
// against plain integer sums: widths around the 64-byte register (the masked
// tail), 1 to 4 rows sharing a list, extreme weights and zero points, scattered
// ids: the integer sums exactly, the scaled logits to rounding. Skipped, and said so, where the CPU or the build has no VNNI loop.
#include <doctest/doctest.h>

#include <cstdint>
#include <cmath>
#include <vector>

#include "lcg.h"
#include "ops/shortlisted_vnni.h"

namespace {

using edgemt::testing::Lcg;

// sum_k (q - zero point) * w: the plain loop's integer sum.
int32_t PlainSum(const std::vector<int8_t>& q, int32_t zero_point, const int8_t* w, size_t in) {
  int32_t acc = 0;
  for (size_t k = 0; k < in; ++k) acc += (static_cast<int32_t>(q[k]) - zero_point) * static_cast<int32_t>(w[k]);
  return acc;
}

}  // namespace

TEST_CASE("shortlist: the VNNI int8 loop sums as the plain loop" * doctest::skip(!edgemt::HasVnni())) {
  Lcg rng(29);
  const size_t vocab = 50;
  for (size_t in : {1, 7, 63, 64, 65, 100, 128, 130, 191, 256, 512}) {
    std::vector<int8_t> weight(vocab * in);
    for (size_t i = 0; i < weight.size(); ++i) {
      // Some rows at the int8 extremes, where a wrong offset shows most.
      const size_t row = i / in;
      weight[i] = row == 3 ? int8_t{-128} : row == 4 ? int8_t{127} : static_cast<int8_t>(rng.Int(-128, 127));
    }
    std::vector<float> scales(vocab), bias(vocab);
    for (size_t v = 0; v < vocab; ++v) {
      scales[v] = rng.Float(0.001f, 0.1f);
      bias[v] = rng.Float(-1.0f, 1.0f);
    }
    const std::vector<int32_t> ids = {0, 3, 4, 9, 17, 18, 30, 41, 49};
    for (size_t rows = 1; rows <= 4; ++rows) {
      CAPTURE(in);
      CAPTURE(rows);
      std::vector<std::vector<int8_t>> q(rows, std::vector<int8_t>(in));
      std::vector<xnn_quantization_params> params(rows);
      const size_t stride = in + 5;  // rows apart, as the scratch's are
      std::vector<uint8_t> inputs(rows * stride);
      for (size_t r = 0; r < rows; ++r) {
        params[r].zero_point = r == 0 ? -128 : r == 1 ? 127 : rng.Int(-128, 127);
        params[r].scale = rng.Float(0.01f, 0.2f);
        for (size_t k = 0; k < in; ++k) {
          q[r][k] = static_cast<int8_t>(rng.Int(-128, 127));
          inputs[r * stride + k] = static_cast<uint8_t>(static_cast<int32_t>(q[r][k]) + 128);
        }
      }
      const size_t out_stride = ids.size() + 2;
      // Unit scales and no bias: the logits are the integer sums, exactly. Then real scales and a bias:
      // the float epilogue (sum * input scale * scale + bias) may be fused into one FMA where the loop's
      // instruction set has it and the plain one's has not, so it agrees to rounding.
      for (bool unit : {true, false}) {
        CAPTURE(unit);
        std::vector<xnn_quantization_params> run_params = params;
        if (unit) {
          for (auto& p : run_params) p.scale = 1.0f;
        }
        const std::vector<float> ones(vocab, 1.0f);
        const float* run_scales = unit ? ones.data() : scales.data();
        const float* run_bias = unit ? nullptr : bias.data();
        std::vector<float> out(rows * out_stride, -7.0f);
        // Columns [1, end) only: the first and what lies past end keep their value.
        const edgemt::VnniRows vnni{inputs.data(), stride, run_params.data(), rows, out.data(), out_stride};
        edgemt::ProjectInt8Vnni(weight.data(), run_scales, run_bias, in, ids.data(), 1, ids.size(), vnni);
        for (size_t r = 0; r < rows; ++r) {
          CHECK(out[r * out_stride] == -7.0f);
          CHECK(out[r * out_stride + ids.size()] == -7.0f);
          for (size_t c = 1; c < ids.size(); ++c) {
            const size_t id = static_cast<size_t>(ids[c]);
            const int32_t sum = PlainSum(q[r], params[r].zero_point, weight.data() + id * in, in);
            const float got = out[r * out_stride + c];
            if (unit) {
              CHECK(got == static_cast<float>(sum));
            } else {
              const float product = static_cast<float>(sum) * params[r].scale * scales[id];
              CHECK(got == doctest::Approx(product + bias[id]).epsilon(1e-6).scale(std::fabs(product) + 1.0f));
            }
          }
        }
      }
    }
  }
}
