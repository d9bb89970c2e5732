#include "model_file/model_reader.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "model_file/config_reader.h"
#include "edgemt_generated.h"
#include "model_file/shortlist_reader.h"

namespace edgemt {
namespace {

Status Invalid(const std::string& message) { return Status(StatusCode::kInvalidModel, message); }

// A tensor's dotted name ("decoder.layers[2].cross_attention.query"), built
// on the stack: reading a valid file allocates nothing for names that only
// an error message needs.
class TensorName {
 public:
  explicit TensorName(const char* name) { Append(name); }
  TensorName(const TensorName& parent, const char* part) : TensorName(parent) {
    Append(".");
    Append(part);
  }
  TensorName(const char* stack, uint32_t index) { std::snprintf(text_, sizeof(text_), "%s[%u]", stack, index); }
  const char* c_str() const { return text_; }

 private:
  void Append(const char* part) {
    const size_t used = std::strlen(text_);
    std::snprintf(text_ + used, sizeof(text_) - used, "%s", part);
  }
  char text_[96] = {};
};

std::string operator+(const char* text, const TensorName& name) { return std::string(text) + name.c_str(); }
std::string operator+(const TensorName& name, const char* text) { return std::string(name.c_str()) + text; }

bool PositiveFinite(float v) { return std::isfinite(v) && v > 0.0f; }

// XNNPACK refuses subnormal quantization scales; say so here rather than fail
// later with an XNNPACK status.
std::string ScaleProblem(float v) {
  if (!PositiveFinite(v)) return "is not a positive finite number";
  if (!std::isnormal(v)) return "is subnormal";
  return "";
}

// The tensor types a place in the file allows.
enum class Allowed { kFloat32, kAny };

// Whether a bfloat16 bit pattern is positive, finite and normal: XNNPACK refuses other scales.
bool UsableBfloat16(uint16_t bits) {
  const uint16_t exponent = (bits >> 7) & 0xFF;
  return (bits & 0x8000) == 0 && exponent != 0 && exponent != 0xFF;
}

Status ReadInt4(const fb::Tensor* tensor, const TensorName& name, int cols, MatrixView* out) {
  const uint32_t block = tensor->block_size();
  if (block == 0 || block % 32 != 0 || static_cast<uint32_t>(cols) % block != 0)
    return Invalid("tensor " + name + " has block_size " + std::to_string(block) +
                   ", expected a multiple of 32 that divides " + std::to_string(cols));
  out->type = WeightType::kInt4;
  out->block_size = static_cast<int>(block);
  const auto* scales = tensor->block_scales();
  const size_t expected = out->block_scale_count();
  if (scales == nullptr || scales->size() != expected)
    return Invalid("tensor " + name + " needs " + std::to_string(expected) + " block scales, has " +
                   std::to_string(scales == nullptr ? 0 : scales->size()));
  for (uint32_t i = 0; i < scales->size(); ++i) {
    if (!UsableBfloat16(scales->Get(i)))
      return Invalid("tensor " + name + " has a block scale that is not a positive normal number (row " +
                     std::to_string(i / (cols / block)) + ", block " + std::to_string(i % (cols / block)) + ")");
  }
  out->block_scales = scales->data();
  return Status::Ok();
}

// Reads one Tensor and checks it has `rows` x `cols` elements of an allowed type.
Status ReadMatrix(const fb::Tensor* tensor, const TensorName& name, int rows, int cols,
                  Allowed allowed, MatrixView* out) {
  if (tensor == nullptr) return Invalid("tensor " + name + " is missing");
  const auto* shape = tensor->shape();
  const auto* data = tensor->data();
  if (shape == nullptr) return Invalid("tensor " + name + " has no shape");
  if (data == nullptr) return Invalid("tensor " + name + " has no data");
  bool shape_ok = (shape->size() == 2 && shape->Get(0) == static_cast<uint32_t>(rows) &&
                   shape->Get(1) == static_cast<uint32_t>(cols)) ||
                  (cols == 1 && shape->size() == 1 && shape->Get(0) == static_cast<uint32_t>(rows));
  if (!shape_ok) {
    std::string dims;
    for (uint32_t dim : *shape) dims += (dims.empty() ? "" : "x") + std::to_string(dim);
    return Invalid("tensor " + name + " has shape [" + dims + "], expected [" + std::to_string(rows) +
                   (cols == 1 ? "" : "x" + std::to_string(cols)) + "]");
  }
  out->rows = rows;
  out->cols = cols;
  out->data = data->data();
  out->scales = nullptr;
  out->block_scales = nullptr;
  out->block_size = 0;
  switch (tensor->type()) {
    case fb::TensorType::Float32:
      out->type = WeightType::kFloat32;
      if (reinterpret_cast<uintptr_t>(data->data()) % alignof(float) != 0)
        return Invalid("tensor " + name + " is not aligned");
      break;
    case fb::TensorType::Int8: {
      if (allowed == Allowed::kFloat32) return Invalid("tensor " + name + " must be float32");
      out->type = WeightType::kInt8;
      const auto* scales = tensor->scales();
      if (scales == nullptr || scales->size() != static_cast<uint32_t>(rows))
        return Invalid("tensor " + name + " needs " + std::to_string(rows) + " scales, has " +
                       std::to_string(scales == nullptr ? 0 : scales->size()));
      for (uint32_t i = 0; i < scales->size(); ++i) {
        const std::string problem = ScaleProblem(scales->Get(i));
        if (!problem.empty())
          return Invalid("tensor " + name + " has a scale that " + problem + " (row " + std::to_string(i) + ")");
      }
      out->scales = scales->data();
      break;
    }
    case fb::TensorType::Int4:
      if (allowed != Allowed::kAny) return Invalid("tensor " + name + " must be float32, not int4");
      EDGEMT_RETURN_IF_ERROR(ReadInt4(tensor, name, cols, out));
      break;
    default:
      return Invalid("tensor " + name + " has an unknown type " +
                     std::to_string(static_cast<int>(tensor->type())));
  }
  if (data->size() != out->bytes())
    return Invalid("tensor " + name + " has " + std::to_string(data->size()) + " bytes, its shape needs " +
                   std::to_string(out->bytes()));
  return Status::Ok();
}

Status ReadVector(const fb::Tensor* tensor, const TensorName& name, int size, const float** out) {
  MatrixView view;
  EDGEMT_RETURN_IF_ERROR(ReadMatrix(tensor, name, size, 1, Allowed::kFloat32, &view));
  *out = view.f32();
  return Status::Ok();
}

// `tied_weight` (may be null) is used when the file has no weight of its own.
Status ReadLinear(const fb::Linear* linear, const TensorName& name, int out_features, int in_features,
                  const MatrixView* tied_weight, LinearView* out) {
  if (linear == nullptr) return Invalid("linear layer " + name + " is missing");
  if (linear->weight() != nullptr || tied_weight == nullptr) {
    EDGEMT_RETURN_IF_ERROR(ReadMatrix(linear->weight(), TensorName(name, "weight"), out_features, in_features,
                                      Allowed::kAny, &out->weight));
  } else {
    out->weight = *tied_weight;
  }
  out->bias = nullptr;
  if (linear->bias() != nullptr) EDGEMT_RETURN_IF_ERROR(ReadVector(linear->bias(), TensorName(name, "bias"), out_features, &out->bias));
  return Status::Ok();
}

Status ReadLayerNorm(const fb::LayerNorm* norm, const TensorName& name, int d, LayerNormView* out) {
  if (norm == nullptr) return Invalid("layer norm " + name + " is missing");
  EDGEMT_RETURN_IF_ERROR(ReadVector(norm->gamma(), TensorName(name, "gamma"), d, &out->gamma));
  return ReadVector(norm->beta(), TensorName(name, "beta"), d, &out->beta);
}

// Optional, and only where the config declares embedding norms (format 2.4).
Status ReadEmbeddingNorm(const fb::LayerNorm* norm, const TensorName& name, const ModelConfig& config,
                         LayerNormView* out) {
  if (norm == nullptr) return Status::Ok();
  if (!config.embedding_norm) return Invalid(name + " is present but the norm placement declares no embedding norm");
  return ReadLayerNorm(norm, name, config.d_model, out);
}

Status ReadAttention(const fb::Attention* attention, const TensorName& name, int d, AttentionView* out) {
  if (attention == nullptr) return Invalid("attention " + name + " is missing");
  EDGEMT_RETURN_IF_ERROR(ReadLinear(attention->query(), TensorName(name, "query"), d, d, nullptr, &out->query));
  EDGEMT_RETURN_IF_ERROR(ReadLinear(attention->key(), TensorName(name, "key"), d, d, nullptr, &out->key));
  EDGEMT_RETURN_IF_ERROR(ReadLinear(attention->value(), TensorName(name, "value"), d, d, nullptr, &out->value));
  return ReadLinear(attention->output(), TensorName(name, "output"), d, d, nullptr, &out->output);
}

Status ReadSSRU(const fb::SSRU* ssru, const TensorName& name, int d, SSRUView* out) {
  if (ssru == nullptr) return Invalid("SSRU " + name + " is missing");
  EDGEMT_RETURN_IF_ERROR(ReadLinear(ssru->transform(), TensorName(name, "transform"), d, d, nullptr, &out->transform));
  if (out->transform.bias != nullptr) return Invalid(name + ".transform has a bias; an SSRU's has none");
  return ReadLinear(ssru->forget_gate(), TensorName(name, "forget_gate"), d, d, nullptr, &out->forget_gate);
}

Status ReadFeedForward(const fb::FeedForward* ffn, const TensorName& name, int d, int d_ff, FeedForwardView* out) {
  if (ffn == nullptr) return Invalid("feed-forward block " + name + " is missing");
  EDGEMT_RETURN_IF_ERROR(ReadLinear(ffn->up(), TensorName(name, "up"), d_ff, d, nullptr, &out->up));
  return ReadLinear(ffn->down(), TensorName(name, "down"), d, d_ff, nullptr, &out->down);
}


// A tokenizer's vocabularies, when present, give a piece to each model id.
Status ReadVocabularies(const fb::Tokenizer* tokenizer, const ModelConfig& config) {
  if (tokenizer == nullptr) return Status::Ok();
  const auto* source = tokenizer->source_vocabulary();
  const auto* target = tokenizer->target_vocabulary();
  if (source == nullptr) {
    if (target != nullptr) return Invalid("the tokenizer has a target vocabulary without a source vocabulary");
    return Status::Ok();
  }
  // 2.3: vocabularies without a SentencePiece model are plain tokens.
  auto check = [](const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* pieces, int vocab,
                  const char* side) -> Status {
    if (pieces->size() != static_cast<uint32_t>(vocab))
      return Invalid(std::string("the ") + side + " vocabulary has " + std::to_string(pieces->size()) +
                     " pieces, the model " + std::to_string(vocab) + " ids");
    for (uint32_t i = 0; i < pieces->size(); ++i) {
      if (pieces->Get(i) == nullptr) return Invalid(std::string("the ") + side + " vocabulary has a missing piece");
    }
    return Status::Ok();
  };
  EDGEMT_RETURN_IF_ERROR(check(source, config.source_vocab_size, "source"));
  return check(target != nullptr ? target : source, config.target_vocab_size, "target");
}

// Verifies only the root table's two version fields and reads them.
bool ReadVersion(const uint8_t* data, size_t size, uint16_t* major, uint16_t* minor) {
  flatbuffers::Verifier verifier(data, size);
  const flatbuffers::uoffset_t root = verifier.VerifyOffset(0);
  if (root == 0) return false;
  const auto* table = reinterpret_cast<const flatbuffers::Table*>(data + root);
  if (!table->VerifyTableStart(verifier) ||
      !table->VerifyField<uint16_t>(verifier, fb::Model::VT_FORMAT_MAJOR, sizeof(uint16_t)) ||
      !table->VerifyField<uint16_t>(verifier, fb::Model::VT_FORMAT_MINOR, sizeof(uint16_t)))
    return false;
  *major = table->GetField<uint16_t>(fb::Model::VT_FORMAT_MAJOR, 0);
  *minor = table->GetField<uint16_t>(fb::Model::VT_FORMAT_MINOR, 0);
  return true;
}

}  // namespace

namespace {

// The version first: a newer major format may have changed any table, and
// "unsupported" is the useful answer for it, not "corrupt".
Status CheckFileAndVersion(const uint8_t* data, size_t size) {
  if (data == nullptr || size < 8) return Invalid("the file is empty or too short to be a model (" + std::to_string(size) + " bytes)");
  if (!flatbuffers::BufferHasIdentifier(data, fb::ModelIdentifier()))
    return Invalid("not an EdgeMT model file (identifier is not \"" + std::string(fb::ModelIdentifier()) + "\")");
  uint16_t major = 0, minor = 0;
  if (!ReadVersion(data, size, &major, &minor))
    return Invalid("the file is corrupt or truncated (its root table cannot be read)");
  if (major == 1)
    return Status(StatusCode::kUnsupported, "model format version " + std::to_string(major) + "." +
                                                std::to_string(minor) + " is older than this runtime reads (" +
                                                std::to_string(kFormatMajor) +
                                                ".x, whose int8 arithmetic differs): convert the checkpoint again "
                                                "with this version's edgemt-convert");
  if (major != kFormatMajor)
    return Status(StatusCode::kUnsupported, "model format version " + std::to_string(major) + "." +
                                                std::to_string(minor) + " is not supported (this runtime reads " +
                                                std::to_string(kFormatMajor) + ".x)");
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/64, /*max_tables=*/10000000);
  if (!fb::VerifyModelBuffer(verifier)) return Invalid("the file is corrupt or truncated (FlatBuffer verification failed)");
  return Status::Ok();
}

// Token embeddings and, when learned, position tables.
Status ReadEmbeddings(const fb::Encoder* encoder, const fb::Decoder* decoder, ModelWeights* weights) {
  const ModelConfig& config = weights->config;
  const int d = config.d_model;
  EDGEMT_RETURN_IF_ERROR(ReadMatrix(decoder->token_embedding(), TensorName("decoder.token_embedding"), config.target_vocab_size, d,
                                    Allowed::kAny, &weights->target_embedding));
  if (config.shared_embeddings) {
    weights->source_embedding = weights->target_embedding;
  } else {
    EDGEMT_RETURN_IF_ERROR(ReadMatrix(encoder->token_embedding(), TensorName("encoder.token_embedding"), config.source_vocab_size,
                                      d, Allowed::kAny, &weights->source_embedding));
  }
  if (config.position_encoding == PositionEncoding::kLearned) {
    MatrixView table;
    EDGEMT_RETURN_IF_ERROR(ReadMatrix(encoder->positions(), TensorName("encoder.positions"), config.max_positions, d, Allowed::kFloat32, &table));
    weights->source_positions = table.f32();
    EDGEMT_RETURN_IF_ERROR(ReadMatrix(decoder->positions(), TensorName("decoder.positions"), config.max_positions, d, Allowed::kFloat32, &table));
    weights->target_positions = table.f32();
  }
  return Status::Ok();
}

template <typename Layers>
Status CheckLayerCount(const Layers* layers, int declared, const char* stack, uint32_t* count) {
  *count = layers == nullptr ? 0 : layers->size();
  if (*count != static_cast<uint32_t>(declared))
    return Invalid("the config declares " + std::to_string(declared) + " " + stack + " layers, the file has " +
                   std::to_string(*count));
  return Status::Ok();
}

Status ReadEncoderLayers(const fb::Encoder* encoder, ModelWeights* weights) {
  const ModelConfig& config = weights->config;
  const int d = config.d_model;
  uint32_t count = 0;
  EDGEMT_RETURN_IF_ERROR(CheckLayerCount(encoder->layers(), config.encoder_layers, "encoder", &count));
  if (!weights->encoder_layers.Allocate(count)) return Status(StatusCode::kResourceExhausted, "out of memory");
  for (uint32_t i = 0; i < count; ++i) {
    const fb::EncoderLayer* layer = encoder->layers()->Get(i);
    EncoderLayerView& view = weights->encoder_layers[i];
    const TensorName name("encoder.layers", i);
    if (layer == nullptr) return Invalid(name + " is missing");
    EDGEMT_RETURN_IF_ERROR(ReadAttention(layer->self_attention(), TensorName(name, "self_attention"), d, &view.self_attention));
    EDGEMT_RETURN_IF_ERROR(ReadLayerNorm(layer->self_attention_norm(), TensorName(name, "self_attention_norm"), d, &view.self_attention_norm));
    EDGEMT_RETURN_IF_ERROR(ReadFeedForward(layer->feed_forward(), TensorName(name, "feed_forward"), d, config.d_ff, &view.feed_forward));
    EDGEMT_RETURN_IF_ERROR(ReadLayerNorm(layer->feed_forward_norm(), TensorName(name, "feed_forward_norm"), d, &view.feed_forward_norm));
  }
  return Status::Ok();
}

Status ReadDecoderLayers(const fb::Decoder* decoder, ModelWeights* weights) {
  const ModelConfig& config = weights->config;
  const int d = config.d_model;
  uint32_t count = 0;
  EDGEMT_RETURN_IF_ERROR(CheckLayerCount(decoder->layers(), config.decoder_layers, "decoder", &count));
  if (!weights->decoder_layers.Allocate(count)) return Status(StatusCode::kResourceExhausted, "out of memory");
  // Format 2.8: the first layer says which block the decoder has; every layer has the same.
  const fb::DecoderLayer* first = count > 0 ? decoder->layers()->Get(0) : nullptr;
  const bool ssru = first != nullptr && first->ssru() != nullptr;
  weights->config.decoder_block = ssru ? DecoderBlock::kSSRU : DecoderBlock::kSelfAttention;
  for (uint32_t i = 0; i < count; ++i) {
    const fb::DecoderLayer* layer = decoder->layers()->Get(i);
    DecoderLayerView& view = weights->decoder_layers[i];
    const TensorName name("decoder.layers", i);
    if (layer == nullptr) return Invalid(name + " is missing");
    if ((layer->ssru() != nullptr) != ssru || (layer->self_attention() != nullptr) == ssru)
      return Invalid(name + " has " + (layer->ssru() != nullptr ? "an SSRU" : "no SSRU") + " and " +
                     (layer->self_attention() != nullptr ? "self-attention" : "no self-attention") +
                     ": every decoder layer needs the first layer's one of them (" +
                     (ssru ? "an SSRU" : "self-attention") + ")");
    if (ssru) {
      EDGEMT_RETURN_IF_ERROR(ReadSSRU(layer->ssru(), TensorName(name, "ssru"), d, &view.ssru));
    } else {
      EDGEMT_RETURN_IF_ERROR(ReadAttention(layer->self_attention(), TensorName(name, "self_attention"), d, &view.self_attention));
    }
    EDGEMT_RETURN_IF_ERROR(ReadLayerNorm(layer->self_attention_norm(), TensorName(name, "self_attention_norm"), d, &view.self_attention_norm));
    EDGEMT_RETURN_IF_ERROR(ReadAttention(layer->cross_attention(), TensorName(name, "cross_attention"), d, &view.cross_attention));
    EDGEMT_RETURN_IF_ERROR(ReadLayerNorm(layer->cross_attention_norm(), TensorName(name, "cross_attention_norm"), d, &view.cross_attention_norm));
    EDGEMT_RETURN_IF_ERROR(ReadFeedForward(layer->feed_forward(), TensorName(name, "feed_forward"), d, config.d_ff, &view.feed_forward));
    EDGEMT_RETURN_IF_ERROR(ReadLayerNorm(layer->feed_forward_norm(), TensorName(name, "feed_forward_norm"), d, &view.feed_forward_norm));
  }
  return Status::Ok();
}

// The file is int8 when any weight is int8 or int4: every Linear counts,
// since each quantized one needs the translator's int8 scratch buffers
// (any layer may be kept in float).
bool AnyInt8(const ModelWeights& weights) {
  bool any_int8 = weights.target_embedding.type == WeightType::kInt8 ||
                  weights.source_embedding.type == WeightType::kInt8 || weights.output_projection.is_quantized();
  auto attention_int8 = [](const AttentionView& a) {
    return a.query.is_quantized() || a.key.is_quantized() || a.value.is_quantized() || a.output.is_quantized();
  };
  auto feed_forward_int8 = [](const FeedForwardView& f) { return f.up.is_quantized() || f.down.is_quantized(); };
  for (const auto& layer : weights.encoder_layers)
    any_int8 = any_int8 || attention_int8(layer.self_attention) || feed_forward_int8(layer.feed_forward);
  for (const auto& layer : weights.decoder_layers)
    any_int8 = any_int8 || attention_int8(layer.self_attention) || attention_int8(layer.cross_attention) ||
               feed_forward_int8(layer.feed_forward) || layer.ssru.transform.is_quantized() ||
               layer.ssru.forget_gate.is_quantized();
  return any_int8;
}

}  // namespace

