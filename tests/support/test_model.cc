#include "test_model.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>

namespace edgemt::testing {
namespace {

class Random {
 public:
  explicit Random(uint32_t seed) : engine_(seed) {}
  std::vector<float> Uniform(size_t n, float bound) {
    std::uniform_real_distribution<float> dist(-bound, bound);
    std::vector<float> values(n);
    for (float& v : values) v = dist(engine_);
    return values;
  }

 private:
  std::mt19937 engine_;
};

std::vector<uint8_t> AsBytes(const void* data, size_t bytes) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  return std::vector<uint8_t>(p, p + bytes);
}

std::unique_ptr<fb::TensorT> FloatTensor(const std::vector<float>& values, std::vector<uint32_t> shape) {
  auto tensor = std::make_unique<fb::TensorT>();
  tensor->type = fb::TensorType::Float32;
  tensor->shape = std::move(shape);
  tensor->data = AsBytes(values.data(), values.size() * sizeof(float));
  return tensor;
}

// Symmetric per-row int8, as docs/int8.md.
std::unique_ptr<fb::TensorT> Int8Tensor(const std::vector<float>& values, uint32_t rows, uint32_t cols) {
  auto tensor = std::make_unique<fb::TensorT>();
  tensor->type = fb::TensorType::Int8;
  tensor->shape = {rows, cols};
  tensor->data.resize(static_cast<size_t>(rows) * cols);
  tensor->scales.resize(rows);
  for (uint32_t r = 0; r < rows; ++r) {
    float max_abs = 0.0f;
    for (uint32_t c = 0; c < cols; ++c) max_abs = std::max(max_abs, std::fabs(values[r * cols + c]));
    const float scale = max_abs > 0.0f ? max_abs / 127.0f : 1.0f;
    tensor->scales[r] = scale;
    for (uint32_t c = 0; c < cols; ++c) {
      const float q = std::nearbyint(values[r * cols + c] / scale);
      tensor->data[r * cols + c] = static_cast<uint8_t>(static_cast<int8_t>(std::max(-127.0f, std::min(127.0f, q))));
    }
  }
  return tensor;
}

// Rounds a float to the nearest bfloat16 (ties to even); returns its bits.
uint16_t ToBfloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

float FromBfloat16(uint16_t bits) {
  const uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &widened, sizeof(value));
  return value;
}

// 4 bits with a bfloat16 scale per block, as docs/int4.md (the scale
// max|w| / 7, not the converter's search).
std::unique_ptr<fb::TensorT> Int4Tensor(const std::vector<float>& values, uint32_t rows, uint32_t cols, uint32_t block) {
  auto tensor = std::make_unique<fb::TensorT>();
  tensor->type = fb::TensorType::Int4;
  tensor->shape = {rows, cols};
  tensor->block_size = block;
  tensor->data.assign(static_cast<size_t>(rows) * cols / 2, 0);
  tensor->block_scales.resize(static_cast<size_t>(rows) * (cols / block));
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t b = 0; b < cols / block; ++b) {
      float max_abs = 0.0f;
      for (uint32_t c = b * block; c < (b + 1) * block; ++c) max_abs = std::max(max_abs, std::fabs(values[r * cols + c]));
      const uint16_t scale_bits = ToBfloat16(max_abs > 0.0f ? max_abs / 7.0f : 1.0f);
      const float scale = FromBfloat16(scale_bits);
      tensor->block_scales[r * (cols / block) + b] = scale_bits;
      for (uint32_t c = b * block; c < (b + 1) * block; ++c) {
        const float q = std::max(-8.0f, std::min(7.0f, std::nearbyint(values[r * cols + c] / scale)));
        const size_t element = static_cast<size_t>(r) * cols + c;
        const uint8_t nibble = static_cast<uint8_t>(static_cast<int>(q) + 8);
        tensor->data[element / 2] |= static_cast<uint8_t>(element % 2 == 0 ? nibble : nibble << 4);
      }
    }
  }
  return tensor;
}

struct Builder {
  const TestModelSpec& spec;
  Random random;

  std::unique_ptr<fb::TensorT> Matrix(int rows, int cols) {
    const float bound = std::sqrt(6.0f / static_cast<float>(rows + cols));
    std::vector<float> values = random.Uniform(static_cast<size_t>(rows) * cols, bound);
    if (spec.int4_block > 0)
      return Int4Tensor(values, static_cast<uint32_t>(rows), static_cast<uint32_t>(cols),
                        static_cast<uint32_t>(spec.int4_block));
    if (spec.int8) return Int8Tensor(values, static_cast<uint32_t>(rows), static_cast<uint32_t>(cols));
    return FloatTensor(values, {static_cast<uint32_t>(rows), static_cast<uint32_t>(cols)});
  }

