// The relaxed SIMD int8 product (ops/relaxed_simd_product.h) on the host,
// with the portable kernels of the same contract: the 7-bit row
// quantization, the tiles' layout, and LinearOp's int8 layers through it
// (partial tiles, 1-9 rows, fused layers, ReLU, an output stride) against
// the formula in double. The wasm kernels themselves are checked against
// the same contract in Node.js (web/tests/relaxed_simd_test.mjs).
#include <doctest/doctest.h>
#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "model_file/model_weights.h"
#include "ops/linear.h"
#include "ops/relaxed_simd_product.h"
#include "linear_views.h"

using namespace edgemt;

namespace {

const RelaxedSimdKernels kReferenceKernels = {ReferenceRelaxedSimdRows4, ReferenceRelaxedSimdRow1};

// Sets the portable kernels for one test, and unsets them after it.
struct UsingReferenceKernels {
  UsingReferenceKernels() {
    REQUIRE(xnn_initialize(nullptr) == xnn_status_success);
    SetRelaxedSimdKernels(&kReferenceKernels);
  }
  ~UsingReferenceKernels() { SetRelaxedSimdKernels(nullptr); }
};

struct Int8Weight {
  int rows, cols;
  std::vector<int8_t> q;
  std::vector<float> scales, bias;
  Int8Weight(int rows_, int cols_, uint32_t seed) : rows(rows_), cols(cols_) {
    std::mt19937 random(seed);
    for (int i = 0; i < rows * cols; ++i) q.push_back(static_cast<int8_t>(static_cast<int>(random() % 255) - 127));
    for (int r = 0; r < rows; ++r) {
      scales.push_back(0.001f + 0.01f * static_cast<float>(random() % 100) / 100.0f);
      bias.push_back(static_cast<float>(static_cast<int>(random() % 200) - 100) / 50.0f);
    }
  }
  LinearView View() const { return edgemt::testing::Int8View(rows, cols, q, scales, bias); }
};

std::vector<float> RandomRows(int rows, int cols, uint32_t seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal(0.3f, 1.5f);
  std::vector<float> x(static_cast<size_t>(rows) * static_cast<size_t>(cols));
  for (float& v : x) v = normal(random);
  return x;
}

// Runs `op` over `rows` rows into rows `stride` floats apart (the rest of each row keeps its fill).
std::vector<float> Run(const LinearOp& op, const std::vector<float>& x, int rows, size_t stride) {
  std::vector<int8_t> input(static_cast<size_t>(rows) * static_cast<size_t>(op.in_features()) + XNN_EXTRA_BYTES);
  std::vector<xnn_quantization_params> params(static_cast<size_t>(rows) + kQuantizationParamsPadding);
  LinearScratch scratch{input.data(), params.data()};
  std::vector<float> y(static_cast<size_t>(rows) * stride, -7.0f);
  const Status status = op.Run(x.data(), static_cast<size_t>(rows), y.data(), scratch, nullptr, nullptr);
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  return y;
}

// Each output against scale * sum (q - z) w * w_scale + bias in double, q and z
// from QuantizeRowTo7Bits (checked on its own below), and within the
// quantization's error of the float product.
void CheckRows(const std::vector<const Int8Weight*>& parts, const std::vector<float>& x, int rows,
               const std::vector<float>& y, size_t stride, bool relu) {
  const int cols = parts.front()->cols;
  std::vector<uint8_t> q(static_cast<size_t>(cols));
  size_t columns = 0;
  for (const Int8Weight* part : parts) columns += static_cast<size_t>(part->rows);
  for (int i = 0; i < rows; ++i) {
    const float* row = &x[static_cast<size_t>(i) * static_cast<size_t>(cols)];
    int32_t z = 0;
    const float scale = QuantizeRowTo7Bits(row, static_cast<size_t>(cols), q.data(), &z);
    size_t column = 0;
    for (const Int8Weight* part : parts) {
      for (int r = 0; r < part->rows; ++r, ++column) {
        double exact = 0.0, real = 0.0, magnitude = 0.0;
        for (int c = 0; c < cols; ++c) {
          const double w = part->q[static_cast<size_t>(r * cols + c)] * static_cast<double>(part->scales[r]);
          exact += (static_cast<int>(q[static_cast<size_t>(c)]) - z) * w;
          real += row[c] * w;
          magnitude += std::fabs(w);
        }
        exact = exact * scale + part->bias[r];
        real += part->bias[r];
        if (relu) {
          exact = std::max(exact, 0.0);
          real = std::max(real, 0.0);
        }
        const float got = y[static_cast<size_t>(i) * stride + column];
        INFO("row " << i << ", output " << column);
        CHECK(std::fabs(got - exact) <= 1e-5 * (std::fabs(exact) + magnitude * scale * 127.0) + 1e-5);
        CHECK(std::fabs(got - real) <= magnitude * scale * 0.5 + 1e-4);
      }
    }
    for (size_t c = columns; c < stride; ++c) CHECK(y[static_cast<size_t>(i) * stride + c] == -7.0f);
  }
}

}  // namespace

