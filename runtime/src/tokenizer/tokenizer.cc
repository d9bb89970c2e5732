#include "edgemt/tokenizer.h"

#include <memory>
#include <mutex>
#include <new>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "model/model_state.h"
#include "tokenizer/piece_model.h"

namespace edgemt {

// Three kinds of models, one class:
// - SentencePiece ids are the model's (the seed layout): the piece model alone;
// - vocabularies map pieces to ids (Marian): the piece model splits, the
//   vocabulary numbers;
// - vocabularies without a piece model (CTranslate2's plain tokens): the
//   text is split at spaces, the vocabulary numbers.
struct Tokenizer::Impl {
  std::shared_ptr<const PieceModel> pieces;  // null for plain tokens
  std::string_view serialized;               // in the model file: tells whether another side can share `pieces`
  int vocab_size = 0;
  const Model* model = nullptr;              // with vocabularies: the pieces of the ids
  Side side = Side::kSource;
  // piece -> model id, in the mapped file: built on the first Encode (a
  // target side encodes only prefixes and targets to score).
  mutable std::unordered_map<std::string_view, int32_t> piece_ids;
  mutable std::once_flag piece_ids_built;
  int32_t unk_id = 0;                                         // this side's <unk>

  void BuildPieceIds() const {
    std::call_once(piece_ids_built, [this]() {
      piece_ids.reserve(static_cast<size_t>(vocab_size));
      for (int id = 0; id < vocab_size; ++id)
        piece_ids.emplace(side == Side::kSource ? model->source_piece(id) : model->target_piece(id), id);
    });
  }
};

namespace {

// A multilingual Marian model's target-language token (">>fra<<") at the
// start of a source text: one piece of its own, as transformers'
// MarianTokenizer splits it off before SentencePiece sees the text.
size_t LanguageTokenLength(std::string_view text) {
  if (text.substr(0, 2) != ">>") return 0;
  const size_t end = text.find("<<");
  return end == std::string_view::npos ? 0 : end + 2;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

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
  if (bytes.empty() && !model.has_vocabularies())
    return Status(StatusCode::kNotFound, "the model has no tokenizer: translate token ids instead (--input-ids, --output-ids)");
  auto impl = std::unique_ptr<Impl>(new (std::nothrow) Impl);
  if (!impl) return Status(StatusCode::kResourceExhausted, "out of memory");
  const ModelConfig& config = model.config();
  impl->vocab_size = side == Side::kSource ? config.source_vocab_size : config.target_vocab_size;
  impl->serialized = bytes;
  if (!bytes.empty()) {
    if (share != nullptr && share->impl_->serialized.data() == bytes.data() &&
        share->impl_->serialized.size() == bytes.size()) {
      impl->pieces = share->impl_->pieces;
    } else {
      auto loaded = LoadPieceModel(bytes);
      if (!loaded.ok()) {
        const StatusCode code = loaded.status().code();
        if (code == StatusCode::kUnsupported) return loaded.status();
        if (code == StatusCode::kResourceExhausted)
          return Status(code, std::string("the ") + what + ": " + loaded.status().message());
        return Status(StatusCode::kInvalidModel, std::string("the ") + what + " " + loaded.status().message());
      }
      impl->pieces = std::move(loaded.value());
      // The piece model keeps its own parsed copy: the mapped bytes are not needed.
      StateOf(model).bytes.ReleasePages(bytes.data(), bytes.size());
    }
  }
  if (model.has_vocabularies()) {
    // The model reader checked that each side's vocabulary has a piece for
    // every id. A repeated piece keeps its first id; the source's <unk> is
    // the source id of the target's unk_id piece (the sides may differ).
    impl->model = &model;
    impl->side = side;
    impl->unk_id = config.unk_id;
    if (side == Side::kSource) {
      impl->BuildPieceIds();
      const auto unk = impl->piece_ids.find(model.target_piece(config.unk_id));
      if (unk != impl->piece_ids.end()) impl->unk_id = unk->second;
    }
    std::unique_ptr<Tokenizer> made(new (std::nothrow) Tokenizer(std::move(impl)));
    if (!made) return Status(StatusCode::kResourceExhausted, "out of memory");
    return made;
  }
  const PieceModel& pieces = *impl->pieces;
  if (pieces.size() != impl->vocab_size)
    return Status(StatusCode::kInvalidModel, std::string("the ") + what + " has " + std::to_string(pieces.size()) +
                                                 " pieces, the model's vocabulary has " + std::to_string(impl->vocab_size));
  if (pieces.eos_id() != config.eos_id)
    return Status(StatusCode::kInvalidModel, std::string("the ") + what + "'s </s> id " +
                                                 std::to_string(pieces.eos_id()) + " differs from the model's " +
                                                 std::to_string(config.eos_id));
  std::unique_ptr<Tokenizer> made(new (std::nothrow) Tokenizer(std::move(impl)));
  if (!made) return Status(StatusCode::kResourceExhausted, "out of memory");
  return made;
}

Status Tokenizer::Encode(std::string_view text, std::vector<int32_t>* ids) const {
  ids->clear();
  if (impl_->model == nullptr) return impl_->pieces->EncodeIds(text, ids);
  // The model's vocabulary gives each piece its id; a piece it lacks is <unk>.
  impl_->BuildPieceIds();
  auto id_of = [this](std::string_view piece) {
    const auto found = impl_->piece_ids.find(piece);
    return found == impl_->piece_ids.end() ? impl_->unk_id : found->second;
  };
  if (impl_->pieces == nullptr) {
    for (size_t i = 0; i < text.size();) {
      while (i < text.size() && IsSpace(text[i])) ++i;
      size_t end = i;
      while (end < text.size() && !IsSpace(text[end])) ++end;
      if (end > i) ids->push_back(id_of(text.substr(i, end - i)));
      i = end;
    }
    return Status::Ok();
  }
  const size_t code = LanguageTokenLength(text);
  if (code > 0) ids->push_back(id_of(text.substr(0, code)));
  std::vector<std::string> pieces;
  EDGEMT_RETURN_IF_ERROR(impl_->pieces->EncodePieces(text.substr(code), &pieces));
  for (const std::string& piece : pieces) ids->push_back(id_of(piece));
  return Status::Ok();
}

Status Tokenizer::Decode(const int32_t* ids, size_t count, std::string* text) const {
  for (size_t i = 0; i < count; ++i) {
    if (ids[i] < 0 || ids[i] >= impl_->vocab_size)
      return Status(StatusCode::kInvalidArgument, "id " + std::to_string(ids[i]) + " is outside the vocabulary");
  }
  if (impl_->model == nullptr) return impl_->pieces->DecodeIds(ids, count, text);
  auto piece_of = [this](int32_t id) {
    return impl_->side == Side::kSource ? impl_->model->source_piece(id) : impl_->model->target_piece(id);
  };
  if (impl_->pieces == nullptr) {
    text->clear();
    for (size_t i = 0; i < count; ++i) {
      if (i > 0) *text += ' ';
      *text += piece_of(ids[i]);
    }
    return Status::Ok();
  }
  // Each id's piece from the model's vocabulary; SentencePiece joins them.
  std::vector<std::string> pieces;
  pieces.reserve(count);
  for (size_t i = 0; i < count; ++i) pieces.emplace_back(piece_of(ids[i]));
  EDGEMT_RETURN_IF_ERROR(impl_->pieces->DecodePieces(pieces, text));
  // As MarianTokenizer: a piece SentencePiece lacks (a shared vocabulary
  // holds both languages' pieces) keeps its U+2581, which becomes a space.
  ReplaceWordMarks(text);
  return Status::Ok();
}

Status Tokenizer::WordStarts(const int32_t* ids, size_t count, std::vector<uint8_t>* starts) const {
  starts->assign(count, 1);
  for (size_t i = 0; i < count; ++i) {
    if (ids[i] < 0 || ids[i] >= impl_->vocab_size)
      return Status(StatusCode::kInvalidArgument, "id " + std::to_string(ids[i]) + " is outside the vocabulary");
  }
  if (impl_->pieces == nullptr) return Status::Ok();  // space-separated tokens: each is a word
  static constexpr std::string_view kWordMark = "\xE2\x96\x81";  // U+2581
  for (size_t i = 1; i < count; ++i) {
    std::string_view piece;
    if (impl_->model == nullptr)
      piece = impl_->pieces->PieceOf(ids[i]);
    else
      piece = impl_->side == Side::kSource ? impl_->model->source_piece(ids[i]) : impl_->model->target_piece(ids[i]);
    (*starts)[i] = piece.substr(0, kWordMark.size()) == kWordMark ? 1 : 0;
  }
  return Status::Ok();
}

}  // namespace edgemt
