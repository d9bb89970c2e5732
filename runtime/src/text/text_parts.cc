#include "text/text_parts.h"

#include <cstdint>
#include <utility>

#include "text/sentence_splitter.h"
#include "text/word_level.h"

namespace edgemt {
namespace {

void AddWarning(const std::string& warning, std::string* warnings) {
  if (warning.empty() || warnings->find(warning) != std::string::npos) return;
  if (!warnings->empty()) warnings->append("; ");
  warnings->append(warning);
}

// The ">>xxx<<" token a text starts with (after spaces), or "".
std::string_view LanguageToken(std::string_view text) {
  const size_t begin = SkipSpaces(text, 0);
  if (text.compare(begin, 2, ">>") != 0) return {};
  const size_t end = text.find("<<", begin + 2);
  if (end == std::string_view::npos || end == begin + 2 || end > begin + 32) return {};
  for (size_t i = begin + 2; i < end; ++i) {
    if (text[i] == ' ' || text[i] == '\t' || text[i] == '<' || text[i] == '>') return {};
  }
  return text.substr(begin, end + 2 - begin);
}

}  // namespace

void SplitParagraph(const std::string& text, std::string_view language, std::vector<std::string>* sentences,
                    TextParts* parts) {
  parts->first = sentences->size();
  const std::vector<TextSpan> spans = SplitTextSentences(text, language);
  if (spans.empty() || (spans.size() == 1 && spans[0].begin == 0 && spans[0].end == text.size())) {
    sentences->push_back(text);
    return;
  }
  size_t kept_from = 0;
  auto glue_until = [&](size_t end) {
    std::string glue;
    for (size_t i = kept_from; i < end; ++i) {
      if (text[i] == '\r' && i + 1 < end && text[i + 1] == '\n') continue;  // "\r\n": one space
      glue.push_back(text[i] == '\n' || text[i] == '\r' ? ' ' : text[i]);
    }
    parts->glue.push_back(std::move(glue));
  };
  const std::string_view token = LanguageToken(text);
  if (!token.empty()) parts->carried = std::string(token) + " ";
  for (const TextSpan& span : spans) {
    glue_until(span.begin);
    const std::string sentence = text.substr(span.begin, span.end - span.begin);
    parts->words.push_back(WordSpans(sentence).size());
    sentences->push_back(sentences->size() == parts->first ? sentence : parts->carried + sentence);
    kept_from = span.end;
  }
  glue_until(text.size());
  parts->count = spans.size();
}

void JoinParts(const std::vector<TextResult>& results, const TextParts& parts, const std::vector<size_t>* part_ids,
               TextResult* out) {
  out->hypotheses.clear();
  const bool paragraph = !parts.glue.empty();
  size_t source_words = 0, source_ids = 0;
  for (size_t p = parts.first; p < parts.first + parts.count; ++p) {
    const TextResult& part = results[p];
    AddWarning(part.warning, &out->warning);
    if (!part.status.ok()) {
      out->status = part.status;
      out->hypotheses.clear();
      return;
    }
    if (out->hypotheses.empty()) out->hypotheses.resize(part.hypotheses.size());
    // A carried language token is word 0 of a later sentence: its links are left out.
    const int32_t carried = paragraph && !parts.carried.empty() && p > parts.first ? 1 : 0;
    for (size_t k = 0; k < part.hypotheses.size() && k < out->hypotheses.size(); ++k) {
      TextHypothesis& h = out->hypotheses[k];
      const TextHypothesis& piece = part.hypotheses[k];
      if (paragraph) h.text += parts.glue[p - parts.first];
      const int32_t target_words = static_cast<int32_t>(WordSpans(h.text).size());
      for (const auto& link : piece.word_alignments) {
        if (link.first < carried) continue;
        h.word_alignments.emplace_back(link.first - carried + static_cast<int32_t>(source_words),
                                       link.second + target_words);
      }
      if (paragraph)
        h.text += piece.text;
      else if (!piece.text.empty())
        h.text += (h.text.empty() ? "" : " ") + piece.text;
      if (part_ids != nullptr) {
        for (int32_t position : piece.alignments) h.alignments.push_back(position + static_cast<int32_t>(source_ids));
      }
      h.ids.insert(h.ids.end(), piece.ids.begin(), piece.ids.end());
      h.token_log_probs.insert(h.token_log_probs.end(), piece.token_log_probs.begin(), piece.token_log_probs.end());
      h.word_confidences.insert(h.word_confidences.end(), piece.word_confidences.begin(),
                                piece.word_confidences.end());
      h.score += piece.score;
      h.ended_with_eos = piece.ended_with_eos;
    }
    source_words += parts.words[p - parts.first];
    if (part_ids != nullptr) source_ids += (*part_ids)[p];
  }
  if (paragraph && out->hypotheses.empty()) out->hypotheses.resize(1);  // no part: the glue alone
  for (TextHypothesis& h : out->hypotheses) {
    if (paragraph) h.text += parts.glue.back();
    if (!h.token_log_probs.empty()) h.confidence = SentenceConfidence(h.token_log_probs);
    if (part_ids == nullptr) h.alignments.clear();
  }
}

}  // namespace edgemt
