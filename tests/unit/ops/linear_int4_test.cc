// int4 Linear layers (docs/int4.md): the runtime's product against the
// document's formula evaluated in double, the quantization parameters'
// padding (int8 too), fused int4 layers, a fused group
// mixing int4 and int8 (run in float), and the reader's checks of Int4
// tensors.
#include <doctest/doctest.h>
#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/translator.h"
#include "model_file/model_weights.h"
#include "ops/linear.h"
#include "linear_views.h"
#include "test_model.h"

using namespace edgemt;
using edgemt::testing::BuildTestModelFile;
using edgemt::testing::Int8View;
using edgemt::testing::LoadTestModel;
using edgemt::testing::TestModelSpec;

namespace {

float FromBfloat16(uint16_t bits) {
  const uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &widened, sizeof(value));
  return value;
}

// A random int4 weight [rows, cols] in the file's layout.
struct Int4Weight {
  int rows, cols, block;
  std::vector<int> q;              // [-8, 7]
  std::vector<uint8_t> nibbles;    // q + 8, lower nibble first
  std::vector<uint16_t> scales;    // bfloat16 [rows, cols / block]
  std::vector<float> bias;

  Int4Weight(int rows_, int cols_, int block_, uint32_t seed) : rows(rows_), cols(cols_), block(block_) {
    std::mt19937 random(seed);
    q.resize(static_cast<size_t>(rows) * cols);
    nibbles.assign(q.size() / 2, 0);
    for (size_t i = 0; i < q.size(); ++i) {
      q[i] = static_cast<int>(random() % 16) - 8;
      nibbles[i / 2] |= static_cast<uint8_t>((q[i] + 8) << (i % 2 == 0 ? 0 : 4));
    }
    // bfloat16 scales between 2^-9 and 2^-5, with random mantissas.
    for (int i = 0; i < rows * (cols / block); ++i)
      scales.push_back(static_cast<uint16_t>(((118 + random() % 5) << 7) | (random() % 128)));
    for (int r = 0; r < rows; ++r) bias.push_back(static_cast<float>(static_cast<int>(random() % 200) - 100) / 100.0f);
  }
  LinearView View() const {
    LinearView view;
    view.weight.type = WeightType::kInt4;
    view.weight.rows = rows;
    view.weight.cols = cols;
    view.weight.data = nibbles.data();
    view.weight.block_scales = scales.data();
    view.weight.block_size = block;
    view.bias = bias.data();
    return view;
  }
  double Value(int r, int c) const {
    return q[static_cast<size_t>(r) * cols + c] * static_cast<double>(FromBfloat16(scales[r * (cols / block) + c / block]));
  }
};

// docs/int8.md's per-row input quantization, in float32 as written there.
struct QuantizedRow {
  std::vector<int> xq;  // the int8 values, zero point included
  int z;
  float si;
};

QuantizedRow Quantize(const float* x, int n) {
  float lo = 0.0f, hi = 0.0f;
  for (int c = 0; c < n; ++c) {
    lo = std::min(lo, x[c]);
    hi = std::max(hi, x[c]);
  }
  const float inv = hi == lo ? 1.0f : 255.0f / (hi - lo);
  const float zf = (-128.0f + lo * inv) + (127.0f + hi * inv) > 0.0f ? -128.0f - lo * inv : 127.0f - hi * inv;
  QuantizedRow row;
  row.z = static_cast<int>(std::nearbyint(std::max(-128.0f, std::min(127.0f, zf))));
  row.si = 1.0f / inv;
  const float m = 1.0f / row.si;
  for (int c = 0; c < n; ++c) {
    const float v = std::nearbyint(x[c] * m);
    row.xq.push_back(static_cast<int>(std::max(static_cast<float>(-128 - row.z), std::min(static_cast<float>(127 - row.z), v))) + row.z);
  }
  return row;
}

std::vector<float> RandomInput(int rows, int cols, uint32_t seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  std::vector<float> x(static_cast<size_t>(rows) * cols);
  for (float& v : x) v = normal(random);
  return x;
}

struct Scratch {
  std::vector<int8_t> input;
  std::vector<xnn_quantization_params> params;
  LinearScratch view;
  Scratch(int rows, int cols) {
    input.assign(static_cast<size_t>(rows) * cols + XNN_EXTRA_BYTES, 0);
    params.assign(static_cast<size_t>(rows) + kQuantizationParamsPadding, xnn_quantization_params{0, 1.0f});
    view.input = input.data();
    view.params = params.data();
  }
};

