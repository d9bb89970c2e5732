// A build without SentencePiece (EDGEMT_WITH_SENTENCEPIECE off): loading a
// SentencePiece model says so, and the rest of the runtime needs no #ifdef.
// Such a build translates token ids, and text of models whose tokens are
// separated by spaces.
#include "tokenizer/piece_model.h"

namespace edgemt {

Result<std::shared_ptr<const PieceModel>> LoadPieceModel(std::string_view) {
  return Status(StatusCode::kUnsupported, "this build has no SentencePiece: translate token ids instead");
}

}  // namespace edgemt
