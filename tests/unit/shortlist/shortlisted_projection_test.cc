// The shortlisted projection's gathered rows (ShortlistedProjection::Gather):
// a list's weight rows copied side by side must give the logits of the same
// rows read in place, bit for bit, for every weight type, with and without a
// bias, for lists gathered and in place in one call; a list whose rows do
// not fit the room given stays in place.
#include <doctest/doctest.h>
#include <xnnpack.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "lcg.h"
#include "ops/quantization_params.h"
#include "shortlist/shortlisted_projection.h"

namespace {

using edgemt::testing::Lcg;

constexpr size_t kVocab = 300;
constexpr size_t kIn = 128;
constexpr int kBlock = 64;

// A random output projection of one weight type, owning its arrays.
struct Projection {
  std::vector<float> floats;
  std::vector<int8_t> bytes;
  std::vector<uint8_t> nibbles;
  std::vector<float> scales;
  std::vector<uint16_t> block_scales;
  std::vector<float> bias;
  edgemt::LinearView view;

  Projection(edgemt::WeightType type, bool with_bias, uint32_t seed) {
    Lcg rng(seed);
    edgemt::MatrixView& w = view.weight;
    w.type = type;
    w.rows = static_cast<int>(kVocab);
    w.cols = static_cast<int>(kIn);
    if (type == edgemt::WeightType::kFloat32) {
      for (size_t i = 0; i < kVocab * kIn; ++i) floats.push_back(rng.Float(-1.0f, 1.0f));
      w.data = floats.data();
    } else if (type == edgemt::WeightType::kInt8) {
      for (size_t i = 0; i < kVocab * kIn; ++i) bytes.push_back(static_cast<int8_t>(rng.Int(-127, 127)));
      for (size_t v = 0; v < kVocab; ++v) scales.push_back(rng.Float(0.001f, 0.02f));
      w.data = bytes.data();
      w.scales = scales.data();
    } else {
      for (size_t i = 0; i < kVocab * kIn / 2; ++i) nibbles.push_back(static_cast<uint8_t>(rng.Int(0, 255)));
      // bfloat16 scales between about 0.002 and 0.03.
      for (size_t i = 0; i < kVocab * kIn / kBlock; ++i) block_scales.push_back(static_cast<uint16_t>(rng.Int(0x3B00, 0x3D00)));
      w.data = nibbles.data();
      w.block_scales = block_scales.data();
      w.block_size = kBlock;
    }
    if (with_bias) {
      for (size_t v = 0; v < kVocab; ++v) bias.push_back(rng.Float(-2.0f, 2.0f));
      view.bias = bias.data();
    }
  }
};

// Room for Run's scratch over `rows` rows.
struct Scratch {
  std::vector<int8_t> input;
  std::vector<xnn_quantization_params> params;
  std::vector<int16_t> centered;
  std::vector<uint32_t> groups;
  edgemt::ShortlistScratch view;

  explicit Scratch(size_t rows)
      : input(rows * kIn + XNN_EXTRA_BYTES),
        params(rows + edgemt::kQuantizationParamsPadding),
        centered(rows * kIn),
        groups(rows + 1) {
    view.quantized.input = input.data();
    view.quantized.params = params.data();
    view.centered = centered.data();
    view.group_starts = groups.data();
  }
};

std::vector<int32_t> ScatteredIds(size_t count, uint32_t seed) {
  Lcg rng(seed);
  std::vector<int32_t> ids;
  int32_t id = rng.Int(0, 5);
  for (size_t c = 0; c < count && id < static_cast<int32_t>(kVocab); ++c, id += rng.Int(1, 9)) ids.push_back(id);
  return ids;
}

}  // namespace

TEST_CASE("shortlist: gathered rows give the logits of the rows read in place, bit for bit") {
  REQUIRE(xnn_initialize(nullptr) == xnn_status_success);
  const std::vector<int32_t> a = ScatteredIds(70, 5), b = ScatteredIds(45, 6);
  const edgemt::OutputColumns list_a{a.size(), a.data()}, list_b{b.size(), b.data()};
  // Three rows share list a (a group read together), two share list b.
  const size_t rows = 5, out_stride = kVocab;
  Lcg rng(7);
  std::vector<float> in(rows * kIn);
  for (float& x : in) x = rng.Float(-3.0f, 3.0f);

  for (const edgemt::WeightType type :
       {edgemt::WeightType::kFloat32, edgemt::WeightType::kInt8, edgemt::WeightType::kInt4}) {
    for (const bool with_bias : {false, true}) {
      CAPTURE(static_cast<int>(type));
      CAPTURE(with_bias);
      const Projection projection(type, with_bias, 11u + static_cast<uint32_t>(type));
      edgemt::ShortlistedProjection op;
      op.Configure(projection.view);
      REQUIRE(op.Create().ok());
      Scratch scratch(rows);

      // Room for list a's rows only: list b stays in place; then room for both.
      const size_t bytes_a = edgemt::GatheredBytes(projection.view, a.size());
      const size_t bytes_b = edgemt::GatheredBytes(projection.view, b.size());
      std::vector<uint8_t> buffer(bytes_a + bytes_b + 64);
      uint8_t* aligned = buffer.data() + (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64;
      size_t used = 0;
      const edgemt::ShortlistRows in_place_a = op.Gather(list_a, aligned, bytes_a - 1, &used);
      CHECK(used == 0);
      CHECK(in_place_a.ids == a.data());
      const edgemt::ShortlistRows in_place_b = op.Gather(list_b, nullptr, 0, &used);
      CHECK(in_place_b.ids == b.data());
      const edgemt::ShortlistRows gathered_a = op.Gather(list_a, aligned, bytes_a, &used);
      CHECK(used == bytes_a);
      CHECK(gathered_a.ids == nullptr);
      CHECK(gathered_a.count == a.size());
      CHECK(gathered_a.weights.weight.data == aligned);
      const edgemt::ShortlistRows gathered_b = op.Gather(list_b, aligned + bytes_a, bytes_b, &used);
      CHECK(used == bytes_b);

      auto run = [&](const edgemt::ShortlistRows& first, const edgemt::ShortlistRows& second) {
        const std::vector<edgemt::ShortlistRows> lists = {first, first, first, second, second};
        std::vector<float> out(rows * out_stride, -9.0f);
        REQUIRE(op.Run(in.data(), rows, lists.data(), out.data(), out_stride, scratch.view, nullptr, nullptr).ok());
        return out;
      };
      const std::vector<float> in_place = run(in_place_a, in_place_b);
      const std::vector<float> gathered = run(gathered_a, gathered_b);
      const std::vector<float> mixed = run(gathered_a, in_place_b);
      // Each row's columns, and nothing past its list.
      for (size_t r = 0; r < rows; ++r) {
        CAPTURE(r);
        const size_t count = r < 3 ? a.size() : b.size();
        const float* x = in_place.data() + r * out_stride;
        CHECK(std::memcmp(x, gathered.data() + r * out_stride, count * sizeof(float)) == 0);
        CHECK(std::memcmp(x, mixed.data() + r * out_stride, count * sizeof(float)) == 0);
        CHECK(x[0] != -9.0f);
        CHECK(x[count - 1] != -9.0f);
        CHECK(gathered[r * out_stride + count] == -9.0f);
      }
    }
  }
}
