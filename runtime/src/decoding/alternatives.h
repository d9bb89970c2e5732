// CTranslate2's return_alternatives (DecodeOptions): the num_hypotheses
// most likely ids at the first position after each sentence's target
// prefix, each completed by the usual search as a sentence of its own.
//
// Two passes over the decoder. The first feeds each sentence's prefix and
// ranks the ids of the next position (one row per sentence). The second
// decodes count x num_hypotheses completions as one batch (greedy.h or
// beam_search.h), each with its sentence's prefix and its alternative's
// id as a prefix that the score leaves out (DecodingJob::completing); the
// prefixes are computed again there: a few steps, and no history copies.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory/arena.h"
#include "decoding/beam_search.h"
#include "decoding/decoding_job.h"
#include "decoding/greedy.h"
#include "decoding/step_model.h"

namespace edgemt {

// Per completion j = sentence * num_hypotheses + k (at most `batch`).
struct AlternativeBuffers {
  int32_t* prefix_ids = nullptr;       // [batch, T] the sentence's prefix and the alternative's id
  TokenIds* prefixes = nullptr;        // [batch] views of them
  float* first_log_probs = nullptr;    // [batch] the alternative's id's log-probability
  uint8_t* expanded = nullptr;         // [batch] 1: an alternative, 0: the prefix filled the length limit
  uint8_t* kept = nullptr;             // [batch] 0: left out (min_alternative_expansion_prob)
  int32_t* step_limits = nullptr;      // [batch] the sentence's length limit

  void Plan(size_t batch, size_t max_target, ArenaLayout* layout);
};

// Decodes job.count sentences into job.hypotheses (count x num_hypotheses).
Status DecodeAlternatives(const DecodingJob& job, StepModel& model, DecodingScratch& scratch, GreedyBuffers& greedy,
                          BeamBuffers& beams, AlternativeBuffers& buffers);

}  // namespace edgemt
