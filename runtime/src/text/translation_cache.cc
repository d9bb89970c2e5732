#include "text/translation_cache.h"

#include <algorithm>
#include <cstring>

namespace edgemt {
namespace {

template <typename T>
void Append(std::string* key, const T& value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  key->append(bytes, sizeof(T));
}

void AppendIds(std::string* key, const std::vector<int32_t>& ids) {
  Append(key, static_cast<uint32_t>(ids.size()));
  key->append(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(int32_t));
}

// What a heap block of `bytes` takes: malloc's header and its alignment
// (glibc: a size word, 16-byte chunks of at least 32 bytes); none for 0.
size_t Block(size_t bytes) {
  if (bytes == 0) return 0;
  return std::max<size_t>(32, (bytes + sizeof(size_t) + 15) / 16 * 16);
}

size_t HeapOf(const std::string& s) {
  // Short strings live inside the object (no heap block).
  return s.capacity() > sizeof(std::string) - 2 ? Block(s.capacity() + 1) : 0;
}

}  // namespace

std::string TranslationCache::KeyOf(const DecodeOptions& decode, bool with_scores, const std::vector<int32_t>& source,
                                    const std::vector<int32_t>* prefix) {
  std::string key;
  key.reserve(64 + 4 * source.size());
  Append(&key, decode.max_length);
  Append(&key, decode.min_length);
  Append(&key, decode.beam_size);
  Append(&key, decode.length_penalty);
  Append(&key, decode.num_hypotheses);
  Append(&key, decode.sampling_topk);
  Append(&key, decode.sampling_topp);
  Append(&key, decode.sampling_temperature);
  Append(&key, decode.sampling_seed);
  Append(&key, decode.return_alternatives);
  Append(&key, decode.min_alternative_expansion_prob);
  Append(&key, decode.repetition_penalty);
  Append(&key, decode.no_repeat_ngram_size);
  Append(&key, decode.disable_unk);
  Append(&key, decode.return_alignments);
  Append(&key, decode.alignment_layer);
  Append(&key, decode.use_shortlist);
  Append(&key, with_scores);
  AppendIds(&key, prefix != nullptr ? *prefix : std::vector<int32_t>());
  AppendIds(&key, source);
  return key;
}

size_t TranslationCache::BytesOf(const std::string& key, const std::vector<TextHypothesis>& hypotheses) {
  // The list's node (the entry and two links), the index's node (its key,
  // value, link and hash) and its share of the bucket array (at most one
  // bucket per entry at the default load factor, two while it grows).
  size_t bytes = Block(sizeof(Entry) + 2 * sizeof(void*)) +
                 Block(sizeof(std::string_view) + sizeof(Order::iterator) + 2 * sizeof(void*)) + 2 * sizeof(void*);
  bytes += HeapOf(key) + Block(hypotheses.capacity() * sizeof(TextHypothesis));
  for (const TextHypothesis& h : hypotheses) {
    bytes += HeapOf(h.text) + Block(h.ids.capacity() * sizeof(int32_t)) +
             Block(h.token_log_probs.capacity() * sizeof(float)) + Block(h.alignments.capacity() * sizeof(int32_t)) +
             Block(h.word_alignments.capacity() * sizeof(h.word_alignments[0])) +
             Block(h.word_confidences.capacity() * sizeof(float));
  }
  return bytes;
}

const std::vector<TextHypothesis>* TranslationCache::Find(const std::string& key) {
  const auto found = index_.find(std::string_view(key));
  if (found == index_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  order_.splice(order_.begin(), order_, found->second);  // iterators (and the key's view) stay valid
  return &found->second->hypotheses;
}

void TranslationCache::Insert(const std::string& key, const std::vector<TextHypothesis>& hypotheses) {
  if (capacity_ == 0 || index_.count(std::string_view(key)) != 0) return;
  Entry entry;
  entry.key = key;
  entry.hypotheses = hypotheses;
  entry.hypotheses.shrink_to_fit();
  entry.bytes = BytesOf(entry.key, entry.hypotheses);
  if (entry.bytes > capacity_) return;
  while (bytes_ + entry.bytes > capacity_) {
    const Entry& oldest = order_.back();
    bytes_ -= oldest.bytes;
    index_.erase(std::string_view(oldest.key));
    order_.pop_back();
  }
  bytes_ += entry.bytes;
  order_.push_front(std::move(entry));
  index_.emplace(std::string_view(order_.front().key), order_.begin());
}

TranslationCacheStats TranslationCache::stats() const {
  TranslationCacheStats s;
  s.capacity_bytes = capacity_;
  s.bytes = bytes_;
  s.entries = order_.size();
  s.hits = hits_;
  s.misses = misses_;
  return s;
}

}  // namespace edgemt
