// A bounded cache of translations, so that translating a page again, or an
// app's strings, costs nothing for the sentences already seen. One cache
// belongs to one TextTranslator (so to one model); its key is everything
// else an output depends on: the decoding options, whether scores were
// asked for, the target prefix and the source ids. When an insert would
// pass the byte bound, the least recently used entries go first. Not
// thread-safe: the TextTranslator's calls are serialized.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "edgemt/decode_options.h"
#include "edgemt/text_result.h"

namespace edgemt {

class TranslationCache {
 public:
  explicit TranslationCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  // The key of a source's translation. Every DecodeOptions field that
  // changes an output is in it (a new field must be added here).
  static std::string KeyOf(const DecodeOptions& decode, bool with_scores, const std::vector<int32_t>& source,
                           const std::vector<int32_t>* prefix);

  // The hypotheses stored under `key`, now the most recently used; null when none.
  const std::vector<TextHypothesis>* Find(const std::string& key);
  // Stores a copy (an entry larger than the whole bound is not kept).
  void Insert(const std::string& key, const std::vector<TextHypothesis>& hypotheses);

  TranslationCacheStats stats() const;

  // What an entry is counted as: the heap blocks of its key, its hypotheses
  // (capacities, not sizes), and of the list and the index that hold it,
  // each with malloc's header and alignment (measured against the heap in
  // tests/unit/text/translation_cache_test.cc).
  static size_t BytesOf(const std::string& key, const std::vector<TextHypothesis>& hypotheses);

 private:
  struct Entry {
    std::string key;
    std::vector<TextHypothesis> hypotheses;
    size_t bytes = 0;
  };
  using Order = std::list<Entry>;  // most recently used first

  size_t capacity_;
  size_t bytes_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  Order order_;
  std::unordered_map<std::string_view, Order::iterator> index_;  // views of the entries' keys
};

}  // namespace edgemt