Status ReadModel(const uint8_t* data, size_t size, ModelWeights* weights) {
  EDGEMT_RETURN_IF_ERROR(CheckFileAndVersion(data, size));
  const fb::Model* model = fb::GetModel(data);
  ModelConfig& config = weights->config;
  EDGEMT_RETURN_IF_ERROR(ReadConfig(model->config(), &config));
  EDGEMT_RETURN_IF_ERROR(ReadVocabularies(model->tokenizer(), config));
  const int d = config.d_model;
  const fb::Encoder* encoder = model->encoder();
  const fb::Decoder* decoder = model->decoder();
  if (encoder == nullptr) return Invalid("the encoder is missing");
  if (decoder == nullptr) return Invalid("the decoder is missing");
  EDGEMT_RETURN_IF_ERROR(ReadEmbeddings(encoder, decoder, weights));
  EDGEMT_RETURN_IF_ERROR(ReadEncoderLayers(encoder, weights));
  EDGEMT_RETURN_IF_ERROR(ReadDecoderLayers(decoder, weights));
  if (config.norm == NormPlacement::kPreLN) {
    EDGEMT_RETURN_IF_ERROR(ReadLayerNorm(encoder->final_norm(), TensorName("encoder.final_norm"), d, &weights->encoder_final_norm));
    EDGEMT_RETURN_IF_ERROR(ReadLayerNorm(decoder->final_norm(), TensorName("decoder.final_norm"), d, &weights->decoder_final_norm));
  }
  EDGEMT_RETURN_IF_ERROR(ReadEmbeddingNorm(encoder->embedding_norm(), TensorName("encoder.embedding_norm"), config,
                                           &weights->encoder_embedding_norm));
  EDGEMT_RETURN_IF_ERROR(ReadEmbeddingNorm(decoder->embedding_norm(), TensorName("decoder.embedding_norm"), config,
                                           &weights->decoder_embedding_norm));
  if (decoder->output_projection() != nullptr && decoder->output_projection()->weight() == nullptr && !config.tied_output)
    return Invalid("decoder.output_projection.weight is missing and the config does not tie it to the embedding");
  EDGEMT_RETURN_IF_ERROR(ReadLinear(decoder->output_projection(), TensorName("decoder.output_projection"), config.target_vocab_size,
                                    d, config.tied_output ? &weights->target_embedding : nullptr,
                                    &weights->output_projection));
  EDGEMT_RETURN_IF_ERROR(ReadShortlist(model->shortlist(), config, &weights->shortlist));
  weights->is_int8 = AnyInt8(*weights);
  return CheckPackingSlack(*weights, data + size);
}

