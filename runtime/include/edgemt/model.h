// A loaded, verified model file. Immutable and shareable between translators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "edgemt/model_config.h"
#include "edgemt/status.h"

namespace edgemt {

class ModelState;

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
  // Whether the file has a vocabulary shortlist (docs/shortlist.md), which
  // decoding uses unless DecodeOptions::use_shortlist is false.
  bool has_shortlist() const;
  // Metadata strings (empty when absent).
  std::string_view source_language() const;
  std::string_view target_language() const;
  std::string_view converter_version() const;
  // The bytes of the weights packed for XNNPACK so far, shared by every
  // translator of the model (0 before the first one is created).
  size_t packed_bytes() const;
  std::string_view quantization_summary() const;

 private:
  // The runtime's own view (src/model_state.h): the bytes, the verified
  // weights and the packing its translators share.
  friend const ModelState& StateOf(const Model& model);
  explicit Model(std::unique_ptr<ModelState> state);
  static Result<std::shared_ptr<const Model>> FromState(std::unique_ptr<ModelState> state);

  std::unique_ptr<ModelState> state_;
};

}  // namespace edgemt
