// Verified, typed views into a model file. Everything here points into the
// file's bytes (memory-mapped or the caller's buffer); nothing is copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "edgemt/model_config.h"
#include "base/fixed_array.h"

namespace edgemt {

// kInt4: Linear weights only (docs/int4.md).
enum class WeightType { kFloat32, kInt8, kInt4 };

// XNNPACK's weight-packing kernels load whole vectors and may read past the
// last weight byte (the fuzzer found an x16c8 avx256vnni kernel doing so into
// the next page). Every Linear weight has at least this many readable bytes
// after it: the reader requires them in the file, LinearOp's stacked copies
// add them.
constexpr size_t kPackingReadSlack = 64;

// A [rows, cols] matrix (a vector has cols == 1).
struct MatrixView {
  WeightType type = WeightType::kFloat32;
  int rows = 0;
  int cols = 0;
  const void* data = nullptr;     // float or int8_t elements, or int4 nibble pairs; row-major
  const float* scales = nullptr;  // int8: one per row
  // int4: a bfloat16 scale per row and block of block_size columns, [rows, cols / block_size].
  const uint16_t* block_scales = nullptr;
  int block_size = 0;
  bool present() const { return data != nullptr; }
  const float* f32() const { return static_cast<const float*>(data); }
  const int8_t* i8() const { return static_cast<const int8_t*>(data); }
  const uint8_t* nibbles() const { return static_cast<const uint8_t*>(data); }
  size_t bytes() const {
    const size_t elements = static_cast<size_t>(rows) * cols;
    return type == WeightType::kInt4 ? elements / 2 : elements * (type == WeightType::kInt8 ? 1 : 4);
  }
  size_t block_scale_count() const {
    return type == WeightType::kInt4 ? static_cast<size_t>(rows) * (cols / block_size) : 0;
  }
};

// y = x W^T + b; W is [out, in].
struct LinearView {
  MatrixView weight;
  const float* bias = nullptr;  // [out] or null
  bool is_int8() const { return weight.type == WeightType::kInt8; }
  bool is_int4() const { return weight.type == WeightType::kInt4; }
  // Its input is quantized per row at run time (docs/int8.md).
  bool is_quantized() const { return is_int8() || is_int4(); }
};

// The layers one operator computes: one, or up to three fused side by side
// (an attention's query, key and value).
struct LinearParts {
  static constexpr size_t kMax = 3;
  LinearView items[kMax];
  size_t count = 0;
  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  const LinearView& front() const { return items[0]; }
  const LinearView* begin() const { return items; }
  const LinearView* end() const { return items + count; }
};

struct LayerNormView {
  const float* gamma = nullptr;
  const float* beta = nullptr;
};

struct AttentionView {
  LinearView query, key, value, output;
};

struct FeedForwardView {
  LinearView up, down;
};

struct EncoderLayerView {
  AttentionView self_attention;
  LayerNormView self_attention_norm;
  FeedForwardView feed_forward;
  LayerNormView feed_forward_norm;
};

// Marian's SSRU (schema/edgemt.fbs): transform [d, d] without a bias,
// forget_gate [d, d] with one.
struct SSRUView {
  LinearView transform, forget_gate;
};

// self_attention or ssru, as ModelConfig::decoder_block says; the norm
// after either is self_attention_norm.
struct DecoderLayerView {
  AttentionView self_attention;
  SSRUView ssru;
  LayerNormView self_attention_norm;
  AttentionView cross_attention;
  LayerNormView cross_attention_norm;
  FeedForwardView feed_forward;
  LayerNormView feed_forward_norm;
};

// The file's vocabulary shortlist (docs/shortlist.md), verified: ids in the
// target vocabulary, each source id's candidates ascending and unique.
struct ShortlistView {
  const int32_t* frequent = nullptr;  // ascending
  size_t frequent_count = 0;
  const uint32_t* offsets = nullptr;  // [source_vocab + 1]
  const int32_t* candidates = nullptr;
  size_t longest = 0;  // the most candidates any source id has
  // 2.7: the output projection's rows summed over the whole vocabulary
  // [d_model], and its bias summed (decoding estimates the probability of
  // the ids outside a list from them); null in older files.
  const float* output_row_sum = nullptr;
  double output_bias_sum = 0.0;
  // 2.9: Marian's padding of a source's set (schema's Shortlist.pad_*);
  // pad_multiple 0 or 1: none.
  size_t pad_multiple = 0;
  int32_t pad_from = 0;
  size_t pad_uncounted = 0;
  bool present() const { return offsets != nullptr; }
};

struct ModelWeights {
  ModelConfig config;
  bool is_int8 = false;  // any int8 or int4 weight: the int8 scratch is needed
  MatrixView source_embedding;         // [source_vocab, d]
  MatrixView target_embedding;         // [target_vocab, d]
  const float* source_positions = nullptr;  // learned tables only
  const float* target_positions = nullptr;
  FixedArray<EncoderLayerView> encoder_layers;
  FixedArray<DecoderLayerView> decoder_layers;
  LayerNormView encoder_final_norm;    // pre-LN only
  LayerNormView decoder_final_norm;    // pre-LN only
  LayerNormView encoder_embedding_norm;  // gamma null: none (ModelConfig::embedding_norm)
  LayerNormView decoder_embedding_norm;
  LinearView output_projection;        // weight is target_embedding when tied
  ShortlistView shortlist;             // absent: decoding always uses the whole vocabulary
};

}  // namespace edgemt
