#include "edgemt/tokenizer.h"

#include <sentencepiece_processor.h>

#include <memory>
#include <new>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "model_state.h"

// SentencePiece's logging switch (its util.cc; the public header leaves it
// out). Its INFO lines, such as "precompiled_charsmap is empty" for every
// model without a normalization table, are no business of a user's stderr.
namespace sentencepiece::logging {
void SetMinLogLevel(int v);
}  // namespace sentencepiece::logging

namespace edgemt {

struct Tokenizer::Impl {
  std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor;
  std::string_view serialized;  // in the model file: tells whether another side can share `processor`
  int vocab_size = 0;
  // Files with vocabularies (Marian): model ids are not SentencePiece's.
  const Model* model = nullptr;  // the pieces of the target side's ids
  Side side = Side::kSource;
  std::unordered_map<std::string_view, int32_t> source_ids;  // piece -> model id, in the mapped file
  int32_t unk_id = 0;
};

namespace {

// SentencePiece's API takes its own absl::string_view (a small class of
// its own in the upstream header that kernel-deps builds from).
absl::string_view SpmText(std::string_view text) { return absl::string_view(text.data(), text.size()); }

// A multilingual Marian model's target-language token (">>fra<<") at the
// start of a source text: one piece of its own, as transformers'
// MarianTokenizer splits it off before SentencePiece sees the text.
size_t LanguageTokenLength(std::string_view text) {
  if (text.substr(0, 2) != ">>") return 0;
  const size_t end = text.find("<<");
  return end == std::string_view::npos ? 0 : end + 2;
}

// U+2581 (SentencePiece's word boundary mark) -> ' ', then no spaces at either end.
void ReplaceWordMarks(std::string* text) {
  static constexpr char kMark[] = "\xE2\x96\x81";
  std::string out;
  out.reserve(text->size());
  for (size_t i = 0; i < text->size();) {
    if (text->compare(i, 3, kMark) == 0) {
      out += ' ';
      i += 3;
    } else {
      out += (*text)[i++];
    }
  }
  const size_t begin = out.find_first_not_of(' ');
  const size_t end = out.find_last_not_of(' ');
  *text = begin == std::string::npos ? std::string() : out.substr(begin, end - begin + 1);
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

Result<std::unique_ptr<Tokenizer>> Tokenizer::Create(const Model& model, Side side, const Tokenizer* share) {
  const std::string_view bytes = side == Side::kSource ? model.source_tokenizer() : model.target_tokenizer();
  const char* what = side == Side::kSource ? "source tokenizer" : "target tokenizer";
  if (bytes.empty())
    return Status(StatusCode::kNotFound, "the model has no tokenizer: translate token ids instead (--input-ids, --output-ids)");
  static const bool quiet = (sentencepiece::logging::SetMinLogLevel(1), true);  // warnings and errors only
  (void)quiet;
  auto impl = std::unique_ptr<Impl>(new (std::nothrow) Impl);
  if (!impl) return Status(StatusCode::kResourceExhausted, "out of memory");
  impl->serialized = bytes;
  if (share != nullptr && share->impl_->serialized.data() == bytes.data() && share->impl_->serialized.size() == bytes.size()) {
    impl->processor = share->impl_->processor;
  } else {
    auto processor = std::make_shared<sentencepiece::SentencePieceProcessor>();
    const auto loaded = processor->LoadFromSerializedProto(SpmText(bytes));
    if (!loaded.ok())
      return Status(StatusCode::kInvalidModel, std::string("the ") + what + " cannot be loaded: " + loaded.ToString());
    impl->processor = std::move(processor);
    // SentencePiece keeps its own parsed copy: the mapped bytes are not needed.
    StateOf(model).bytes.ReleasePages(bytes.data(), bytes.size());
  }
  const sentencepiece::SentencePieceProcessor& processor = *impl->processor;
  const ModelConfig& config = model.config();
  const int vocab = side == Side::kSource ? config.source_vocab_size : config.target_vocab_size;
  impl->vocab_size = vocab;
  if (model.has_vocabularies()) {
    // The model reader checked that each side's vocabulary has a piece for every id.
    impl->model = &model;
    impl->side = side;
    impl->unk_id = config.unk_id;
    if (side == Side::kSource) {
      impl->source_ids.reserve(static_cast<size_t>(vocab));
      for (int id = 0; id < vocab; ++id) impl->source_ids.emplace(model.source_piece(id), id);
    }
    return std::unique_ptr<Tokenizer>(new (std::nothrow) Tokenizer(std::move(impl)));
  }
  const int pieces = processor.GetPieceSize();
  if (pieces != vocab)
    return Status(StatusCode::kInvalidModel, std::string("the ") + what + " has " + std::to_string(pieces) +
                                                 " pieces, the model's vocabulary has " + std::to_string(vocab));
  if (processor.eos_id() != config.eos_id)
    return Status(StatusCode::kInvalidModel, std::string("the ") + what + "'s </s> id " +
                                                 std::to_string(processor.eos_id()) + " differs from the model's " +
                                                 std::to_string(config.eos_id));
  return std::unique_ptr<Tokenizer>(new (std::nothrow) Tokenizer(std::move(impl)));
}

Status Tokenizer::Encode(std::string_view text, std::vector<int32_t>* ids) const {
  if (impl_->model != nullptr) {
    // The model's vocabulary gives each piece its id; a piece it lacks is <unk>.
    ids->clear();
    const size_t code = LanguageTokenLength(text);
    auto id_of = [this](std::string_view piece) {
      const auto found = impl_->source_ids.find(piece);
      return found == impl_->source_ids.end() ? impl_->unk_id : found->second;
    };
    if (code > 0) ids->push_back(id_of(text.substr(0, code)));
    std::vector<std::string> pieces;
    const auto status = impl_->processor->Encode(SpmText(text.substr(code)), &pieces);
    if (!status.ok()) return Status(StatusCode::kInvalidArgument, "cannot tokenize the text: " + status.ToString());
    for (const std::string& piece : pieces) ids->push_back(id_of(piece));
    return Status::Ok();
  }
  std::vector<int> pieces;
  const auto status = impl_->processor->Encode(SpmText(text), &pieces);
  if (!status.ok()) return Status(StatusCode::kInvalidArgument, "cannot tokenize the text: " + status.ToString());
  ids->assign(pieces.begin(), pieces.end());
  return Status::Ok();
}

Status Tokenizer::Decode(const int32_t* ids, size_t count, std::string* text) const {
  for (size_t i = 0; i < count; ++i) {
    if (ids[i] < 0 || ids[i] >= impl_->vocab_size)
      return Status(StatusCode::kInvalidArgument, "id " + std::to_string(ids[i]) + " is outside the vocabulary");
  }
  if (impl_->model != nullptr) {
    // Each id's piece from the model's vocabulary; SentencePiece joins them.
    std::vector<std::string> pieces;
    pieces.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      const std::string_view piece =
          impl_->side == Side::kSource ? impl_->model->source_piece(ids[i]) : impl_->model->target_piece(ids[i]);
      pieces.emplace_back(piece);
    }
    const auto status = impl_->processor->Decode(pieces, text);
    if (!status.ok()) return Status(StatusCode::kInvalidArgument, "cannot detokenize: " + status.ToString());
    // As MarianTokenizer: a piece SentencePiece lacks (a shared vocabulary
    // holds both languages' pieces) keeps its U+2581, which becomes a space.
    ReplaceWordMarks(text);
    return Status::Ok();
  }
  std::vector<int> pieces(ids, ids + count);
  const auto status = impl_->processor->Decode(pieces, text);
  if (!status.ok()) return Status(StatusCode::kInvalidArgument, "cannot detokenize: " + status.ToString());
  return Status::Ok();
}

}  // namespace edgemt
