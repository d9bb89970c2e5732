// What the Tokenizer needs of a subword model: text to pieces or ids and
// back. SentencePiece is the one kind (sentencepiece_model.cc); a build
// without it links sentencepiece_unavailable.cc, whose loader says so, and
// still tokenizes models whose text is plain tokens.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "edgemt/status.h"

namespace edgemt {

class PieceModel {
 public:
  virtual ~PieceModel() = default;
  virtual int size() const = 0;
  virtual int eos_id() const = 0;
  virtual Status EncodeIds(std::string_view text, std::vector<int32_t>* ids) const = 0;
  virtual Status EncodePieces(std::string_view text, std::vector<std::string>* pieces) const = 0;
  virtual Status DecodeIds(const int32_t* ids, size_t count, std::string* text) const = 0;
  virtual Status DecodePieces(const std::vector<std::string>& pieces, std::string* text) const = 0;
  virtual std::string_view PieceOf(int32_t id) const = 0;  // id < size(); lives as long as the model
};

// A serialized SentencePiece model; kUnsupported in a build without SentencePiece.
Result<std::shared_ptr<const PieceModel>> LoadPieceModel(std::string_view serialized);

}  // namespace edgemt
