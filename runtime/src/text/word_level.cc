#include "text/word_level.h"

#include <algorithm>
#include <cmath>

namespace edgemt {

std::vector<TextSpan> WordSpans(std::string_view text) {
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

std::vector<int32_t> WordsOf(const std::vector<uint8_t>& starts, const std::vector<uint8_t>* skip) {
  std::vector<int32_t> words(starts.size(), -1);
  int32_t word = -1;
  for (size_t i = 0; i < starts.size(); ++i) {
    if (skip != nullptr && (*skip)[i]) continue;
    if (starts[i] || word < 0) ++word;
    words[i] = word;
  }
  return words;
}

std::vector<std::pair<int32_t, int32_t>> WordAlignments(const std::vector<int32_t>& source_words,
                                                        const std::vector<int32_t>& target_words,
                                                        const std::vector<int32_t>& alignments) {
  std::vector<std::pair<int32_t, int32_t>> pairs;
  for (size_t t = 0; t < alignments.size() && t < target_words.size(); ++t) {
    const int32_t position = alignments[t];
    if (target_words[t] < 0 || position < 0 || static_cast<size_t>(position) >= source_words.size()) continue;
    const int32_t source = source_words[static_cast<size_t>(position)];
    if (source >= 0) pairs.emplace_back(source, target_words[t]);
  }
  std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

float SentenceConfidence(const std::vector<float>& log_probs) {
  if (log_probs.empty()) return 0.0f;
  double sum = 0.0;
  for (float lp : log_probs) sum += lp;
  return static_cast<float>(std::exp(sum / static_cast<double>(log_probs.size())));
}

std::vector<float> WordConfidences(const std::vector<float>& log_probs, const std::vector<int32_t>& target_words,
                                   size_t words) {
  std::vector<double> sums(words, 0.0);
  std::vector<int> counts(words, 0);
  for (size_t i = 0; i < target_words.size() && i < log_probs.size(); ++i) {
    const int32_t w = target_words[i];
    if (w < 0 || static_cast<size_t>(w) >= words) continue;
    sums[static_cast<size_t>(w)] += log_probs[i];
    ++counts[static_cast<size_t>(w)];
  }
  std::vector<float> confidences(words, 0.0f);
  for (size_t w = 0; w < words; ++w) {
    if (counts[w] > 0) confidences[w] = static_cast<float>(std::exp(sums[w] / counts[w]));
  }
  return confidences;
}

}  // namespace edgemt
