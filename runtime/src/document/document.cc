#include "edgemt/document.h"

#include <algorithm>
#include <vector>

#include "document/document_layout.h"

namespace edgemt {
namespace {

// Translates the document's sentences `group` at a time, in order, and
// after each group hands on_piece (when set) everything of the output up to
// its last sentence: a piece of kept text, a translation, or a failed
// sentence's source. Stops when on_piece returns false.
Status Translate(TextTranslator& translator, std::string_view document, const DecodeOptions& decode, size_t group,
                 const PieceCallback* on_piece, DocumentResult* result) {
  *result = DocumentResult();
  if (decode.target_prefixes != nullptr || decode.return_alternatives)
    return Status(StatusCode::kInvalidArgument, "target prefixes and alternatives do not apply to documents");
  const std::vector<DocumentPiece> pieces = LayOutDocument(document, translator.model().source_language());
  auto text_of = [document](const DocumentPiece& piece) {
    return document.substr(piece.span.begin, piece.span.end - piece.span.begin);
  };
  std::vector<size_t> sentence_pieces;
  for (size_t p = 0; p < pieces.size(); ++p)
    if (pieces[p].sentence) sentence_pieces.push_back(p);
  result->sentences = sentence_pieces.size();
  std::string& out = result->text;
  out.reserve(document.size() + document.size() / 4);
  auto emit = [&](std::string_view piece) {
    out.append(piece);
    return on_piece == nullptr || piece.empty() || (*on_piece)(piece);
  };
  size_t next_piece = 0;
  std::vector<std::string> sentences;
  std::vector<TextResult> translations;
  for (size_t first = 0; first < sentence_pieces.size() || next_piece < pieces.size(); first += sentences.size()) {
    const size_t count = std::min(group, sentence_pieces.size() - std::min(first, sentence_pieces.size()));
    sentences.clear();
    for (size_t k = 0; k < count; ++k) sentences.emplace_back(text_of(pieces[sentence_pieces[first + k]]));
    if (count > 0)
      EDGEMT_RETURN_IF_ERROR(
          translator.TranslateSentences(sentences.data(), count, decode,
                                      TextTranslator::SentenceCache::kDocuments, &translations));
    // The pieces up to the group's last sentence (after the last group: to the end).
    const size_t end = first + count < sentence_pieces.size() ? sentence_pieces[first + count - 1] + 1 : pieces.size();
    size_t k = 0;
    for (; next_piece < end; ++next_piece) {
      const DocumentPiece& piece = pieces[next_piece];
      std::string_view text = text_of(piece);
      if (piece.sentence) {
        const TextResult& translation = translations[k++];
        if (translation.status.ok() && !translation.hypotheses.empty()) {
          text = translation.hypotheses.front().text;
        } else if (result->failed++ == 0) {
          result->first_failure = translation.status;
        }
      }
      if (!emit(text)) return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace

Status TranslateDocument(TextTranslator& translator, std::string_view document, const DecodeOptions& decode,
                         DocumentResult* result) {
  // All sentences in one call: the text layer sorts them into batches.
  return Translate(translator, document, decode, static_cast<size_t>(-1), nullptr, result);
}

Status TranslateDocumentStreaming(TextTranslator& translator, std::string_view document, const DecodeOptions& decode,
                                  const PieceCallback& on_piece, DocumentResult* result) {
  if (!on_piece) return Status(StatusCode::kInvalidArgument, "on_piece is empty");
  const size_t group = static_cast<size_t>(std::max(1, translator.options().translator.max_batch_size));
  return Translate(translator, document, decode, group, &on_piece, result);
}

}  // namespace edgemt
