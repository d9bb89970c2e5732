#include "model_file/config_reader.h"

#include <cmath>
#include <string>

namespace edgemt {
namespace {

Status Invalid(const std::string& message) { return Status(StatusCode::kInvalidModel, message); }

bool PositiveFinite(float v) { return std::isfinite(v) && v > 0.0f; }

// The sizes, within bounds that keep every size computation far from
// integer overflow.
Status ReadSizes(const fb::Config* c, ModelConfig* out) {
  auto check = [](uint32_t value, uint32_t max, const char* what) -> Status {
    if (value == 0 || value > max)
      return Invalid(std::string(what) + " is " + std::to_string(value) + ", expected 1.." + std::to_string(max));
    return Status::Ok();
  };
  EDGEMT_RETURN_IF_ERROR(check(c->d_model(), 65536, "d_model"));
  EDGEMT_RETURN_IF_ERROR(check(c->num_heads(), 1024, "num_heads"));
  EDGEMT_RETURN_IF_ERROR(check(c->d_ff(), 1 << 20, "d_ff"));
  EDGEMT_RETURN_IF_ERROR(check(c->encoder_layers(), 1024, "encoder_layers"));
  EDGEMT_RETURN_IF_ERROR(check(c->decoder_layers(), 1024, "decoder_layers"));
  EDGEMT_RETURN_IF_ERROR(check(c->source_vocab_size(), 1 << 24, "source_vocab_size"));
  EDGEMT_RETURN_IF_ERROR(check(c->target_vocab_size(), 1 << 24, "target_vocab_size"));
  EDGEMT_RETURN_IF_ERROR(check(c->max_positions(), 1 << 16, "max_positions"));
  if (c->d_model() % c->num_heads() != 0)
    return Invalid("d_model " + std::to_string(c->d_model()) + " is not divisible by num_heads " +
                   std::to_string(c->num_heads()));
  if (!PositiveFinite(c->layer_norm_epsilon())) return Invalid("layer_norm_epsilon must be positive and finite");
  if (!PositiveFinite(c->embedding_scale())) return Invalid("embedding_scale must be positive and finite");
  out->d_model = static_cast<int>(c->d_model());
  out->num_heads = static_cast<int>(c->num_heads());
  out->d_ff = static_cast<int>(c->d_ff());
  out->encoder_layers = static_cast<int>(c->encoder_layers());
  out->decoder_layers = static_cast<int>(c->decoder_layers());
  out->source_vocab_size = static_cast<int>(c->source_vocab_size());
  out->target_vocab_size = static_cast<int>(c->target_vocab_size());
  out->max_positions = static_cast<int>(c->max_positions());
  out->layer_norm_epsilon = c->layer_norm_epsilon();
  out->embedding_scale = c->embedding_scale();
  return Status::Ok();
}

// Norm placement, activation and position encoding.
Status ReadKinds(const fb::Config* c, ModelConfig* out) {
  switch (c->norm()) {
    case fb::NormPlacement::PostLN: out->norm = NormPlacement::kPostLN; break;
    case fb::NormPlacement::PreLN: out->norm = NormPlacement::kPreLN; break;
    case fb::NormPlacement::PostLNEmbeddingNorm:
      out->norm = NormPlacement::kPostLN;
      out->embedding_norm = true;
      break;
    case fb::NormPlacement::PreLNEmbeddingNorm:
      out->norm = NormPlacement::kPreLN;
      out->embedding_norm = true;
      break;
    default: return Invalid("unknown norm placement " + std::to_string(static_cast<int>(c->norm())));
  }
  switch (c->activation()) {
    case fb::Activation::ReLU: out->activation = Activation::kReLU; break;
    case fb::Activation::GELU: out->activation = Activation::kGELU; break;
    case fb::Activation::SiLU: out->activation = Activation::kSiLU; break;
    case fb::Activation::GELUTanh: out->activation = Activation::kGELUTanh; break;
    case fb::Activation::GELUSigmoid: out->activation = Activation::kGELUSigmoid; break;
    default: return Invalid("unknown activation " + std::to_string(static_cast<int>(c->activation())));
  }
  switch (c->position_encoding()) {
    case fb::PositionEncoding::SinusoidalInterleaved:
      out->position_encoding = PositionEncoding::kSinusoidalInterleaved;
      break;
    case fb::PositionEncoding::SinusoidalHalves: out->position_encoding = PositionEncoding::kSinusoidalHalves; break;
    case fb::PositionEncoding::Learned: out->position_encoding = PositionEncoding::kLearned; break;
    case fb::PositionEncoding::SinusoidalOpenNMT:
      out->position_encoding = PositionEncoding::kSinusoidalOpenNMT;
      break;
    case fb::PositionEncoding::SinusoidalMarian:
      out->position_encoding = PositionEncoding::kSinusoidalMarian;
      break;
    default:
      return Invalid("unknown position encoding " + std::to_string(static_cast<int>(c->position_encoding())));
  }
  if (out->position_encoding != PositionEncoding::kLearned && out->d_model % 2 != 0)
    return Invalid("sinusoidal positions need an even d_model");
  if ((out->position_encoding == PositionEncoding::kSinusoidalOpenNMT ||
       out->position_encoding == PositionEncoding::kSinusoidalMarian) &&
      out->d_model < 4)
    return Invalid("OpenNMT's and Marian's sinusoidal positions need a d_model of at least 4");
  return Status::Ok();
}

// The special and banned ids, each inside its vocabulary, and the decoding defaults.
Status ReadIds(const fb::Config* c, ModelConfig* out) {
  out->tied_output = c->tied_output();
  if (out->shared_embeddings && c->source_vocab_size() != c->target_vocab_size())
    return Invalid("shared embeddings need equal source and target vocabulary sizes");
  out->pad_id = c->pad_id();
  out->unk_id = c->unk_id();
  out->bos_id = c->bos_id();
  out->eos_id = c->eos_id();
  out->decoder_start_id = c->decoder_start_id();
  auto check_id = [](int id, int vocab, const char* what, const char* side) -> Status {
    if (id < 0 || id >= vocab)
      return Invalid(std::string(what) + " " + std::to_string(id) + " is outside the " + side + " vocabulary (0.." +
                     std::to_string(vocab - 1) + ")");
    return Status::Ok();
  };
  EDGEMT_RETURN_IF_ERROR(check_id(out->pad_id, out->source_vocab_size, "pad_id", "source"));
  EDGEMT_RETURN_IF_ERROR(check_id(out->eos_id, out->target_vocab_size, "eos_id", "target"));
  EDGEMT_RETURN_IF_ERROR(check_id(out->unk_id, out->target_vocab_size, "unk_id", "target"));
  out->source_bos = c->source_bos();
  out->source_eos = c->source_eos();
  // Sources end with </s> (and may start with <s>) too.
  if (out->source_eos) EDGEMT_RETURN_IF_ERROR(check_id(out->eos_id, out->source_vocab_size, "eos_id", "source"));
  if (out->source_bos) EDGEMT_RETURN_IF_ERROR(check_id(out->bos_id, out->source_vocab_size, "bos_id", "source"));
  EDGEMT_RETURN_IF_ERROR(check_id(out->decoder_start_id, out->target_vocab_size, "decoder_start_id", "target"));
  if (const auto* banned = c->banned_ids()) {
    if (banned->size() > static_cast<uint32_t>(ModelConfig::kMaxBannedIds))
      return Invalid("banned_ids has " + std::to_string(banned->size()) + " ids, at most " +
                     std::to_string(ModelConfig::kMaxBannedIds) + " are allowed");
    out->states_banned_ids = true;
    out->banned_count = static_cast<int>(banned->size());
    for (int i = 0; i < out->banned_count; ++i) {
      out->banned_ids[i] = banned->Get(static_cast<flatbuffers::uoffset_t>(i));
      EDGEMT_RETURN_IF_ERROR(check_id(out->banned_ids[i], out->target_vocab_size, "banned id", "target"));
    }
  }
  if (c->default_beam_size() > 1024 || c->default_max_length() > (1u << 16))
    return Invalid("default_beam_size " + std::to_string(c->default_beam_size()) + " or default_max_length " +
                   std::to_string(c->default_max_length()) + " is out of range");
  if (!(c->default_length_penalty() >= -100.0f && c->default_length_penalty() <= 100.0f))
    return Invalid("default_length_penalty " + std::to_string(c->default_length_penalty()) + " is out of range");
  out->default_length_penalty = c->default_length_penalty();
  out->default_beam_size = static_cast<int>(c->default_beam_size());
  out->default_max_length = static_cast<int>(c->default_max_length());
  out->decoder_starts_from_zero = c->decoder_starts_from_zero();
  const float factor = c->default_max_length_factor();
  if (!(factor >= 0.0f && factor <= 64.0f))
    return Invalid("default_max_length_factor " + std::to_string(factor) + " is outside 0..64");
  out->default_max_length_factor = factor;
  out->shrinking_beam = c->shrinking_beam();
  return Status::Ok();
}

}  // namespace

Status ReadConfig(const fb::Config* c, ModelConfig* out) {
  if (c == nullptr) return Invalid("the config is missing");
  EDGEMT_RETURN_IF_ERROR(ReadSizes(c, out));
  EDGEMT_RETURN_IF_ERROR(ReadKinds(c, out));
  out->shared_embeddings = c->shared_embeddings();
  out->tied_output = c->tied_output();
  if (out->shared_embeddings && c->source_vocab_size() != c->target_vocab_size())
    return Invalid("shared embeddings need equal source and target vocabulary sizes");
  return ReadIds(c, out);
}

}  // namespace edgemt
