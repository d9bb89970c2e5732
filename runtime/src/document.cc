#include "edgemt/document.h"

#include <vector>

#include "document_layout.h"

namespace edgemt {

Status TranslateDocument(TextTranslator& translator, std::string_view document, const DecodeOptions& decode,
                         DocumentResult* result) {
  *result = DocumentResult();
  if (decode.target_prefixes != nullptr || decode.return_alternatives)
    return Status(StatusCode::kInvalidArgument, "target prefixes and alternatives do not apply to documents");
  const std::vector<DocumentPiece> pieces = LayOutDocument(document, translator.model().source_language());
  auto text_of = [document](const DocumentPiece& piece) {
    return document.substr(piece.span.begin, piece.span.end - piece.span.begin);
  };
  std::vector<std::string> sentences;
  for (const DocumentPiece& piece : pieces)
    if (piece.sentence) sentences.emplace_back(text_of(piece));
  std::vector<TextResult> translations;
  if (!sentences.empty()) {
    const Status status =
        translator.TranslateTextsCached(sentences.data(), sentences.size(), decode, &translations,
                                        /*return_scores=*/false, /*target_prefixes=*/nullptr,
                                        translator.document_cache(), /*document=*/true);
    if (!status.ok()) return status;
  }
  result->sentences = sentences.size();
  std::string& out = result->text;
  out.reserve(document.size() + document.size() / 4);
  size_t next = 0;
  for (const DocumentPiece& piece : pieces) {
    const std::string_view source = text_of(piece);
    if (!piece.sentence) {
      out.append(source);
      continue;
    }
    const TextResult& translation = translations[next++];
    if (translation.status.ok() && !translation.hypotheses.empty()) {
      out.append(translation.hypotheses.front().text);
      continue;
    }
    if (result->failed++ == 0) result->first_failure = translation.status;
    out.append(source);
  }
  return Status::Ok();
}

}  // namespace edgemt
