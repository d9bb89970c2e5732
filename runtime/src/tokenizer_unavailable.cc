// The Tokenizer of a build without SentencePiece (EDGEMT_WITH_SENTENCEPIECE
// off): every call says so, and the rest of the runtime needs no #ifdef.
// Such a build translates token ids only.
#include "edgemt/tokenizer.h"

namespace edgemt {
namespace {

Status Unavailable() {
  return Status(StatusCode::kUnsupported, "this build has no SentencePiece: translate token ids instead");
}

}  // namespace

struct Tokenizer::Impl {};

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

Result<std::unique_ptr<Tokenizer>> Tokenizer::Create(const Model&, Side, const Tokenizer*) { return Unavailable(); }

Status Tokenizer::Encode(std::string_view, std::vector<int32_t>*) const { return Unavailable(); }

Status Tokenizer::Decode(const int32_t*, size_t, std::string*) const { return Unavailable(); }

}  // namespace edgemt
