// HTML translation (edgemt/html.h): the page laid out into flows
// (html_layout.h), every sentence of every flow translated in one text-layer
// call with word alignments, and each flow written back with its inline
// elements placed around the translations of the words they surrounded.
#include "edgemt/html.h"

#include <algorithm>
#include <vector>

#include "document_layout.h"
#include "html_layout.h"
#include "sentence_splitter.h"

namespace edgemt {
namespace {

// Words: what (Unicode) spaces separate, as byte spans.
std::vector<TextSpan> Words(std::string_view text) {
  std::vector<TextSpan> words;
  size_t i = 0;
  while ((i = SkipSpaces(text, i)) < text.size()) {
    TextSpan word{i, i};
    while (i < text.size()) {
      size_t length = 0;
      if (IsUnicodeSpace(DecodeUtf8(text, i, &length))) break;
      i += length;
    }
    word.end = i;
    words.push_back(word);
  }
  return words;
}

// One sentence of a flow, translated: where its source and its translation
// lie, and which target words each source word aligns to.
struct PlacedSentence {
  TextSpan source;                         // in the flow's text
  TextSpan target;                         // in the flow's output text
  std::vector<TextSpan> source_words;      // in the flow's text
  std::vector<TextSpan> target_words;      // in the flow's output text
  std::vector<std::vector<int32_t>> links; // per source word, its target words
};

// Where an element goes in the output text: around the target words of the
// source words it overlaps (a whole sentence it covers: its whole
// translation), those linked only from inside it first (a word linked from
// outside as well, such as an article shared with a neighbour, only when
// there are no others), in each sentence their largest run (RunOf); for words without links, the first target word
// linked from its position on (a void element: a point before it), else
// the end of the sentence it is in.
// The span of target words (ids into sentence.target_words, one sentence):
// their largest run with gaps of at most one unlinked word (a stray link
// far from the others, as attention sometimes gives, is left out).
TextSpan RunOf(std::vector<int32_t> words, const PlacedSentence& sentence) {
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  size_t best_first = 0, best_count = 0;
  for (size_t first = 0, i = 0; i < words.size(); ++i) {
    if (i > 0 && words[i] - words[i - 1] > 2) first = i;
    if (i - first + 1 > best_count) {
      best_first = first;
      best_count = i - first + 1;
    }
  }
  return TextSpan{sentence.target_words[static_cast<size_t>(words[best_first])].begin,
                  sentence.target_words[static_cast<size_t>(words[best_first + best_count - 1])].end};
}

TextSpan Place(const HtmlElement& element, const std::vector<PlacedSentence>& sentences, size_t output_size) {
  auto inside = [&element](const TextSpan& word) { return word.begin < element.end && word.end > element.begin; };
  TextSpan owned{output_size, 0}, shared{output_size, 0};
  auto widen = [](TextSpan* span, const TextSpan& part) {
    span->begin = std::min(span->begin, part.begin);
    span->end = std::max(span->end, part.end);
  };
  for (const PlacedSentence& s : sentences) {
    if (element.begin < element.end && element.begin <= s.source.begin && element.end >= s.source.end) {
      widen(&owned, s.target);
      continue;
    }
    std::vector<int32_t> only_inside, also_outside;
    for (size_t w = 0; w < s.source_words.size(); ++w) {
      if (!inside(s.source_words[w])) continue;
      for (int32_t t : s.links[w]) {
        bool alone = true;
        for (size_t other = 0; other < s.source_words.size() && alone; ++other) {
          const auto& l = s.links[other];
          if (!inside(s.source_words[other]) && std::find(l.begin(), l.end(), t) != l.end()) alone = false;
        }
        (alone ? only_inside : also_outside).push_back(t);
      }
    }
    if (!only_inside.empty()) widen(&owned, RunOf(only_inside, s));
    if (!also_outside.empty()) widen(&shared, RunOf(also_outside, s));
  }
  if (owned.begin < owned.end) return owned;
  if (shared.begin < shared.end) return shared;
  // No links: the target word linked from the next source word that has
  // one (its whole word for an element around words, a point before it for
  // an empty one).
  for (const PlacedSentence& s : sentences) {
    if (s.source.end < element.begin) continue;
    for (size_t w = 0; w < s.source_words.size(); ++w) {
      if (s.source_words[w].begin < element.begin || s.links[w].empty()) continue;
      const TextSpan& target = s.target_words[static_cast<size_t>(s.links[w].front())];
      return element.begin < element.end ? target : TextSpan{target.begin, target.begin};
    }
    const size_t at = element.begin <= s.source.begin ? s.target.begin : s.target.end;
    return TextSpan{at, at};
  }
  return TextSpan{output_size, output_size};
}

// The elements' output spans made to nest as their tags do: each inside
// its parent's, after its previous sibling's, without spaces at its edges.
void Nest(const std::vector<HtmlElement>& elements, const std::string& text, std::vector<TextSpan>* spans) {
  const size_t output_size = text.size();
  std::vector<size_t> sibling_end(elements.size() + 1, 0);  // per parent (last: the flow), where the next may start
  std::vector<size_t> child_end(elements.size(), 0);
  for (size_t e = 0; e < elements.size(); ++e) {
    const int parent = elements[e].parent;
    const TextSpan outer = parent < 0 ? TextSpan{0, output_size} : (*spans)[static_cast<size_t>(parent)];
    size_t& after = parent < 0 ? sibling_end.back() : child_end[static_cast<size_t>(parent)];
    after = std::max(after, outer.begin);
    TextSpan& span = (*spans)[e];
    span.begin = std::min(std::max(span.begin, after), outer.end);
    span.end = std::min(std::max(span.end, span.begin), outer.end);
    while (span.begin < span.end && text[span.begin] == ' ') ++span.begin;
    while (span.end > span.begin && text[span.end - 1] == ' ') --span.end;
    after = span.end;
    child_end[e] = span.begin;
  }
}

// The flow's output: its text with the elements' tags around their spans
// (the spans nest: Nest), escaped.
void Write(const HtmlFlow& flow, const std::string& text, const std::vector<TextSpan>& spans, int parent,
           size_t from, size_t to, size_t* next, std::string* out) {
  size_t at = from;
  while (*next < flow.elements.size() && flow.elements[*next].parent == parent) {
    const size_t e = (*next)++;
    out->append(EscapeHtmlText(std::string_view(text).substr(at, spans[e].begin - at)));
    out->append(flow.elements[e].open);
    Write(flow, text, spans, static_cast<int>(e), spans[e].begin, spans[e].end, next, out);
    out->append(flow.elements[e].close);
    at = spans[e].end;
  }
  out->append(EscapeHtmlText(std::string_view(text).substr(at, to - at)));
}

}  // namespace

Status TranslateHtml(TextTranslator& translator, std::string_view html, const DecodeOptions& decode,
                     HtmlResult* result) {
  *result = HtmlResult();
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
    EDGEMT_RETURN_IF_ERROR(translator.TranslateTextsCached(sentences.data(), sentences.size(), aligned,
                                                           &translations, /*return_scores=*/false,
                                                           /*target_prefixes=*/nullptr, translator.document_cache(),
                                                           /*document=*/true));
  }
  result->sentences = sentences.size();
  size_t next_sentence = 0;
  for (const HtmlSegment& segment : layout.segments) {
    if (segment.flow < 0) {
      result->html.append(segment.verbatim);
      continue;
    }
    const HtmlFlow& flow = layout.flows[static_cast<size_t>(segment.flow)];
    const std::vector<DocumentPiece>& flow_pieces = pieces[static_cast<size_t>(segment.flow)];
    if (std::none_of(flow_pieces.begin(), flow_pieces.end(), [](const DocumentPiece& p) { return p.sentence; })) {
      result->html.append(flow.raw);  // nothing to translate: as it was, references and all
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
      s.source_words = Words(source);
      for (TextSpan& w : s.source_words) w = TextSpan{w.begin + s.source.begin, w.end + s.source.begin};
      s.target_words = Words(target);
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
    std::vector<TextSpan> spans;
    for (const HtmlElement& element : flow.elements) spans.push_back(Place(element, placed, text.size()));
    Nest(flow.elements, text, &spans);
    size_t next_element = 0;
    Write(flow, text, spans, -1, 0, text.size(), &next_element, &result->html);
  }
  return Status::Ok();
}

}  // namespace edgemt
