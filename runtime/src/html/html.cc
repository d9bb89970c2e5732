// HTML translation (edgemt/html.h): the page laid out into flows
// (html_layout.h), every sentence of every flow translated in one text-layer
// call with word alignments, and each flow written back with its inline
// elements placed around the translations of the words they surrounded.
#include "edgemt/html.h"

#include <algorithm>
#include <vector>

#include "document/document_layout.h"
#include "html/html_layout.h"
#include "html/html_placement.h"
#include "text/sentence_splitter.h"
#include "text/word_level.h"

namespace edgemt {
namespace {

// The flow's output: its text with the elements' tags around their spans
// (the spans nest: PlaceElements), escaped. A loop with a stack of the open
// elements, not recursion: a page may nest tags without end.
void Write(const HtmlFlow& flow, const std::string& text, const std::vector<TextSpan>& spans, std::string* out) {
  const std::string_view all(text);
  std::vector<size_t> open;
  size_t at = 0;
  auto text_to = [&](size_t to) {
    out->append(EscapeHtmlText(all.substr(at, to - at)));
    at = to;
  };
  auto close_until = [&](int parent) {
    while (!open.empty() && static_cast<int>(open.back()) != parent) {
      text_to(spans[open.back()].end);
      out->append(flow.elements[open.back()].close);
      open.pop_back();
    }
  };
  for (size_t e = 0; e < flow.elements.size(); ++e) {
    close_until(flow.elements[e].parent);
    text_to(spans[e].begin);
    out->append(flow.elements[e].open);
    open.push_back(e);
  }
  close_until(-1);
  text_to(text.size());
}

}  // namespace

Status TranslateHtml(TextTranslator& translator, std::string_view html, const DecodeOptions& decode,
                     DocumentResult* result) {
  *result = DocumentResult();
  if (decode.target_prefixes != nullptr || decode.return_alternatives)
    return Status(StatusCode::kInvalidArgument, "target prefixes and alternatives do not apply to HTML");
  const HtmlLayout layout = LayOutHtml(html);
  const std::string_view language = translator.model().source_language();
  // Every sentence of every flow, translated in one call.
  std::vector<std::vector<DocumentPiece>> pieces(layout.flows.size());
  std::vector<std::string> sentences;
  for (size_t f = 0; f < layout.flows.size(); ++f) {
    pieces[f] = LayOutDocument(layout.flows[f].text, language);
    for (const DocumentPiece& piece : pieces[f]) {
      if (piece.sentence)
        sentences.emplace_back(layout.flows[f].text.substr(piece.span.begin, piece.span.end - piece.span.begin));
    }
  }
  std::vector<TextResult> translations;
  if (!sentences.empty()) {
    DecodeOptions aligned = decode;
    aligned.return_alignments = true;
    EDGEMT_RETURN_IF_ERROR(
        translator.TranslateSentences(sentences.data(), sentences.size(), aligned,
                                      TextTranslator::SentenceCache::kDocuments, &translations));
  }
  result->sentences = sentences.size();
  size_t next_sentence = 0;
  for (const HtmlSegment& segment : layout.segments) {
    if (segment.flow < 0) {
      result->text.append(segment.verbatim);
      continue;
    }
    const HtmlFlow& flow = layout.flows[static_cast<size_t>(segment.flow)];
    const std::vector<DocumentPiece>& flow_pieces = pieces[static_cast<size_t>(segment.flow)];
    if (std::none_of(flow_pieces.begin(), flow_pieces.end(), [](const DocumentPiece& p) { return p.sentence; })) {
      result->text.append(flow.raw);  // nothing to translate: as it was, references and all
      continue;
    }
    std::string text;
    std::vector<PlacedSentence> placed;
    for (const DocumentPiece& piece : flow_pieces) {
      const std::string_view source =
          std::string_view(flow.text).substr(piece.span.begin, piece.span.end - piece.span.begin);
      if (!piece.sentence) {
        text.append(source);
        continue;
      }
      const TextResult& translation = translations[next_sentence++];
      PlacedSentence s;
      s.source = piece.span;
      s.target.begin = text.size();
      const bool ok = translation.status.ok() && !translation.hypotheses.empty();
      if (!ok && result->failed++ == 0) result->first_failure = translation.status;
      const std::string& target = ok ? translation.hypotheses.front().text : std::string(source);
      text.append(target);
      s.target.end = text.size();
      s.source_words = WordSpans(source);
      for (TextSpan& w : s.source_words) w = TextSpan{w.begin + s.source.begin, w.end + s.source.begin};
      s.target_words = WordSpans(target);
      for (TextSpan& w : s.target_words) w = TextSpan{w.begin + s.target.begin, w.end + s.target.begin};
      s.links.resize(s.source_words.size());
      if (ok) {
        for (const auto& link : translation.hypotheses.front().word_alignments) {
          if (static_cast<size_t>(link.first) < s.links.size() &&
              static_cast<size_t>(link.second) < s.target_words.size())
            s.links[static_cast<size_t>(link.first)].push_back(link.second);
        }
      } else {  // kept as it was: each word is itself
        for (size_t w = 0; w < s.links.size(); ++w) s.links[w].push_back(static_cast<int32_t>(w));
      }
      placed.push_back(std::move(s));
    }
    for (PlacedSentence& s : placed) s.Index();
    Write(flow, text, PlaceElements(flow, placed, text), &result->text);
  }
  return Status::Ok();
}

}  // namespace edgemt