std::vector<float> Run(const LinearOp& op, const std::vector<float>& x, int rows) {
  Scratch scratch(rows, op.in_features());
  std::vector<float> y(static_cast<size_t>(rows) * op.out_features());
  const Status status = op.Run(x.data(), static_cast<size_t>(rows), y.data(), scratch.view, nullptr, nullptr);
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  return y;
}

// Each output against si * sum_b s_b * sum_c (xq - z) q + bias, in double;
// the runtime rounds to float32 once per block and a few times more, so the
// bound is relative to the sum of the magnitudes it adds.
void CheckAgainstFormula(const std::vector<const Int4Weight*>& parts, const std::vector<float>& x, int rows,
                         const std::vector<float>& y, bool relu) {
  const int cols = parts.front()->cols;
  int out_columns = 0;
  for (const Int4Weight* part : parts) out_columns += part->rows;
  for (int i = 0; i < rows; ++i) {
    const QuantizedRow row = Quantize(&x[static_cast<size_t>(i) * cols], cols);
    int column = 0;
    for (const Int4Weight* part : parts) {
      for (int r = 0; r < part->rows; ++r, ++column) {
        double sum = 0.0, magnitude = 0.0;
        for (int b = 0; b < cols / part->block; ++b) {
          double block_sum = 0.0;
          for (int c = b * part->block; c < (b + 1) * part->block; ++c) block_sum += (row.xq[c] - row.z) * part->Value(r, c);
          sum += block_sum;
          magnitude += std::fabs(block_sum) + std::fabs(row.z * part->Value(r, b * part->block)) * part->block;
        }
        double expected = sum * row.si + part->bias[r];
        if (relu) expected = std::max(expected, 0.0);
        const double bound = 1e-5 * (magnitude * row.si + std::fabs(part->bias[r])) + 1e-6;
        const float got = y[static_cast<size_t>(i) * out_columns + column];
        INFO("row " << i << ", output " << column);
        CHECK(std::fabs(got - expected) <= bound);
      }
    }
  }
}

struct XnnpackReady {
  XnnpackReady() { REQUIRE(xnn_initialize(nullptr) == xnn_status_success); }
};

}  // namespace

TEST_CASE("an int4 Linear computes docs/int4.md's formula") {
  XnnpackReady ready;
  for (int block : {32, 64, 128}) {
    for (bool relu : {false, true}) {
      const Int4Weight w(40, 256, block, 11u + static_cast<uint32_t>(block));
      LinearOp op;
      op.Configure(w.View(), relu, "test");
      REQUIRE(op.kind() == WeightType::kInt4);
      const Status packed = op.Pack(nullptr);
      REQUIRE_MESSAGE(packed.ok(), packed.ToString());
      for (int rows : {1, 2, 3, 7}) {
        INFO("block " << block << ", relu " << relu << ", rows " << rows);
        const std::vector<float> x = RandomInput(rows, 256, 5u + static_cast<uint32_t>(rows));
        CheckAgainstFormula({&w}, x, rows, Run(op, x, rows), relu);
      }
    }
  }
}

TEST_CASE("past the last row, the quantization parameters repeat its own for kernels of up to 16 rows") {
  // XNNPACK's convert pads 10 entries; its 14- and 16-row kernels read 15
  // (ops/quantization_params.h). On a CPU whose kernels have fewer rows the
  // formula test above passes either way: this checks the padding itself.
  XnnpackReady ready;
  const Int4Weight w4(32, 64, 32, 21);
  std::vector<int8_t> q8(32 * 64, 3);
  std::vector<float> s8(32, 0.01f), bias8(32, 0.0f);
  for (const LinearView& view : {w4.View(), Int8View(32, 64, q8, s8, bias8)}) {
    LinearOp op;
    op.Configure(view, false, "test");
    REQUIRE(op.Pack(nullptr).ok());
    for (int rows : {1, 2, 3, 4}) {
      CAPTURE(rows);
      Scratch scratch(rows, 64);
      std::fill(scratch.params.begin(), scratch.params.end(), xnn_quantization_params{-99, 7.0f});
      const std::vector<float> x = RandomInput(rows, 64, 30u + static_cast<uint32_t>(rows));
      std::vector<float> y(static_cast<size_t>(rows) * 32);
      REQUIRE(op.Run(x.data(), static_cast<size_t>(rows), y.data(), scratch.view, nullptr, nullptr).ok());
      REQUIRE(scratch.params.size() == static_cast<size_t>(rows) + kQuantizationParamsPadding);
      const xnn_quantization_params last = scratch.params[static_cast<size_t>(rows) - 1];
      CHECK(last.scale != 7.0f);
      for (size_t i = static_cast<size_t>(rows); i < scratch.params.size(); ++i) {
        CAPTURE(i);
        CHECK(scratch.params[i].zero_point == last.zero_point);
        CHECK(scratch.params[i].scale == last.scale);
      }
    }
  }
}