  std::unique_ptr<fb::LinearT> Linear(int out, int in) {
    auto linear = std::make_unique<fb::LinearT>();
    linear->weight = Matrix(out, in);
    linear->bias = FloatTensor(random.Uniform(static_cast<size_t>(out), 0.1f), {static_cast<uint32_t>(out)});
    return linear;
  }

  std::unique_ptr<fb::LayerNormT> Norm() {
    auto norm = std::make_unique<fb::LayerNormT>();
    std::vector<float> gamma = random.Uniform(static_cast<size_t>(spec.d_model), 0.1f);
    for (float& g : gamma) g += 1.0f;
    norm->gamma = FloatTensor(gamma, {static_cast<uint32_t>(spec.d_model)});
    norm->beta = FloatTensor(random.Uniform(static_cast<size_t>(spec.d_model), 0.1f), {static_cast<uint32_t>(spec.d_model)});
    return norm;
  }

  std::unique_ptr<fb::AttentionT> Attention() {
    auto attention = std::make_unique<fb::AttentionT>();
    attention->query = Linear(spec.d_model, spec.d_model);
    attention->key = Linear(spec.d_model, spec.d_model);
    attention->value = Linear(spec.d_model, spec.d_model);
    attention->output = Linear(spec.d_model, spec.d_model);
    return attention;
  }

  std::unique_ptr<fb::SSRUT> SSRU() {
    auto ssru = std::make_unique<fb::SSRUT>();
    ssru->transform = Linear(spec.d_model, spec.d_model);
    ssru->transform->bias.reset();  // an SSRU's transform has none
    ssru->forget_gate = Linear(spec.d_model, spec.d_model);
    return ssru;
  }

  std::unique_ptr<fb::FeedForwardT> FeedForward() {
    auto ffn = std::make_unique<fb::FeedForwardT>();
    ffn->up = Linear(spec.d_ff, spec.d_model);
    ffn->down = Linear(spec.d_model, spec.d_ff);
    return ffn;
  }

  std::unique_ptr<fb::TensorT> Embedding(int vocab) {
    std::vector<float> values = random.Uniform(static_cast<size_t>(vocab) * spec.d_model, 1.0f / std::sqrt(static_cast<float>(spec.d_model)));
    if (spec.int4_embeddings && spec.int4_block > 0)
      return Int4Tensor(values, static_cast<uint32_t>(vocab), static_cast<uint32_t>(spec.d_model),
                        static_cast<uint32_t>(spec.int4_block));
    if (spec.int8 || spec.int4_block > 0)
      return Int8Tensor(values, static_cast<uint32_t>(vocab), static_cast<uint32_t>(spec.d_model));
    return FloatTensor(values, {static_cast<uint32_t>(vocab), static_cast<uint32_t>(spec.d_model)});
  }

  std::unique_ptr<fb::TensorT> PositionTable() {
    return FloatTensor(random.Uniform(static_cast<size_t>(spec.max_positions) * spec.d_model, 0.5f),
                       {static_cast<uint32_t>(spec.max_positions), static_cast<uint32_t>(spec.d_model)});
  }
};

}  // namespace

