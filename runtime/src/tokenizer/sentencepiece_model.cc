// PieceModel on SentencePiece. SentencePiece (and the protobuf it parses
// with) throws std::bad_alloc when memory runs out: this file alone of the
// runtime is compiled with exceptions (except in WebAssembly), and every
// call into SentencePiece turns that into kResourceExhausted here
// (Guarded), so that nothing is thrown through the code that calls it,
// which is compiled without them.
#include <sentencepiece_processor.h>

#include <cstring>
#include <exception>
#include <new>

#include "tokenizer/piece_model.h"
#include "base/shared_nothrow.h"

// SentencePiece's logging switch (its util.cc; the public header leaves it
// out). Its INFO lines, such as "precompiled_charsmap is empty" for every
// model without a normalization table, are no business of a user's stderr.
namespace sentencepiece::logging {
void SetMinLogLevel(int v);
}  // namespace sentencepiece::logging

namespace edgemt {
namespace {

// SentencePiece's API takes its own absl::string_view (a small class of
// its own in the upstream header that kernel-deps builds from).
absl::string_view SpmText(std::string_view text) { return absl::string_view(text.data(), text.size()); }

Status Failed(const char* what, const sentencepiece::util::Status& status) {
  return Status(StatusCode::kInvalidArgument, std::string(what) + status.ToString());
}

template <typename Body>
Status Guarded(Body body) {
#if defined(__cpp_exceptions)
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "out of memory");
  } catch (const std::exception& e) {
    // Its double-array trie wraps std::bad_alloc in an exception of its own.
    if (std::strstr(e.what(), "bad_alloc") != nullptr) return Status(StatusCode::kResourceExhausted, "out of memory");
    return Status(StatusCode::kInternal, std::string("SentencePiece failed: ") + e.what());
  }
#else
  return body();  // WebAssembly: built without exceptions, a throw ends the module
#endif
}

class SentencePieceModel final : public PieceModel {
 public:
  sentencepiece::SentencePieceProcessor processor;

  int size() const override { return processor.GetPieceSize(); }
  int eos_id() const override { return processor.eos_id(); }

  Status EncodeIds(std::string_view text, std::vector<int32_t>* ids) const override {
    return Guarded([&] {
      std::vector<int> pieces;
      const auto status = processor.Encode(SpmText(text), &pieces);
      if (!status.ok()) return Failed("cannot tokenize the text: ", status);
      ids->assign(pieces.begin(), pieces.end());
      return Status::Ok();
    });
  }
  Status EncodePieces(std::string_view text, std::vector<std::string>* pieces) const override {
    return Guarded([&] {
      const auto status = processor.Encode(SpmText(text), pieces);
      return status.ok() ? Status::Ok() : Failed("cannot tokenize the text: ", status);
    });
  }
  Status DecodeIds(const int32_t* ids, size_t count, std::string* text) const override {
    return Guarded([&] {
      const std::vector<int> pieces(ids, ids + count);
      const auto status = processor.Decode(pieces, text);
      return status.ok() ? Status::Ok() : Failed("cannot detokenize: ", status);
    });
  }
  std::string_view PieceOf(int32_t id) const override { return processor.IdToPiece(id); }
  Status DecodePieces(const std::vector<std::string>& pieces, std::string* text) const override {
    return Guarded([&] {
      const auto status = processor.Decode(pieces, text);
      return status.ok() ? Status::Ok() : Failed("cannot detokenize: ", status);
    });
  }
};

}  // namespace

Result<std::shared_ptr<const PieceModel>> LoadPieceModel(std::string_view serialized) {
  static const bool quiet = (sentencepiece::logging::SetMinLogLevel(1), true);  // warnings and errors only
  (void)quiet;
  std::shared_ptr<SentencePieceModel> model =
      ShareNothrow(std::unique_ptr<SentencePieceModel>(new (std::nothrow) SentencePieceModel));
  if (!model) return Status(StatusCode::kResourceExhausted, "out of memory");
  EDGEMT_RETURN_IF_ERROR(Guarded([&] {
    const auto loaded = model->processor.LoadFromSerializedProto(SpmText(serialized));
    return loaded.ok() ? Status::Ok() : Status(StatusCode::kInvalidModel, "cannot be loaded: " + loaded.ToString());
  }));
  return std::shared_ptr<const PieceModel>(std::move(model));
}

}  // namespace edgemt