TEST_CASE("QuantizeRowTo7Bits: 0..127, zero exact, each value within half a step") {
  std::vector<float> x = RandomRows(1, 301, 3);
  x[10] = 0.0f;
  std::vector<uint8_t> q(x.size());
  int32_t z = -1;
  const float scale = QuantizeRowTo7Bits(x.data(), x.size(), q.data(), &z);
  CHECK(z >= 0);
  CHECK(z <= 127);
  CHECK(q[10] == z);
  const float lo = *std::min_element(x.begin(), x.end()), hi = *std::max_element(x.begin(), x.end());
  CHECK(scale == doctest::Approx((hi - lo) / 127.0f));
  for (size_t k = 0; k < x.size(); ++k) {
    CHECK(q[k] <= 127);
    CHECK(std::fabs((static_cast<int>(q[k]) - z) * scale - x[k]) <= 0.5f * scale * 1.0001f);
  }
  // All positive: the range starts at zero, the point is 0.
  std::vector<float> positive = {0.5f, 2.0f, 1.0f, 4.0f};
  std::vector<uint8_t> pq(4);
  QuantizeRowTo7Bits(positive.data(), 4, pq.data(), &z);
  CHECK(z == 0);
  CHECK(pq[3] == 127);
  // A row of zeros: every byte the point.
  std::vector<float> zeros(8, 0.0f);
  std::vector<uint8_t> zq(8, 99);
  CHECK(QuantizeRowTo7Bits(zeros.data(), 8, zq.data(), &z) == 1.0f);
  for (uint8_t v : zq) CHECK(v == z);
  // Infinities and NaN (a broken model's activations): bytes in range, no trap.
  std::vector<float> odd = {-INFINITY, 1.0f, NAN, INFINITY};
  std::vector<uint8_t> oq(4, 200);
  QuantizeRowTo7Bits(odd.data(), 4, oq.data(), &z);
  CHECK(z >= 0);
  CHECK(z <= 127);
  for (uint8_t v : oq) CHECK(v <= 127);
}

TEST_CASE("RelaxedSimdProduct packs tiles of 8 columns, 4 inputs a column, zero columns after the last") {
  const Int8Weight w(13, 12, 7);
  RelaxedSimdProduct product;
  REQUIRE(product.Pack(w.q.data(), w.scales.data(), nullptr, 12, 13, false, kReferenceKernels, "test").ok());
  const int8_t* packed = product.packed_weights();
  for (int tile = 0; tile < 2; ++tile) {
    for (int quad = 0; quad < 3; ++quad) {
      for (int c = 0; c < 8; ++c) {
        for (int k = 0; k < 4; ++k) {
          const int column = tile * 8 + c;
          const int8_t expected = column < 13 ? w.q[static_cast<size_t>(column * 12 + quad * 4 + k)] : int8_t{0};
          CHECK(packed[((tile * 3 + quad) * 8 + c) * 4 + k] == expected);
        }
      }
    }
  }
  CHECK(RelaxedSimdProduct::Supports(12, 8));
  CHECK_FALSE(RelaxedSimdProduct::Supports(10, 8));  // inputs no multiple of 4
  CHECK_FALSE(RelaxedSimdProduct::Supports(12, 7));  // less than one tile
  CHECK(RelaxedSimdProduct::Supports(1 << 16, 8));
  CHECK_FALSE(RelaxedSimdProduct::Supports((1 << 16) + 4, 8));  // int32 sums could overflow
}

TEST_CASE("an int8 Linear on the relaxed SIMD kernels computes the 7-bit formula, 1 to 9 rows") {
  UsingReferenceKernels kernels;
  for (const std::pair<int, int>& shape : {std::pair<int, int>{16, 8}, {36, 13}, {64, 40}, {256, 29}}) {
    // Not a structured binding: clang 14 cannot capture one in INFO's lambda.
    const int in = shape.first, out = shape.second;
    const Int8Weight w(out, in, static_cast<uint32_t>(in + out));
    LinearOp op;
    op.Configure(w.View(), /*fuse_relu=*/false, "test");
    REQUIRE(op.Pack(nullptr).ok());
    for (int rows : {1, 3, 4, 5, 8, 9}) {
      INFO(in << "x" << out << ", " << rows << " rows");
      const std::vector<float> x = RandomRows(rows, in, static_cast<uint32_t>(rows));
      CheckRows({&w}, x, rows, Run(op, x, rows, static_cast<size_t>(out)), static_cast<size_t>(out), false);
    }
  }
}

TEST_CASE("fused int8 layers with ReLU and an output stride run on the relaxed SIMD kernels") {
  UsingReferenceKernels kernels;
  const Int8Weight a(11, 24, 1), b(6, 24, 2);
  LinearOp op;
  op.Configure({a.View(), b.View()}, "fused");
  op.set_output_stride(21);
  REQUIRE(op.Pack(nullptr).ok());
  const std::vector<float> x = RandomRows(6, 24, 9);
  CheckRows({&a, &b}, x, 6, Run(op, x, 6, 21), 21, false);

  LinearOp relu;
  relu.Configure(a.View(), /*fuse_relu=*/true, "relu");
  REQUIRE(relu.Pack(nullptr).ok());
  const std::vector<float> y = Run(relu, x, 6, 11);
  CheckRows({&a}, x, 6, y, 11, true);
  CHECK(std::count(y.begin(), y.end(), 0.0f) > 0);
}

TEST_CASE("a layer the kernels cannot run stays on XNNPACK, with XNNPACK's 8-bit rows") {
  UsingReferenceKernels kernels;
  const Int8Weight w(9, 10, 4);  // 10 inputs: no multiple of 4
  LinearOp op;
  op.Configure(w.View(), false, "odd");
  REQUIRE(op.Pack(nullptr).ok());
  const std::vector<float> x = RandomRows(2, 10, 5);
  const std::vector<float> y = Run(op, x, 2, 9);
  for (int i = 0; i < 2; ++i) {
    for (int r = 0; r < 9; ++r) {
      double real = w.bias[r];
      for (int c = 0; c < 10; ++c) real += x[static_cast<size_t>(i * 10 + c)] * w.q[static_cast<size_t>(r * 10 + c)] * w.scales[r];
      CHECK(y[static_cast<size_t>(i * 9 + r)] == doctest::Approx(real).epsilon(0.05).scale(1.0));
    }
  }
}
