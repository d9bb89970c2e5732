// A loaded, verified model file. Immutable and shareable between translators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "edgemt/status.h"

namespace edgemt {

enum class NormPlacement { kPostLN, kPreLN };
enum class Activation { kReLU, kGELU, kSiLU };
enum class PositionEncoding { kSinusoidalInterleaved, kSinusoidalHalves, kLearned };

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
};

struct ModelWeights;  // verified views into the file (internal)
class PackedWeights;  // the layers in XNNPACK's layout, shared by translators (internal)

class Model {
 public:
  // Memory-maps the file; weights are used in place.
  static Result<std::shared_ptr<const Model>> Load(const std::string& path);
  // Uses a buffer the caller owns; it must outlive the model and every
  // translator made from it, and be at least 64-byte aligned.
  static Result<std::shared_ptr<const Model>> FromBuffer(const void* data, size_t size);

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelConfig& config() const;
  // True when the file holds int8 weights (possibly with some float layers).
  bool is_int8() const;
  size_t file_size() const;
  // Serialized SentencePiece models; empty when the file has none. The
  // target model is the source model when the file stores only one.
  std::string_view source_tokenizer() const;
  std::string_view target_tokenizer() const;
  // Files whose ids are not the SentencePiece models' (Marian) hold the
  // piece of every id: true when this one does.
  bool has_vocabularies() const;
  // The piece of model id `id` (0 <= id < the side's vocabulary size) on
  // each side; empty when the file has no vocabularies.
  std::string_view source_piece(int id) const;
  std::string_view target_piece(int id) const;
  // Metadata strings (empty when absent).
  std::string_view source_language() const;
  std::string_view target_language() const;
  std::string_view converter_version() const;
  std::string_view quantization_summary() const;

  // Internal: the verified weight views, for translators.
  const ModelWeights& weights() const;
  // Internal: the packed weights every translator of this model shares.
  PackedWeights& packed_weights() const;
  // Internal: what identifies these bytes in packed-cache keys.
  std::string identity() const;
  // Internal: tells the OS that the mapped bytes [data, data + size) are not
  // needed any more (their packed copy lives elsewhere). No-op for buffers.
  void ReleasePages(const void* data, size_t size) const;

 private:
  struct Storage;
  Model(std::unique_ptr<Storage> storage, std::unique_ptr<ModelWeights> weights, std::unique_ptr<PackedWeights> packed);
  static Result<std::shared_ptr<const Model>> FromStorage(std::unique_ptr<Storage> storage);

  std::unique_ptr<Storage> storage_;
  std::unique_ptr<ModelWeights> weights_;
  std::unique_ptr<PackedWeights> packed_;
};

}  // namespace edgemt
