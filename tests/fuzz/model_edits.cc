// One meaningful change to a valid model (FlatBuffers object API): a
// hyperparameter, a tensor's type, shape, size, scales or values, a
// quantization parameter, a shortlist, a missing table, a layer too many or
// too few. Shared by the model-loader fuzzer's mutator (model_mutator.cc)
// and the whole-path fuzzer (fuzz_translate.cc).
#include "model_edits.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "test_model.h"

namespace {

using edgemt::fb::TensorT;
using Random = std::mt19937;

size_t Pick(Random& random, size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(random); }

float SpecialFloat(Random& random) {
  const float values[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(), 0.0f, -0.0f, -1.0f, 1e-40f, 1e-30f, 1e30f,
                          3.4e38f, 0.5f, 1.0f, 255.0f};
  return values[Pick(random, sizeof values / sizeof values[0])];
}

uint32_t SpecialCount(Random& random, uint32_t current) {
  const uint32_t values[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 63, 64, 65536, 1u << 24, 0xffffffffu,
                             current + 1, current - 1, current * 2, current / 2};
  return values[Pick(random, sizeof values / sizeof values[0])];
}

// Every tensor slot and Linear in the model, to pick one from.
struct Parts {
  std::vector<std::unique_ptr<TensorT>*> tensors;
  std::vector<edgemt::fb::LinearT*> linears;

  void Add(std::unique_ptr<edgemt::fb::LinearT>& linear) {
    if (!linear) return;
    linears.push_back(linear.get());
    tensors.push_back(&linear->weight);
    tensors.push_back(&linear->bias);
  }
  void Add(std::unique_ptr<edgemt::fb::AttentionT>& a) {
    if (!a) return;
    Add(a->query);
    Add(a->key);
    Add(a->value);
    Add(a->output);
  }
  void Add(std::unique_ptr<edgemt::fb::FeedForwardT>& f) {
    if (!f) return;
    Add(f->up);
    Add(f->down);
  }
  void Add(std::unique_ptr<edgemt::fb::LayerNormT>& n) {
    if (!n) return;
    tensors.push_back(&n->gamma);
    tensors.push_back(&n->beta);
  }

