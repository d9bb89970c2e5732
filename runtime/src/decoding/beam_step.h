// One beam-search step of one sentence (the rule is DecodeOptions'):
// choosing its surviving hypotheses from the logits of its beams, and
// collecting finished ones, in arena buffers only (BeamBuffers).
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory/arena.h"
#include "decoding/banned_ids.h"
#include "decoding/history_slots.h"
#include "decoding/row_normalizers.h"
#include "ops/output_columns.h"

namespace edgemt {

// The widest beam.
constexpr int kMaxBeamSize = 256;

// Per sentence s and beam b, row r = s * beam + b; T = the most output ids.
struct BeamBuffers {
  size_t max_length = 0;           // T
  float* cumulative = nullptr;     // [rows] summed log-probabilities of the alive hypotheses
  int32_t* parent = nullptr;       // [rows] the row (within the sentence) each new hypothesis continues
  int32_t* ids[2] = {};            // [rows, T] the alive hypotheses' ids (double-buffered)
  float* log_probs[2] = {};        // [rows, T] their log-probabilities
  int32_t* alignments[2] = {};     // [rows, T] their aligned source positions (return_alignments)
  float* candidate_scores = nullptr;    // [2 * beam]
  int32_t* candidate_rows = nullptr;    // [2 * beam]
  int32_t* candidate_tokens = nullptr;  // [2 * beam]
  // Finished hypotheses: the best `beam` per sentence of those registered.
  int32_t* finished_ids = nullptr;       // [rows, T + 1] (</s> included when it has one)
  float* finished_log_probs = nullptr;   // [rows, T + 1]
  int32_t* finished_alignments = nullptr;  // [rows, T + 1]
  int32_t* finished_lengths = nullptr;   // [rows] output ids, </s> included
  uint8_t* finished_eos = nullptr;       // [rows] whether it ended with </s>
  float* finished_scores = nullptr;      // [rows] the normalized score
  int32_t* finished_count = nullptr;     // [sentences] stored (at most beam)
  int32_t* finished_total = nullptr;     // [sentences] registered, stored or not
  uint8_t* top_finished = nullptr;       // [sentences] a step's best candidate finished
  int32_t* order = nullptr;              // [rows] finished hypotheses best first
  int32_t* live = nullptr;               // [sentences] alive hypotheses per sentence
  int32_t* next_tokens = nullptr;        // [rows] each alive hypothesis's next decoder input
  int32_t* history_slots = nullptr;      // [rows] each hypothesis's history slot (history_slots.h)
  int32_t* old_history_slots = nullptr;  // [beam] a sentence's, while they are assigned again
  uint8_t* slot_kept = nullptr;          // [beam]
  HistoryCopy* slot_copies = nullptr;    // [beam]
  ChoosingRow* choosing = nullptr;       // [rows] a step's rows that choose
  float* normalizers = nullptr;          // [rows] each logits row's log-normalizer

  void Plan(size_t batch, size_t beam, size_t max_target, ArenaLayout* layout);
};

struct BeamRule {
  size_t beam = 1;
  size_t vocab = 0;
  int32_t eos_id = 0;
  BannedIds banned;  // never chosen (</s> before min_length is the step's eos_allowed)
  float length_penalty = 1.0f;
  size_t num_hypotheses = 1;  // a sentence can stop once this many have finished
  bool shrinking = false;     // Marian's search (ModelConfig::shrinking_beam)
};

// What one step decides for one sentence.
struct BeamStepResult {
  size_t live = 0;    // hypotheses alive for the next step (rows 0..live-1)
  bool done = false;  // the sentence needs no more steps
};

// The score a finished hypothesis is ranked by: sum / float(length^penalty);
// length 0 (nothing scored: an alternative cut after its first id, an
// empty greedy output) gives the sum itself.
float NormalizedScore(float log_prob_sum, size_t length, float length_penalty);

// One step of one sentence. `logits` holds a row for each of its `live`
// hypotheses (the first step has one), and
// `log_sum_exp` their normalizers; `produced` ids are out so far, of which
// the first `scored_from` are not counted in a finished hypothesis's length
// (an alternative's first ids). `after_prefix`: the first step after a
// target prefix, where, as in CTranslate2, a </s> among the best `beam`
// candidates other than the best one neither finishes nor goes on but
// takes an alive place (a dead beam).
// `eos_allowed` is false before min_length; `last_step` is the step that
// reaches the sentence's length limit. Writes the sentence's
// parent, cumulative, ids[1 - current] and log_probs[1 - current] for the
// new alive rows, their next decoder input in next_tokens[0..beam), and the
// finished hypotheses. `row_alignments`: null, or the aligned source
// position of each of its `live` rows this step, which the hypotheses that
// continue a row record. The sentence is done (CTranslate2's rule) at the
// length limit; with a length penalty, when `beam` hypotheses have
// finished; without one, when a step's best candidate was </s> and
// `num_hypotheses` have finished. `columns`: the ids of the rows' columns
// (a shortlist; rows stay rule.vocab floats apart), null for every id.
BeamStepResult BeamStep(const BeamRule& rule, size_t sentence, const float* logits, const float* log_sum_exp,
                        size_t live, size_t produced, bool eos_allowed, bool last_step, int current,
                        BeamBuffers* buffers, int32_t* next_tokens, size_t scored_from = 0,
                        bool after_prefix = false, const int32_t* row_alignments = nullptr,
                        const OutputColumns* columns = nullptr);

// Sorts a sentence's finished hypotheses into buffers->order (best first:
// the higher score, then the lower slot: the one that finished first,
// unless it took a dropped one's slot).
void RankFinished(size_t sentence, size_t beam, BeamBuffers* buffers);

// A step that feeds the sentence's target prefix id `token` instead of
// choosing: its one hypothesis goes on with it (log-probability 0), every
// row of the sentence feeding it; at the length limit it finishes.
BeamStepResult ForcedStep(const BeamRule& rule, size_t sentence, int32_t token, size_t produced, bool last_step,
                          size_t scored_from, int current, const int32_t* row_alignments, BeamBuffers* b,
                          int32_t* next_tokens);

}  // namespace edgemt
