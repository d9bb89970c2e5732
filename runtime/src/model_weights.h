// Verified, typed views into a model file. Everything here points into the
// file's bytes (memory-mapped or the caller's buffer); nothing is copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "edgemt/model.h"

namespace edgemt {

enum class WeightType { kFloat32, kInt8 };

// A [rows, cols] matrix (a vector has cols == 1).
struct MatrixView {
  WeightType type = WeightType::kFloat32;
  int rows = 0;
  int cols = 0;
  const void* data = nullptr;     // float or int8_t elements, row-major
  const float* scales = nullptr;  // int8: one per row
  bool present() const { return data != nullptr; }
  const float* f32() const { return static_cast<const float*>(data); }
  const int8_t* i8() const { return static_cast<const int8_t*>(data); }
  size_t bytes() const {
    return static_cast<size_t>(rows) * cols * (type == WeightType::kInt8 ? 1 : 4);
  }
};

// y = x W^T + b; W is [out, in].
struct LinearView {
  MatrixView weight;
  const float* bias = nullptr;  // [out] or null
  bool is_int8() const { return weight.type == WeightType::kInt8; }
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

struct DecoderLayerView {
  AttentionView self_attention;
  LayerNormView self_attention_norm;
  AttentionView cross_attention;
  LayerNormView cross_attention_norm;
  FeedForwardView feed_forward;
  LayerNormView feed_forward_norm;
};

struct ModelWeights {
  ModelConfig config;
  bool is_int8 = false;
  MatrixView source_embedding;         // [source_vocab, d]
  MatrixView target_embedding;         // [target_vocab, d]
  const float* source_positions = nullptr;  // learned tables only
  const float* target_positions = nullptr;
  std::vector<EncoderLayerView> encoder_layers;
  std::vector<DecoderLayerView> decoder_layers;
  LayerNormView encoder_final_norm;    // pre-LN only
  LayerNormView decoder_final_norm;    // pre-LN only
  LinearView output_projection;        // weight is target_embedding when tied
};

}  // namespace edgemt
