// Small random models built in memory with the FlatBuffers builder, for unit
// tests that must not depend on Python or ../shared.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/types.h"
#include "edgemt_generated.h"

namespace edgemt::testing {

struct TestModelSpec {
  int d_model = 16;
  int num_heads = 2;
  int d_ff = 32;
  int encoder_layers = 2;
  int decoder_layers = 2;
  int source_vocab = 40;
  int target_vocab = 48;
  int max_positions = 64;
  bool int8 = false;
  // > 0: Linear weights in int4 with this many inputs per scale (a multiple
  // of 32 dividing d_model and d_ff), embeddings in int8 (docs/int4.md).
  int int4_block = 0;
  // With int4_block: token embeddings in int4 too (format 2.6).
  bool int4_embeddings = false;
  NormPlacement norm = NormPlacement::kPostLN;
  Activation activation = Activation::kReLU;
  PositionEncoding positions = PositionEncoding::kSinusoidalInterleaved;
  bool tied_output = false;
  // A LayerNorm after the embeddings on both sides (format 2.4).
  bool embedding_norm = false;
  // Marian's conventions (format 2.8): SSRU decoder layers, Marian's
  // sinusoid, the zero-embedding start, a length factor of 2 and Marian's
  // shrinking beam (`positions` is then ignored).
  bool marian = false;
  uint32_t seed = 1;
  // Lets a test break the file: called on the finished ModelT before packing.
  std::function<void(fb::ModelT&)> mutate;
};

// A byte buffer aligned to 64 bytes, as Model::FromBuffer wants.
class AlignedBytes {
 public:
  AlignedBytes() = default;
  explicit AlignedBytes(const std::vector<uint8_t>& bytes);
  AlignedBytes(const void* data, size_t size);
  const uint8_t* data() const { return data_.get(); }
  uint8_t* data() { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Free> data_;
  size_t size_ = 0;
};

// The serialized model file.
std::vector<uint8_t> BuildTestModelFile(const TestModelSpec& spec);

// A loaded test model with the buffer it lives in.
struct TestModel {
  std::shared_ptr<AlignedBytes> bytes;
  std::shared_ptr<const Model> model;
};
TestModel LoadTestModel(const TestModelSpec& spec);

// A random model over a SentencePiece model's vocabulary (48 pieces for the
// tiny test model, 8,000 for the Multi30k one), with it as its tokenizer:
// arbitrary output ids, texts in and out.
TestModelSpec SpecWithTokenizer(const std::vector<uint8_t>& spm);

// Deterministic sources for the unit tests, each ending with </s> (3):
// source s has first_length + growth * s ids, its i-th id is
// 4 + (s * source_stride + i * id_stride) % (vocab - 4) (never a special id).
std::vector<std::vector<int32_t>> SyntheticSources(int count, int vocab, int first_length, int growth,
                                                   int source_stride, int id_stride);
// Views of `sources` as Translator takes them.
std::vector<TokenIds> Views(const std::vector<std::vector<int32_t>>& sources);

}  // namespace edgemt::testing
