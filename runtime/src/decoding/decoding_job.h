// One call's decoding as both loops (greedy.h, beam_search.h) see it: the
// sources and options, where the results go, and the scratch they share.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "memory/arena.h"
#include "decoding/banned_ids.h"
#include "decoding/logits_processors.h"
#include "edgemt/decode_options.h"
#include "edgemt/model_config.h"
#include "edgemt/types.h"

namespace edgemt {

// How far a sentence got. kStopped: at its length limit, or its caller
// stopped it (streaming); beam search uses kStopped for a finished sentence.
enum class SentenceState : uint8_t { kDecoding, kStopped, kEndedWithEos };

// Arena buffers both loops use, for `rows` = batch x beam hypotheses.
struct DecodingScratch {
  int32_t* row_tokens = nullptr;      // [rows] the tokens of the next decoder step's rows
  int32_t* row_slots = nullptr;       // [rows] and the hypotheses (history slots) they continue
  int32_t* row_alignments = nullptr;  // [rows] each row's aligned source position (StepModel::alignments)
  SentenceState* states = nullptr;    // [batch]
  float* probs = nullptr;             // [target vocab] sampling and alternatives scratch
  int32_t* ids = nullptr;             // [target vocab] sampling scratch

  void Plan(size_t batch, size_t rows, size_t vocab, ArenaLayout* layout);
};

struct DecodingJob {
  const ModelConfig* config = nullptr;
  const DecodeOptions* options = nullptr;
  const TokenIds* sources = nullptr;  // each ends with </s>
  size_t count = 0;                   // sentences
  size_t per_source = 1;              // sentences per source: sentence s translates sources[s / per_source]
  // Each sentence's forced first ids (DecodeOptions::target_prefixes), or null.
  const TokenIds* prefixes = nullptr;
  // Alternatives' completions (alternatives.h): each sentence's prefix is
  // its alternative's first ids, which are not part of what is scored: the
  // score's length, the logits processors' history and CTranslate2's </s>
  // rule after a prefix leave them out.
  bool completing = false;
  // Each sentence's decoder steps, overriding StepsFor's rule, or null
  // (completions keep the limit of the sentence they complete).
  const int32_t* step_limits = nullptr;
  LogitsProcessors processors;
  size_t max_target = 0;              // the translator's max_target_length: the output buffers' stride
  TranslationProfile* profile = nullptr;  // null: not profiling
  // Exactly one is set: the best ids of each sentence, or num_hypotheses
  // hypotheses with scores per sentence.
  TokenIds* outputs = nullptr;
  Hypothesis* hypotheses = nullptr;

  const TokenIds& SourceOf(size_t s) const { return sources[s / per_source]; }
  size_t SourceIndexOf(size_t s) const { return s / per_source; }
  TokenIds PrefixOf(size_t s) const { return prefixes != nullptr ? prefixes[s] : TokenIds{}; }
  // The first id of sentence s that its score and the processors count.
  size_t ScoredFrom(size_t s) const { return completing ? PrefixOf(s).size : 0; }
  // The logits processors on sentence s's row of logits over `columns`,
  // given the hypothesis's `produced` ids so far (those before ScoredFrom left out).
  void ApplyProcessors(size_t s, const int32_t* output, size_t produced, float* logits,
                       const OutputColumns& columns) const;
  // Decoder steps for sentence s: step_limits[s], max_length, or the
  // reference's rule (StepsLimit).
  size_t StepsFor(size_t s) const;
};

// A sentence's decoder steps: max_length when set, else the model's
// length_factor (ModelConfig::default_max_length_factor) times its source
// ids rounded up, or without one the reference decoder's rule, 2 x its
// source ids + 10; either with room for its prefix, within the
// translator's max_target_length.
size_t StepsLimit(const DecodeOptions& options, float length_factor, size_t source_size, size_t prefix_size,
                  size_t max_target);

// What a model never lets decoding choose: its file's banned ids; in files
// without them, pad, unk and <s> for beam search and sampling, and nothing
// for greedy decoding (the seed reference decoder's rule).
BannedIds ModelBans(const ModelConfig& config, bool greedy);

// Choosing tokens is part of each decoder step: the time since `start` goes
// to the profile's decoder and other time.
void AddChoiceTime(TranslationProfile* profile, std::chrono::steady_clock::time_point start);

double MillisecondsSince(std::chrono::steady_clock::time_point start);

}  // namespace edgemt
