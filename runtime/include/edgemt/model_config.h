// The hyperparameters and special ids a model file declares: plain values
// that include nothing, so that the model's insides (its weights, the
// layers) need not include model.h.
#pragma once

namespace edgemt {

enum class NormPlacement { kPostLN, kPreLN };
// kGELU is the exact (erf) form; kGELUTanh and kGELUSigmoid its approximations.
enum class Activation { kReLU, kGELU, kSiLU, kGELUTanh, kGELUSigmoid };
// kSinusoidalOpenNMT: OpenNMT-tf's and CTranslate2's table (positions from
// 1); kSinusoidalMarian: its frequencies from position 0, Marian's own.
enum class PositionEncoding {
  kSinusoidalInterleaved,
  kSinusoidalHalves,
  kLearned,
  kSinusoidalOpenNMT,
  kSinusoidalMarian
};
// What a decoder layer's first block is: masked self-attention, or Marian's
// SSRU, a recurrent cell whose state is one vector per hypothesis.
enum class DecoderBlock { kSelfAttention, kSSRU };

// The hyperparameters a model file declares (see schema/edgemt.fbs).
struct ModelConfig {
  int d_model = 0;
  int num_heads = 0;
  int d_ff = 0;
  int encoder_layers = 0;
  int decoder_layers = 0;
  int source_vocab_size = 0;
  int target_vocab_size = 0;
  int max_positions = 0;
  NormPlacement norm = NormPlacement::kPostLN;
  // Whether a stack may normalize its embeddings (scaled tokens plus
  // positions) before its first layer: fairseq/mBART's layernorm_embedding.
  bool embedding_norm = false;
  float layer_norm_epsilon = 1e-5f;
  Activation activation = Activation::kReLU;
  float embedding_scale = 1.0f;
  PositionEncoding position_encoding = PositionEncoding::kSinusoidalInterleaved;
  bool shared_embeddings = false;
  bool tied_output = false;
  int pad_id = 0;
  int unk_id = 1;
  int bos_id = 2;
  int eos_id = 3;
  int decoder_start_id = 2;
  // Ids decoding never chooses (greedy, sampling and beam search alike):
  // banned_ids[0..banned_count). When the file states none
  // (states_banned_ids false), beam search and sampling never choose pad,
  // unk and <s>, and greedy decoding may choose any id.
  static constexpr int kMaxBannedIds = 4;
  bool states_banned_ids = false;
  int banned_count = 0;
  int banned_ids[kMaxBannedIds] = {-1, -1, -1, -1};
  // The checkpoint's own decoding settings, for callers that do not choose
  // (0: none stated): a beam size and a limit on output ids (</s> included).
  int default_beam_size = 0;
  int default_max_length = 0;
  // Whether a source is bos_id, its tokens, eos_id (CTranslate2's
  // add_source_bos / add_source_eos); the text layer adds them.
  bool source_bos = false;
  bool source_eos = true;
  // The checkpoint's own length penalty (an Argos Translate package's 0.2),
  // for callers that do not choose; 1 when the file states none.
  float default_length_penalty = 1.0f;
  DecoderBlock decoder_block = DecoderBlock::kSelfAttention;
  // Marian: the first decoder input is a zero embedding (plus position 0),
  // not decoder_start_id's row.
  bool decoder_starts_from_zero = false;
  // The checkpoint's own length limit when the caller sets none: at most
  // ceil(factor x source ids) decoder steps (Marian's max-length-factor);
  // 0: the runtime's rule (decoding/decoding_job.h, StepsLimit).
  float default_max_length_factor = 0.0f;
  // The checkpoint's beam search is Marian's (DecodeOptions::beam_size says
  // how it differs from the default one).
  bool shrinking_beam = false;
};

}  // namespace edgemt