TEST_CASE("fused int4 layers run as one int4 product, their outputs side by side") {
  XnnpackReady ready;
  const Int4Weight q(64, 128, 64, 1), k(64, 128, 64, 2), v(48, 128, 64, 3);
  LinearOp op;
  op.Configure({q.View(), k.View(), v.View()}, "test");
  REQUIRE(op.kind() == WeightType::kInt4);
  REQUIRE(op.Pack(nullptr).ok());
  const std::vector<float> x = RandomInput(5, 128, 9);
  CheckAgainstFormula({&q, &k, &v}, x, 5, Run(op, x, 5), false);
}

TEST_CASE("a fused group mixing int4 and int8 (or int4 block sizes) runs in float on the dequantized weights") {
  XnnpackReady ready;
  const Int4Weight a(32, 64, 32, 4);
  const Int4Weight other_block(32, 64, 64, 5);
  std::vector<int8_t> q8(32 * 64);
  std::vector<float> s8(32), bias8(32, 0.25f);
  for (size_t i = 0; i < q8.size(); ++i) q8[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127);
  for (size_t r = 0; r < s8.size(); ++r) s8[r] = 0.001f * static_cast<float>(r + 1);
  for (const LinearView& second : {Int8View(32, 64, q8, s8, bias8), other_block.View()}) {
    LinearOp op;
    op.Configure({a.View(), second}, "test");
    REQUIRE(op.kind() == WeightType::kFloat32);
    REQUIRE(op.Pack(nullptr).ok());
    const std::vector<float> x = RandomInput(3, 64, 12);
    const std::vector<float> y = Run(op, x, 3);
    for (int i = 0; i < 3; ++i) {
      for (int r = 0; r < 64; ++r) {
        double expected = 0.0, magnitude = 0.0;
        for (int c = 0; c < 64; ++c) {
          const double w = r < 32 ? a.Value(r, c)
                           : second.is_int8() ? q8[static_cast<size_t>(r - 32) * 64 + c] * static_cast<double>(s8[r - 32])
                                              : other_block.Value(r - 32, c);
          expected += x[static_cast<size_t>(i) * 64 + c] * w;
          magnitude += std::fabs(x[static_cast<size_t>(i) * 64 + c] * w);
        }
        expected += r < 32 ? a.bias[r] : second.bias[r - 32];
        CHECK(std::fabs(y[static_cast<size_t>(i) * 64 + r] - expected) <= 1e-5 * magnitude + 1e-6);
      }
    }
  }
}

TEST_CASE("an int4 model file loads; malformed Int4 tensors are refused with their name") {
  TestModelSpec spec;
  spec.d_model = 64;
  spec.d_ff = 128;
  spec.int4_block = 32;
  {
    const auto test = LoadTestModel(spec);
    CHECK(test.model->is_int8());  // the int8 scratch is planned for int4 layers too
  }
  auto expect_invalid = [&](std::function<void(fb::ModelT&)> mutate, const std::string& needle) {
    TestModelSpec broken = spec;
    broken.mutate = std::move(mutate);
    const std::vector<uint8_t> bytes = BuildTestModelFile(broken);
    edgemt::testing::AlignedBytes aligned(bytes);
    auto model = Model::FromBuffer(aligned.data(), aligned.size());
    REQUIRE_FALSE(model.ok());
    CHECK(model.status().code() == StatusCode::kInvalidModel);
    INFO(model.status().message());
    CHECK(model.status().message().find(needle) != std::string::npos);
  };
  auto query = [](fb::ModelT& m) -> fb::TensorT& { return *m.encoder->layers[0]->self_attention->query->weight; };
  expect_invalid([&](fb::ModelT& m) { query(m).block_size = 48; }, "encoder.layers[0].self_attention.query.weight has block_size 48");
  expect_invalid([&](fb::ModelT& m) { query(m).block_size = 0; }, "block_size 0");
  expect_invalid([&](fb::ModelT& m) { query(m).block_scales.pop_back(); }, "needs 128 block scales, has 127");
  expect_invalid([&](fb::ModelT& m) { query(m).block_scales[3] = 0x8000 | query(m).block_scales[3]; },
                 "block scale that is not a positive normal number (row 1, block 1)");
  expect_invalid([&](fb::ModelT& m) { query(m).block_scales[0] = 0x0001; }, "not a positive normal number");
  expect_invalid([&](fb::ModelT& m) { query(m).block_scales[0] = 0x7F80; }, "not a positive normal number");
  expect_invalid([&](fb::ModelT& m) { query(m).data.pop_back(); }, "has 2047 bytes, its shape needs 2048");
  // Biases and norms are never int4 (embeddings may be: the next test).
  expect_invalid([&](fb::ModelT& m) {
    auto& bias = m.encoder->layers[0]->self_attention->query->bias;
    const std::vector<uint32_t> shape = bias->shape;
    bias = std::make_unique<fb::TensorT>(query(m));
    bias->shape = shape;
  }, "encoder.layers[0].self_attention.query.bias must be float32, not int4");
}

