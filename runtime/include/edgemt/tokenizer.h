// Text to token ids and back with the SentencePiece model stored in the
// model file, or, for a model whose vocabularies come without one
// (CTranslate2's), tokens separated by spaces. In a build without
// SentencePiece (EDGEMT_WITH_SENTENCEPIECE off) creating a tokenizer of a
// SentencePiece model fails with kUnsupported; the core (ids in, ids out)
// does not need it. Unlike translation, this allocates.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/status.h"

namespace edgemt {

class Tokenizer {
 public:
  enum class Side { kSource, kTarget };

  // Fails when the model has no tokenizer, or its vocabulary or special ids
  // disagree with the model's. A file with vocabularies (Marian: model ids
  // that are not SentencePiece's) maps pieces through them: a source text's
  // pieces become their ids (<unk>'s for a piece the vocabulary lacks; a
  // leading ">>xx<<" language token is one piece), and output ids become
  // their pieces for SentencePiece to join; without a SentencePiece model,
  // the text's tokens are what spaces separate, and output tokens are
  // joined by one space. The model must outlive the
  // tokenizer (it reads the model's mapped bytes). `share`: another tokenizer of the same model
  // file; when one SentencePiece model serves both languages, the new
  // tokenizer uses the copy `share` loaded rather than loading its own
  // (about 1.7 MB for an 8,000-piece model).
  static Result<std::unique_ptr<Tokenizer>> Create(const Model& model, Side side, const Tokenizer* share = nullptr);
  ~Tokenizer();

  // The ids of `text`, without </s>.
  Status Encode(std::string_view text, std::vector<int32_t>* ids) const;
  Status Decode(const int32_t* ids, size_t count, std::string* text) const;
  // Whether each id begins a word (what spaces separate in the decoded
  // text): a SentencePiece piece that starts with U+2581 (or the first
  // id), or every token of a vocabulary without SentencePiece.
  Status WordStarts(const int32_t* ids, size_t count, std::vector<uint8_t>* starts) const;

 private:
  struct Impl;
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace edgemt