  explicit Parts(edgemt::fb::ModelT& m) {
    if (m.encoder) {
      tensors.push_back(&m.encoder->token_embedding);
      tensors.push_back(&m.encoder->positions);
      for (auto& layer : m.encoder->layers) {
        if (!layer) continue;
        Add(layer->self_attention);
        Add(layer->self_attention_norm);
        Add(layer->feed_forward);
        Add(layer->feed_forward_norm);
      }
      Add(m.encoder->final_norm);
    }
    if (m.decoder) {
      tensors.push_back(&m.decoder->token_embedding);
      tensors.push_back(&m.decoder->positions);
      for (auto& layer : m.decoder->layers) {
        if (!layer) continue;
        Add(layer->self_attention);
        Add(layer->self_attention_norm);
        Add(layer->cross_attention);
        Add(layer->cross_attention_norm);
        Add(layer->feed_forward);
        Add(layer->feed_forward_norm);
      }
      Add(m.decoder->final_norm);
      Add(m.decoder->output_projection);
    }
  }
};

size_t Elements(const TensorT& t) {
  size_t n = t.shape.empty() ? 0 : 1;
  for (uint32_t dim : t.shape) n *= dim;
  return n;
}

// Float32 <-> int8 with consistent sizes and scales: a valid tensor of the
// other type, which the model may or may not allow at that place.
void ConvertType(TensorT& t) {
  const size_t rows = t.shape.empty() ? 0 : t.shape[0];
  const size_t n = Elements(t);
  if (rows == 0 || n == 0 || n % rows != 0) return;
  if (t.type == edgemt::fb::TensorType::Float32 && t.data.size() == n * 4) {
    std::vector<float> values(n);
    std::memcpy(values.data(), t.data.data(), n * 4);
    t.type = edgemt::fb::TensorType::Int8;
    t.data.assign(n, 0);
    t.scales.assign(rows, 0.01f);
    for (size_t i = 0; i < n; ++i) {
      const float q = std::fmax(-127.0f, std::fmin(127.0f, std::nearbyint(values[i] / 0.01f)));
      t.data[i] = static_cast<uint8_t>(static_cast<int8_t>(std::isnan(q) ? 0.0f : q));
    }
  } else if (t.type == edgemt::fb::TensorType::Int8 && t.data.size() == n && t.scales.size() == rows) {
    std::vector<float> values(n);
    for (size_t i = 0; i < n; ++i) values[i] = static_cast<int8_t>(t.data[i]) * t.scales[i / (n / rows)];
    t.type = edgemt::fb::TensorType::Float32;
    t.scales.clear();
    t.data.resize(n * 4);
    std::memcpy(t.data.data(), values.data(), n * 4);
  }
}

void MutateTensor(std::unique_ptr<TensorT>& slot, Random& random) {
  if (!slot) return;
  TensorT& t = *slot;
  switch (Pick(random, 8)) {
    case 0: ConvertType(t); break;
    case 1: t.type = static_cast<edgemt::fb::TensorType>(Pick(random, 4)); break;
    case 2:
      if (!t.shape.empty()) t.shape[Pick(random, t.shape.size())] = SpecialCount(random, t.shape[0]);
      break;
    case 3: t.data.resize(Pick(random, 2) == 0 ? t.data.size() / 2 : t.data.size() + 1); break;
    case 4:
      if (!t.scales.empty()) t.scales[Pick(random, t.scales.size())] = SpecialFloat(random);
      break;
    case 5:
      if (t.data.size() >= 4 && t.type == edgemt::fb::TensorType::Float32) {
        const float value = SpecialFloat(random);
        std::memcpy(&t.data[Pick(random, t.data.size() / 4) * 4], &value, 4);
      } else if (!t.data.empty()) {
        t.data[Pick(random, t.data.size())] = static_cast<uint8_t>(random());
      }
      break;
    case 6: t.scales.resize(Pick(random, t.scales.size() + 2)); break;
    default: slot.reset(); break;
  }
}

void MutateLinear(edgemt::fb::LinearT& linear, Random& random) {
  // The bias: gone, or a special value (NaN, infinities, huge) in one element.
  if (Pick(random, 2) == 0 || !linear.bias || linear.bias->data.size() < sizeof(float)) {
    linear.bias.reset();
    return;
  }
  const float value = SpecialFloat(random);
  std::memcpy(linear.bias->data.data() + Pick(random, linear.bias->data.size() / sizeof(float)) * sizeof(float),
              &value, sizeof value);
}

void MutateConfig(edgemt::fb::ConfigT& c, Random& random) {
  uint32_t* counts[] = {&c.d_model, &c.num_heads, &c.d_ff, &c.encoder_layers, &c.decoder_layers,
                        &c.source_vocab_size, &c.target_vocab_size, &c.max_positions};
  int32_t* ids[] = {&c.pad_id, &c.unk_id, &c.bos_id, &c.eos_id, &c.decoder_start_id};
  switch (Pick(random, 6)) {
    case 0: {
      uint32_t* count = counts[Pick(random, 8)];
      *count = SpecialCount(random, *count);
      break;
    }
    case 1: *ids[Pick(random, 5)] = static_cast<int32_t>(SpecialCount(random, c.target_vocab_size)); break;
    case 2: (Pick(random, 2) == 0 ? c.layer_norm_epsilon : c.embedding_scale) = SpecialFloat(random); break;
    case 3:
      c.norm = static_cast<edgemt::fb::NormPlacement>(Pick(random, 3));
      c.activation = static_cast<edgemt::fb::Activation>(Pick(random, 4));
      break;
    case 4: c.position_encoding = static_cast<edgemt::fb::PositionEncoding>(Pick(random, 4)); break;
    default:
      (Pick(random, 2) == 0 ? c.shared_embeddings : c.tied_output) ^= true;
      break;
  }
}

// The vocabulary shortlist (format 2.5): an id, an offset or a list broken,
// a list emptied, 2.7's output sums resized or made huge or NaN, or a
// shortlist made up for a model without one.
void MutateShortlist(edgemt::fb::ModelT& model, Random& random) {
  if (!model.shortlist) {
    auto list = std::make_unique<edgemt::fb::ShortlistT>();
    const uint32_t sources = model.config ? model.config->source_vocab_size : 8;
    const uint32_t targets = model.config ? model.config->target_vocab_size : 9;
    list->offsets.push_back(0);
    for (uint32_t i = 0; i < sources && i < 4096; ++i) {
      if (targets > 0 && Pick(random, 2) == 0) list->candidates.push_back(static_cast<int32_t>(Pick(random, targets)));
      list->offsets.push_back(static_cast<uint32_t>(list->candidates.size()));
    }
    if (targets > 4) list->frequent = {4};
    model.shortlist = std::move(list);
    return;
  }
  edgemt::fb::ShortlistT& list = *model.shortlist;
  switch (Pick(random, 8)) {
    case 0:
      if (!list.offsets.empty()) list.offsets[Pick(random, list.offsets.size())] = SpecialCount(random, 4);
      break;
    case 5: list.output_row_sum.resize(Pick(random, list.output_row_sum.size() + 2), 1.0f); break;
    case 6: {
      const float values[] = {std::nanf(""), INFINITY, 3e38f, -3e38f, 1e-30f};
      const float value = values[Pick(random, 5)];
      if (!list.output_row_sum.empty()) list.output_row_sum[Pick(random, list.output_row_sum.size())] = value;
      else list.output_bias_sum = value;
      break;
    }
    case 1:
      if (!list.candidates.empty())
        list.candidates[Pick(random, list.candidates.size())] = static_cast<int32_t>(SpecialCount(random, 8));
      break;
    case 2:
      if (!list.frequent.empty()) list.frequent[Pick(random, list.frequent.size())] = -static_cast<int32_t>(Pick(random, 3));
      break;
    case 3: list.offsets.resize(Pick(random, list.offsets.size() + 2)); break;
    case 4: list.candidates.clear(); break;
    default: model.shortlist.reset();
  }
}

void Mutate(edgemt::fb::ModelT& model, Random& random) {
  Parts parts(model);
  switch (Pick(random, 9)) {
    case 7:
      MutateShortlist(model, random);
      break;
    case 0:
      if (model.config) MutateConfig(*model.config, random);
      break;
    case 1:
    case 2:
    case 3:
      if (!parts.tensors.empty()) MutateTensor(*parts.tensors[Pick(random, parts.tensors.size())], random);
      break;
    case 4:
      if (!parts.linears.empty()) MutateLinear(*parts.linears[Pick(random, parts.linears.size())], random);
      break;
    case 5:  // a layer too few or too many
      if (model.decoder && !model.decoder->layers.empty() && Pick(random, 2) == 0) {
        model.decoder->layers.pop_back();
      } else if (model.encoder && !model.encoder->layers.empty()) {
        model.encoder->layers.pop_back();
      }
      break;
    case 6:
      model.format_major = static_cast<uint16_t>(Pick(random, 3));
      model.format_minor = static_cast<uint16_t>(random());
      break;
    default: {  // a table gone, or a tokenizer of random bytes
      switch (Pick(random, 5)) {
        case 0: model.encoder.reset(); break;
        case 1: model.config.reset(); break;
        case 2:
          if (model.decoder) model.decoder->output_projection.reset();
          break;
        case 3: model.metadata.reset(); break;
        default:
          model.tokenizer = std::make_unique<edgemt::fb::TokenizerT>();
          for (int i = 0; i < 16; ++i) model.tokenizer->source_model.push_back(static_cast<uint8_t>(random()));
      }
    }
  }
}

}  // namespace

namespace edgemt::testing {

void EditModel(fb::ModelT& model, std::mt19937& random) { Mutate(model, random); }

}  // namespace edgemt::testing
