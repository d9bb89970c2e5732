// What the text layer (text_translator.h) returns: per source, its
// translations with their ids, scores, alignments and confidences; and
// what its translation caches report. Plain values, below the translator,
// so that the cache (runtime/src/text/translation_cache.h) needs no more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "edgemt/status.h"

namespace edgemt {

// What a translation cache holds and has done.
struct TranslationCacheStats {
  size_t capacity_bytes = 0;
  size_t bytes = 0;      // counted as TranslationCache::BytesOf (heap blocks and bookkeeping)
  size_t entries = 0;
  uint64_t hits = 0;     // sources found
  uint64_t misses = 0;   // sources looked up and translated
};

struct TextHypothesis {
  // Detokenized; line breaks a vocabulary might hold become spaces, so a
  // translation is always one line. Empty when the model has no tokenizer
  // (or the build has no SentencePiece).
  std::string text;
  std::vector<int32_t> ids;             // without </s>
  float score = 0.0f;                   // as Hypothesis::score
  std::vector<float> token_log_probs;   // as Hypothesis::token_log_probs (with </s>'s when it ended with </s>)
  bool ended_with_eos = false;
  // With DecodeOptions::return_alignments: per id, its aligned position
  // among the source's ids as translated (Hypothesis::alignments: after
  // the <s> a model's framing adds, if any) ...
  std::vector<int32_t> alignments;
  // ... and the same on words, what spaces separate in the source text and
  // in `text` (Tokenizer::WordStarts; without a tokenizer, each id is a
  // word): (source word, target word) pairs, 0-based, without repeats,
  // sorted by target word: Moses' and fast_align's "i-j".
  std::vector<std::pair<int32_t, int32_t>> word_alignments;
  // With scores (token_log_probs): exp of the mean log-probability of the
  // ids and </s> (0..1), and per word of `text`, of its ids'.
  float confidence = 0.0f;
  std::vector<float> word_confidences;
};

struct TextResult {
  Status status;            // this source's own failure
  std::string warning;      // e.g. a truncated source; empty when none
  // num_hypotheses, best first, when status is ok. A blank source (only
  // spaces, or no ids) gives empty hypotheses with score 0.
  std::vector<TextHypothesis> hypotheses;
};

}  // namespace edgemt