namespace {

// `tensor` (Int4) as the float32 tensor of its dequantized values.
std::unique_ptr<fb::TensorT> Dequantized(const fb::TensorT& tensor) {
  const size_t rows = tensor.shape[0], cols = tensor.shape[1], block = tensor.block_size;
  auto out = std::make_unique<fb::TensorT>();
  out->type = fb::TensorType::Float32;
  out->shape = tensor.shape;
  out->data.resize(rows * cols * sizeof(float));
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      const size_t element = r * cols + c;
      const uint8_t pair = tensor.data[element / 2];
      const int q = (element % 2 == 0 ? (pair & 0xF) : (pair >> 4)) - 8;
      const float value = static_cast<float>(q) * FromBfloat16(tensor.block_scales[r * (cols / block) + c / block]);
      std::memcpy(out->data.data() + element * sizeof(float), &value, sizeof(float));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("int4 token embeddings (format 2.6) look up their dequantized rows; a tied projection runs on them") {
  for (bool tied : {false, true}) {
    CAPTURE(tied);
    TestModelSpec spec;
    spec.d_model = 64;
    spec.d_ff = 128;
    spec.int4_block = 32;
    spec.int4_embeddings = true;
    spec.tied_output = tied;
    TestModelSpec widened = spec;
    widened.mutate = [](fb::ModelT& m) {
      m.encoder->token_embedding = Dequantized(*m.encoder->token_embedding);
      m.decoder->token_embedding = Dequantized(*m.decoder->token_embedding);
    };
    const auto int4 = LoadTestModel(spec);
    const auto float32 = LoadTestModel(widened);
    TranslatorOptions options;
    options.max_batch_size = 2;
    auto a = Translator::Create(int4.model, options);
    auto b = Translator::Create(float32.model, options);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    const std::vector<int32_t> first = {5, 9, 17, 3}, second = {30, 3};
    const TokenIds sources[2] = {{first.data(), first.size()}, {second.data(), second.size()}};
    REQUIRE(a.value()->Encode(sources, 2).ok());
    REQUIRE(b.value()->Encode(sources, 2).ok());
    const size_t d = static_cast<size_t>(spec.d_model);
    for (size_t s = 0; s < 2; ++s) {
      const float* x = a.value()->encoder_output(s);
      const float* y = b.value()->encoder_output(s);
      for (size_t i = 0; i < sources[s].size * d; ++i) CHECK(x[i] == y[i]);  // the same floats in
    }
    const int32_t tokens[2] = {2, 2};
    REQUIRE(a.value()->DecodeStep(tokens).ok());
    REQUIRE(b.value()->DecodeStep(tokens).ok());
    double largest = 0.0, worst = 0.0;
    for (size_t v = 0; v < static_cast<size_t>(spec.target_vocab); ++v) {
      const float x = a.value()->logits(0)[v], y = b.value()->logits(0)[v];
      largest = std::max(largest, std::fabs(static_cast<double>(y)));
      worst = std::max(worst, std::fabs(static_cast<double>(x) - y));
    }
    // Untied, the step is the same computation; tied, the int4 projection
    // quantizes its input (docs/int4.md) where the float one does not.
    if (tied) {
      CHECK(worst <= 0.05 * largest);
    } else {
      CHECK(worst == 0.0);
    }
  }
}
