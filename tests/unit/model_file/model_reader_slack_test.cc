// XNNPACK's packing kernels may read up to kPackingReadSlack bytes past a
// weight: the model reader refuses a buffer whose Linear weight ends closer
// to its end than that (a file edgemt-convert writes never does).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model_file/model_reader.h"
#include "test_model.h"

TEST_CASE("a Linear weight too close to the end of the buffer is refused") {
  edgemt::testing::TestModelSpec spec;
  spec.int8 = true;
  const std::vector<uint8_t> file = edgemt::testing::BuildTestModelFile(spec);
  const edgemt::testing::AlignedBytes bytes(file);
  edgemt::ModelWeights weights;
  REQUIRE(edgemt::ReadModel(bytes.data(), bytes.size(), &weights).ok());

  // The end of the buffer, placed relative to the last byte of the Linear weight that lies last.
  const uint8_t* last = nullptr;
  auto see = [&last](const edgemt::LinearView& linear) {
    const uint8_t* end = static_cast<const uint8_t*>(linear.weight.data) + linear.weight.bytes();
    if (last == nullptr || end > last) last = end;
  };
  auto see_attention = [&see](const edgemt::AttentionView& a) {
    for (const edgemt::LinearView* linear : {&a.query, &a.key, &a.value, &a.output}) see(*linear);
  };
  for (const auto& layer : weights.encoder_layers) {
    see_attention(layer.self_attention);
    see(layer.feed_forward.up);
    see(layer.feed_forward.down);
  }
  for (const auto& layer : weights.decoder_layers) {
    see_attention(layer.self_attention);
    see_attention(layer.cross_attention);
    see(layer.feed_forward.up);
    see(layer.feed_forward.down);
  }
  see(weights.output_projection);
  CHECK(bytes.data() + bytes.size() - last >= static_cast<std::ptrdiff_t>(edgemt::kPackingReadSlack));
  CHECK(edgemt::CheckPackingSlack(weights, last + edgemt::kPackingReadSlack).ok());
  const edgemt::Status status = edgemt::CheckPackingSlack(weights, last + edgemt::kPackingReadSlack - 1);
  CHECK(status.code() == edgemt::StatusCode::kInvalidModel);
  const std::string expected = "ends " + std::to_string(edgemt::kPackingReadSlack - 1) + " bytes before the end";
  CHECK(status.message().find(expected) != std::string::npos);
}
