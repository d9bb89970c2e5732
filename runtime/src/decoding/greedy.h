// Greedy decoding and sampling (beam size 1; the rule is DecodeOptions'):
// each step computes only the unfinished sentences, one row each, and
// chooses each row's next id by the largest logit or by sampling.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory/arena.h"
#include "decoding/decoding_job.h"
#include "decoding/step_model.h"

namespace edgemt {

// Per sentence s; T = the most output ids.
struct GreedyBuffers {
  int32_t* output_ids = nullptr;        // [batch, T]
  float* output_log_probs = nullptr;    // [batch, T + 1] scores (with </s>'s)
  int32_t* output_alignments = nullptr; // [batch, T] aligned source positions (return_alignments)
  int32_t* output_lengths = nullptr;    // [batch]
  uint64_t* sampler_states = nullptr;   // [batch] each sentence's generator

  void Plan(size_t batch, size_t max_target, ArenaLayout* layout);
};

Status DecodeGreedy(const DecodingJob& job, StepModel& model, DecodingScratch& scratch, GreedyBuffers& buffers);

}  // namespace edgemt
