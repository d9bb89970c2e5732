// The shortlisted projection's AVX-512 VNNI loops (runtime/src/shortlist/shortlisted_vnni.h)
// against plain integer sums: widths and int4 blocks around the 64-byte
// register (the masked tail), 1 to 4 rows sharing a list, extreme weights and
// zero points, scattered ids: the integer sums exactly, the scaled logits to
// rounding. Skipped, and said so, where the CPU or the build has no VNNI loop.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "lcg.h"
#include "ops/dequantize.h"
#include "shortlist/shortlisted_vnni.h"

namespace {

using edgemt::testing::Lcg;

// The rows' parameters with input scale 1: the logits are then the sums.
std::vector<xnn_quantization_params> UnitScales(std::vector<xnn_quantization_params> params) {
  for (auto& p : params) p.scale = 1.0f;
  return params;
}

// sum_k (q - zero point) * w: the plain loop's integer sum.
int32_t PlainSum(const std::vector<int8_t>& q, int32_t zero_point, const int8_t* w, size_t in) {
  int32_t acc = 0;
  for (size_t k = 0; k < in; ++k) acc += (static_cast<int32_t>(q[k]) - zero_point) * static_cast<int32_t>(w[k]);
  return acc;
}

}  // namespace

TEST_CASE("shortlist: the VNNI int8 loop sums as the plain loop" * doctest::skip(!edgemt::HasVnni())
          * doctest::description("needs AVX-512 VNNI")) {
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
        const std::vector<xnn_quantization_params> run_params = unit ? UnitScales(params) : params;
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

namespace {

// The plain int4 loop's result for one row: each block's exact integer sum
// sum (q - zero point) * (nibble - 8), scaled by its bfloat16 in block order.
float PlainInt4(const std::vector<int8_t>& q, int32_t zero_point, const uint8_t* row, const uint16_t* scales,
                size_t in, size_t block) {
  float sum = 0.0f;
  for (size_t b = 0; b < in / block; ++b) {
    int32_t acc = 0;
    for (size_t k = b * block; k < (b + 1) * block; ++k) {
      const int32_t nibble = k % 2 == 0 ? row[k / 2] & 0xF : row[k / 2] >> 4;
      acc += (static_cast<int32_t>(q[k]) - zero_point) * (nibble - 8);
    }
    sum += static_cast<float>(acc) * edgemt::Bfloat16ToFloat(scales[b]);
  }
  return sum;
}

}  // namespace

TEST_CASE("shortlist: the VNNI int4 loop sums each block as the plain loop" * doctest::skip(!edgemt::HasVnni())
          * doctest::description("needs AVX-512 VNNI")) {
  Lcg rng(31);
  const size_t vocab = 40;
  const uint16_t kOne = 0x3F80;  // bfloat16 1.0
  // Blocks shorter than a register, one register, a register and a masked part, two registers.
  for (const auto& shape : std::vector<std::pair<size_t, size_t>>{
           {32, 32}, {64, 32}, {192, 64}, {192, 96}, {256, 128}, {320, 160}, {512, 256}, {512, 512}}) {
    // Not a structured binding: Clang 14 cannot capture one (CAPTURE is a lambda).
    const size_t in = shape.first, block = shape.second;
    std::vector<uint8_t> nibbles(vocab * in / 2);
    for (size_t i = 0; i < nibbles.size(); ++i) {
      // Rows of all 0 and all 15 nibbles: -8 and +7, the extremes.
      const size_t row = i / (in / 2);
      nibbles[i] = row == 2 ? uint8_t{0} : row == 5 ? uint8_t{0xFF} : static_cast<uint8_t>(rng.Int(0, 255));
    }
    std::vector<uint16_t> scales(vocab * in / block), units(scales.size(), kOne);
    for (uint16_t& s : scales) {
      const float f = rng.Float(0.001f, 0.1f);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof(bits));
      s = static_cast<uint16_t>(bits >> 16);
    }
    std::vector<float> bias(vocab);
    for (float& b : bias) b = rng.Float(-1.0f, 1.0f);
    const std::vector<int32_t> ids = {0, 2, 5, 9, 17, 18, 30, 39};
    for (size_t rows = 1; rows <= 4; ++rows) {
      CAPTURE(in);
      CAPTURE(block);
      CAPTURE(rows);
      std::vector<std::vector<int8_t>> q(rows, std::vector<int8_t>(in));
      std::vector<xnn_quantization_params> params(rows);
      const size_t stride = in + 6;
      std::vector<uint8_t> inputs(rows * stride);
      for (size_t r = 0; r < rows; ++r) {
        params[r].zero_point = r == 0 ? -128 : r == 1 ? 127 : rng.Int(-128, 127);
        params[r].scale = rng.Float(0.01f, 0.2f);
        for (size_t k = 0; k < in; ++k) {
          q[r][k] = static_cast<int8_t>(r == 2 ? -128 : rng.Int(-128, 127));
          inputs[r * stride + (k % 2 == 0 ? k / 2 : in / 2 + k / 2)] = static_cast<uint8_t>(q[r][k] + 128);
        }
      }
      const size_t out_stride = ids.size() + 2;
      for (bool unit : {true, false}) {
        CAPTURE(unit);
        const std::vector<xnn_quantization_params> run_params = unit ? UnitScales(params) : params;
        const std::vector<uint16_t>& run_scales = unit ? units : scales;
        std::vector<float> out(rows * out_stride, -7.0f);
        const edgemt::VnniRows vnni{inputs.data(), stride, run_params.data(), rows, out.data(), out_stride};
        edgemt::ProjectInt4Vnni(nibbles.data(), run_scales.data(), block, unit ? nullptr : bias.data(), in,
                                ids.data(), 1, ids.size(), vnni);
        for (size_t r = 0; r < rows; ++r) {
          CHECK(out[r * out_stride] == -7.0f);
          CHECK(out[r * out_stride + ids.size()] == -7.0f);
          for (size_t c = 1; c < ids.size(); ++c) {
            const size_t id = static_cast<size_t>(ids[c]);
            const float sum = PlainInt4(q[r], params[r].zero_point, nibbles.data() + id * in / 2,
                                        run_scales.data() + id * (in / block), in, block);
            const float got = out[r * out_stride + c];
            if (unit) {
              CHECK(got == sum);  // integer block sums, each exact in float
            } else {
              const float product = sum * params[r].scale;
              CHECK(got == doctest::Approx(product + bias[id]).epsilon(1e-5).scale(std::fabs(product) + 1.0f));
            }
          }
        }
      }
    }
  }
}
