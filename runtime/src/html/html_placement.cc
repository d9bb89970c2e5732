#include "html/html_placement.h"

#include <algorithm>
#include <limits>

namespace edgemt {
namespace {

constexpr int32_t kNone = -1;
// Up to this many source words an element's links are weighed one by one
// (linked only from inside it or not, their largest run); beyond, the
// range of all its links is taken at once.
constexpr size_t kWeighedWords = 64;

// The span of target words (indices into sentence.target_words): their
// largest run with gaps of at most one unlinked word (a stray link far from
// the others, as attention sometimes gives, is left out).
TextSpan RunOf(std::vector<int32_t> words, const PlacedSentence& s) {
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
  return TextSpan{s.target_words[static_cast<size_t>(words[best_first])].begin,
                  s.target_words[static_cast<size_t>(words[best_first + best_count - 1])].end};
}

void Widen(TextSpan* span, const TextSpan& part) {
  span->begin = std::min(span->begin, part.begin);
  span->end = std::max(span->end, part.end);
}

// The lowest and highest target word linked from source words [lo, hi).
std::pair<int32_t, int32_t> LinkedRange(const PlacedSentence& s, size_t lo, size_t hi) {
  const size_t n = s.source_words.size();
  int32_t low = std::numeric_limits<int32_t>::max(), high = kNone;
  for (lo += n, hi += n; lo < hi; lo >>= 1, hi >>= 1) {
    if (lo & 1) {
      low = std::min(low, s.tree_low[lo]);
      high = std::max(high, s.tree_high[lo++]);
    }
    if (hi & 1) {
      low = std::min(low, s.tree_low[--hi]);
      high = std::max(high, s.tree_high[hi]);
    }
  }
  return {low, high};
}

// The words of a sentence that an element overlaps: [first, last).
std::pair<size_t, size_t> WordsInside(const PlacedSentence& s, const HtmlElement& element) {
  const auto& w = s.source_words;
  const size_t first = static_cast<size_t>(
      std::lower_bound(w.begin(), w.end(), element.begin, [](const TextSpan& x, size_t at) { return x.end <= at; }) -
      w.begin());
  const size_t last = static_cast<size_t>(
      std::lower_bound(w.begin(), w.end(), element.end, [](const TextSpan& x, size_t at) { return x.begin < at; }) -
      w.begin());
  return {first, std::max(first, last)};
}

// Around the target words of the source words an element overlaps (a whole
// sentence it covers: its whole translation), those linked only from inside
// it first (a word linked from outside as well, such as an article shared
// with a neighbour, only when there are no others), in each sentence their
// largest run; for words without links, the first target word linked from
// its position on (an empty element: a point before it), else the end of
// the sentence it is in.
TextSpan Place(const HtmlElement& element, const std::vector<PlacedSentence>& sentences, size_t output_size) {
  const auto from = std::lower_bound(sentences.begin(), sentences.end(), element.begin,
                                     [](const PlacedSentence& s, size_t at) { return s.source.end < at; });
  TextSpan owned{output_size, 0}, shared{output_size, 0};
  for (auto it = from; it != sentences.end() && it->source.begin < element.end; ++it) {
    const PlacedSentence& s = *it;
    if (element.begin <= s.source.begin && element.end >= s.source.end) {
      Widen(&owned, s.target);
      continue;
    }
    const auto [lo, hi] = WordsInside(s, element);
    if (hi - lo > kWeighedWords) {
      const auto [low, high] = LinkedRange(s, lo, hi);
      if (high != kNone)
        Widen(&owned, TextSpan{s.target_words[static_cast<size_t>(low)].begin,
                               s.target_words[static_cast<size_t>(high)].end});
      continue;
    }
    std::vector<int32_t> only_inside, also_outside;
    for (size_t w = lo; w < hi; ++w) {
      for (int32_t t : s.links[w]) {
        const size_t target = static_cast<size_t>(t);
        const bool alone = s.first_source[target] >= static_cast<int32_t>(lo) &&
                           s.last_source[target] < static_cast<int32_t>(hi);
        (alone ? only_inside : also_outside).push_back(t);
      }
    }
    if (!only_inside.empty()) Widen(&owned, RunOf(only_inside, s));
    if (!also_outside.empty()) Widen(&shared, RunOf(also_outside, s));
  }
  if (owned.begin < owned.end) return owned;
  if (shared.begin < shared.end) return shared;
  if (from == sentences.end()) return TextSpan{output_size, output_size};
  const PlacedSentence& s = *from;
  const size_t start = WordsInside(s, HtmlElement{"", "", "", element.begin, element.begin, -1}).first;
  const size_t w = start < s.next_linked.size() ? s.next_linked[start] : s.source_words.size();
  if (w < s.source_words.size()) {
    const TextSpan& target = s.target_words[static_cast<size_t>(s.links[w].front())];
    return element.begin < element.end ? target : TextSpan{target.begin, target.begin};
  }
  const size_t at = element.begin <= s.source.begin ? s.target.begin : s.target.end;
  return TextSpan{at, at};
}

}  // namespace

void PlacedSentence::Index() {
  const size_t n = source_words.size();
  first_source.assign(target_words.size(), kNone);
  last_source.assign(target_words.size(), kNone);
  next_linked.assign(n + 1, n);
  tree_low.assign(2 * n, std::numeric_limits<int32_t>::max());
  tree_high.assign(2 * n, kNone);
  for (size_t w = n; w-- > 0;) next_linked[w] = links[w].empty() ? next_linked[w + 1] : w;
  for (size_t w = 0; w < n; ++w) {
    for (int32_t t : links[w]) {
      const size_t target = static_cast<size_t>(t);
      if (first_source[target] == kNone) first_source[target] = static_cast<int32_t>(w);
      last_source[target] = static_cast<int32_t>(w);
      tree_low[n + w] = std::min(tree_low[n + w], t);
      tree_high[n + w] = std::max(tree_high[n + w], t);
    }
  }
  for (size_t i = n; i-- > 1;) {
    tree_low[i] = std::min(tree_low[2 * i], tree_low[2 * i + 1]);
    tree_high[i] = std::max(tree_high[2 * i], tree_high[2 * i + 1]);
  }
}

std::vector<TextSpan> PlaceElements(const HtmlFlow& flow, const std::vector<PlacedSentence>& sentences,
                                    const std::string& output) {
  const std::vector<HtmlElement>& elements = flow.elements;
  std::vector<TextSpan> spans;
  spans.reserve(elements.size());
  for (const HtmlElement& element : elements) spans.push_back(Place(element, sentences, output.size()));
  // Nested as the tags are: each inside its parent's, after its previous sibling's.
  std::vector<size_t> child_from(elements.size(), 0);  // per element, where its next child may start
  size_t top_from = 0;
  for (size_t e = 0; e < elements.size(); ++e) {
    const int parent = elements[e].parent;
    const TextSpan outer = parent < 0 ? TextSpan{0, output.size()} : spans[static_cast<size_t>(parent)];
    size_t& after = parent < 0 ? top_from : child_from[static_cast<size_t>(parent)];
    after = std::max(after, outer.begin);
    TextSpan& span = spans[e];
    span.begin = std::min(std::max(span.begin, after), outer.end);
    span.end = std::min(std::max(span.end, span.begin), outer.end);
    while (span.begin < span.end && output[span.begin] == ' ') ++span.begin;
    while (span.end > span.begin && output[span.end - 1] == ' ') --span.end;
    after = span.end;
    child_from[e] = span.begin;
  }
  return spans;
}

}  // namespace edgemt
