#include "edgemt/tokenizer.h"

#include <sentencepiece_processor.h>

#include <memory>
#include <new>
#include <string_view>
#include <utility>

namespace edgemt {

struct Tokenizer::Impl {
  std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor;
  std::string_view serialized;  // in the model file: tells whether another side can share `processor`
  int vocab_size = 0;
};

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

Result<std::unique_ptr<Tokenizer>> Tokenizer::Create(const Model& model, Side side, const Tokenizer* share) {
  const std::string_view bytes = side == Side::kSource ? model.source_tokenizer() : model.target_tokenizer();
  const char* what = side == Side::kSource ? "source tokenizer" : "target tokenizer";
  if (bytes.empty())
    return Status(StatusCode::kNotFound, "the model has no tokenizer: translate token ids instead (--input-ids, --output-ids)");
  auto impl = std::unique_ptr<Impl>(new (std::nothrow) Impl);
  if (!impl) return Status(StatusCode::kResourceExhausted, "out of memory");
  impl->serialized = bytes;
  if (share != nullptr && share->impl_->serialized.data() == bytes.data() && share->impl_->serialized.size() == bytes.size()) {
    impl->processor = share->impl_->processor;
  } else {
    auto processor = std::make_shared<sentencepiece::SentencePieceProcessor>();
    const auto loaded = processor->LoadFromSerializedProto(bytes);
    if (!loaded.ok())
      return Status(StatusCode::kInvalidModel, std::string("the ") + what + " cannot be loaded: " + loaded.ToString());
    impl->processor = std::move(processor);
    // SentencePiece keeps its own parsed copy: the mapped bytes are not needed.
    model.ReleasePages(bytes.data(), bytes.size());
  }
  const sentencepiece::SentencePieceProcessor& processor = *impl->processor;
  const ModelConfig& config = model.config();
  const int vocab = side == Side::kSource ? config.source_vocab_size : config.target_vocab_size;
  const int pieces = processor.GetPieceSize();
  if (pieces != vocab)
    return Status(StatusCode::kInvalidModel, std::string("the ") + what + " has " + std::to_string(pieces) +
                                                 " pieces, the model's vocabulary has " + std::to_string(vocab));
  if (processor.eos_id() != config.eos_id)
    return Status(StatusCode::kInvalidModel, std::string("the ") + what + "'s </s> id " +
                                                 std::to_string(processor.eos_id()) + " differs from the model's " +
                                                 std::to_string(config.eos_id));
  impl->vocab_size = vocab;
  return std::unique_ptr<Tokenizer>(new (std::nothrow) Tokenizer(std::move(impl)));
}

Status Tokenizer::Encode(std::string_view text, std::vector<int32_t>* ids) const {
  std::vector<int> pieces;
  const auto status = impl_->processor->Encode(text, &pieces);
  if (!status.ok()) return Status(StatusCode::kInvalidArgument, "cannot tokenize the text: " + status.ToString());
  ids->assign(pieces.begin(), pieces.end());
  return Status::Ok();
}

Status Tokenizer::Decode(const int32_t* ids, size_t count, std::string* text) const {
  std::vector<int> pieces(ids, ids + count);
  for (int id : pieces) {
    if (id < 0 || id >= impl_->vocab_size)
      return Status(StatusCode::kInvalidArgument, "id " + std::to_string(id) + " is outside the vocabulary");
  }
  const auto status = impl_->processor->Decode(pieces, text);
  if (!status.ok()) return Status(StatusCode::kInvalidArgument, "cannot detokenize: " + status.ToString());
  return Status::Ok();
}

}  // namespace edgemt