std::vector<uint8_t> BuildTestModelFile(const TestModelSpec& spec) {
  Builder b{spec, Random(spec.seed)};
  fb::ModelT model;
  model.format_major = 2;
  model.format_minor = spec.marian ? 8 : spec.int4_embeddings ? 6 : spec.embedding_norm ? 4 : spec.int4_block > 0 ? 1 : 0;
  model.config = std::make_unique<fb::ConfigT>();
  fb::ConfigT& c = *model.config;
  c.d_model = static_cast<uint32_t>(spec.d_model);
  c.num_heads = static_cast<uint32_t>(spec.num_heads);
  c.d_ff = static_cast<uint32_t>(spec.d_ff);
  c.encoder_layers = static_cast<uint32_t>(spec.encoder_layers);
  c.decoder_layers = static_cast<uint32_t>(spec.decoder_layers);
  c.source_vocab_size = static_cast<uint32_t>(spec.source_vocab);
  c.target_vocab_size = static_cast<uint32_t>(spec.target_vocab);
  c.max_positions = static_cast<uint32_t>(spec.max_positions);
  c.norm = spec.norm == NormPlacement::kPreLN ? fb::NormPlacement::PreLN : fb::NormPlacement::PostLN;
  c.activation = spec.activation == Activation::kGELU   ? fb::Activation::GELU
                 : spec.activation == Activation::kSiLU ? fb::Activation::SiLU
                                                        : fb::Activation::ReLU;
  c.embedding_scale = std::sqrt(static_cast<float>(spec.d_model));
  c.position_encoding = spec.positions == PositionEncoding::kLearned           ? fb::PositionEncoding::Learned
                        : spec.positions == PositionEncoding::kSinusoidalHalves ? fb::PositionEncoding::SinusoidalHalves
                                                                                : fb::PositionEncoding::SinusoidalInterleaved;
  c.tied_output = spec.tied_output;
  if (spec.marian) {
    c.position_encoding = fb::PositionEncoding::SinusoidalMarian;
    c.decoder_starts_from_zero = true;
    c.default_max_length_factor = 2.0f;
    c.shrinking_beam = true;
  }

  model.encoder = std::make_unique<fb::EncoderT>();
  model.encoder->token_embedding = b.Embedding(spec.source_vocab);
  for (int i = 0; i < spec.encoder_layers; ++i) {
    auto layer = std::make_unique<fb::EncoderLayerT>();
    layer->self_attention = b.Attention();
    layer->self_attention_norm = b.Norm();
    layer->feed_forward = b.FeedForward();
    layer->feed_forward_norm = b.Norm();
    model.encoder->layers.push_back(std::move(layer));
  }
  model.decoder = std::make_unique<fb::DecoderT>();
  model.decoder->token_embedding = b.Embedding(spec.target_vocab);
  for (int i = 0; i < spec.decoder_layers; ++i) {
    auto layer = std::make_unique<fb::DecoderLayerT>();
    if (spec.marian) {
      layer->ssru = b.SSRU();
    } else {
      layer->self_attention = b.Attention();
    }
    layer->self_attention_norm = b.Norm();
    layer->cross_attention = b.Attention();
    layer->cross_attention_norm = b.Norm();
    layer->feed_forward = b.FeedForward();
    layer->feed_forward_norm = b.Norm();
    model.decoder->layers.push_back(std::move(layer));
  }
  if (spec.norm == NormPlacement::kPreLN) {
    model.encoder->final_norm = b.Norm();
    model.decoder->final_norm = b.Norm();
  }
  if (spec.embedding_norm) {
    c.norm = spec.norm == NormPlacement::kPreLN ? fb::NormPlacement::PreLNEmbeddingNorm
                                                : fb::NormPlacement::PostLNEmbeddingNorm;
    model.encoder->embedding_norm = b.Norm();
    model.decoder->embedding_norm = b.Norm();
  }
  if (spec.positions == PositionEncoding::kLearned) {
    model.encoder->positions = b.PositionTable();
    model.decoder->positions = b.PositionTable();
  }
  model.decoder->output_projection = b.Linear(spec.target_vocab, spec.d_model);
  if (spec.tied_output) model.decoder->output_projection->weight.reset();
  model.metadata = std::make_unique<fb::MetadataT>();
  model.metadata->converter_version = "unit-test";
  model.metadata->dtype = spec.int4_block > 0 ? "int4" : spec.int8 ? "int8" : "float32";

  if (spec.mutate) spec.mutate(model);
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(fb::Model::Pack(builder, &model), fb::ModelIdentifier());
  return std::vector<uint8_t>(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
}

void AlignedBytes::Free::operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t(64)); }

AlignedBytes::AlignedBytes(const std::vector<uint8_t>& bytes) : AlignedBytes(bytes.data(), bytes.size()) {}

AlignedBytes::AlignedBytes(const void* data, size_t size) : size_(size) {
  data_.reset(new (std::align_val_t(64)) uint8_t[size == 0 ? 1 : size]);
  if (size != 0) std::memcpy(data_.get(), data, size);
}

TestModelSpec SpecWithTokenizer(const std::vector<uint8_t>& spm) {
  TestModelSpec spec;
  spec.source_vocab = spec.target_vocab = spm.size() > 100000 ? 8000 : 48;
  spec.mutate = [spm](fb::ModelT& m) {
    m.tokenizer = std::make_unique<fb::TokenizerT>();
    m.tokenizer->source_model = spm;
  };
  return spec;
}

TestModel LoadTestModel(const TestModelSpec& spec) {
  TestModel result;
  result.bytes = std::make_shared<AlignedBytes>(BuildTestModelFile(spec));
  auto model = Model::FromBuffer(result.bytes->data(), result.bytes->size());
  if (!model.ok()) {
    std::fprintf(stderr, "test model does not load: %s\n", model.status().ToString().c_str());
    std::abort();
  }
  result.model = model.value();
  return result;
}

std::vector<std::vector<int32_t>> SyntheticSources(int count, int vocab, int first_length, int growth,
                                                   int source_stride, int id_stride) {
  std::vector<std::vector<int32_t>> sources;
  for (int s = 0; s < count; ++s) {
    std::vector<int32_t> ids;
    for (int i = 0; i < first_length + growth * s; ++i) ids.push_back(4 + (s * source_stride + i * id_stride) % (vocab - 4));
    ids.push_back(3);
    sources.push_back(ids);
  }
  return sources;
}

std::vector<TokenIds> Views(const std::vector<std::vector<int32_t>>& sources) {
  std::vector<TokenIds> views;
  for (const auto& s : sources) views.push_back(TokenIds{s.data(), s.size()});
  return views;
}

}  // namespace edgemt::testing