Status CheckPackingSlack(const ModelWeights& weights, const uint8_t* end) {
  auto check = [end](const LinearView& linear, const char* what) -> Status {
    if (!linear.weight.present()) return Status::Ok();  // the block a decoder layer does not have
    const auto* last = static_cast<const uint8_t*>(linear.weight.data) + linear.weight.bytes();
    if (end - last < static_cast<std::ptrdiff_t>(kPackingReadSlack))
      return Invalid(std::string("a Linear weight (") + what + ") ends " + std::to_string(end - last) +
                     " bytes before the end of the file; at least " + std::to_string(kPackingReadSlack) +
                     " must follow it (edgemt-convert's files have more)");
    return Status::Ok();
  };
  auto attention = [&](const AttentionView& a, const char* what) -> Status {
    for (const LinearView* linear : {&a.query, &a.key, &a.value, &a.output}) EDGEMT_RETURN_IF_ERROR(check(*linear, what));
    return Status::Ok();
  };
  auto feed_forward = [&](const FeedForwardView& f, const char* what) -> Status {
    EDGEMT_RETURN_IF_ERROR(check(f.up, what));
    return check(f.down, what);
  };
  for (const EncoderLayerView& layer : weights.encoder_layers) {
    EDGEMT_RETURN_IF_ERROR(attention(layer.self_attention, "encoder self-attention"));
    EDGEMT_RETURN_IF_ERROR(feed_forward(layer.feed_forward, "encoder feed-forward"));
  }
  for (const DecoderLayerView& layer : weights.decoder_layers) {
    EDGEMT_RETURN_IF_ERROR(attention(layer.self_attention, "decoder self-attention"));
    EDGEMT_RETURN_IF_ERROR(check(layer.ssru.transform, "decoder SSRU"));
    EDGEMT_RETURN_IF_ERROR(check(layer.ssru.forget_gate, "decoder SSRU"));
    EDGEMT_RETURN_IF_ERROR(attention(layer.cross_attention, "decoder cross-attention"));
    EDGEMT_RETURN_IF_ERROR(feed_forward(layer.feed_forward, "decoder feed-forward"));
  }
  return check(weights.output_projection, "output projection");
}

}  // namespace edgemt
