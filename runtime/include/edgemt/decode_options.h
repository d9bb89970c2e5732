// How one call decodes (greedy, beam search, sampling, streaming) and what
// it returns per hypothesis: plain values, below the translator, so that
// the decoding loops inside the runtime need not include translator.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgemt/types.h"

namespace edgemt {

struct DecodeOptions {
  // Stop after this many output ids; 0: min(2 * source length + 10,
  // max_target_length) for each sentence, as the reference decoder does.
  int max_length = 0;
  // </s> is not chosen before this many ids are out (fixed-length benchmarks).
  int min_length = 0;
  // 1: greedy (the largest logit, the lowest id on ties). 2..max_beam_size:
  // beam search, CTranslate2's, as follows. Each step scores every
  // continuation of every alive hypothesis by its summed log-probability
  // (log-softmax of the float logits over the ids the step may choose: pad,
  // unk and <s> are never chosen, or the file's banned ids, and </s> not
  // before min_length) and ranks them (higher score first, then the lower
  // beam, then the lower id). Of the best 2 x beam_size in that order, a
  // </s> among the first beam_size finishes its hypothesis (at the length
  // limit, max_length or the default above, every one of the first
  // beam_size does), and the first beam_size others are the next step's
  // hypotheses. A sentence stops at its length limit; with a length_penalty,
  // once beam_size hypotheses have finished; with length_penalty 0, once a
  // step's best candidate was </s> and num_hypotheses have finished.
  // Finished hypotheses are ranked by sum / length^length_penalty, the
  // length counting </s> when the hypothesis ended with it (ties: the one
  // that finished first); of more than beam_size, the best beam_size are kept.
  int beam_size = 1;
  float length_penalty = 1.0f;
  // Hypotheses returned per sentence (n-best), 1..beam_size.
  int num_hypotheses = 1;
  // Random sampling instead of the largest logit (beam_size 1 only) when
  // sampling_topk is not 1: each id is drawn from softmax(logits /
  // sampling_temperature) over the sampling_topk most likely ids (0: all),
  // then over the most likely of those whose probabilities add up to
  // sampling_topp (1: all); pad, unk and <s> are never drawn, </s> not
  // before min_length. The generator of each sentence is seeded with
  // sampling_seed and its source ids: the same seed and source give the same
  // output in any batch, on any thread count, on every run. Scores stay the
  // model's log-probabilities (no temperature), over the ids it may draw,
  // as greedy decoding's are over the ids it may choose.
  int sampling_topk = 1;
  float sampling_topp = 1.0f;
  float sampling_temperature = 1.0f;
  uint64_t sampling_seed = 0;
  // Streaming (beam_size 1 only): after each decoder step, on_token gets each
  // sentence's new id (</s> is not passed: the sentence just ends). When it
  // returns false, that sentence ends there, as at its length limit
  // (ended_with_eos false); the others go on. Called on the translating
  // thread; nullptr: no calls.
  bool (*on_token)(void* user_data, size_t sentence, int32_t id) = nullptr;
  void* on_token_user_data = nullptr;
};

// One translation of a sentence, pointing into the translator's memory
// (valid until its next call).
struct Hypothesis {
  TokenIds ids;                           // without <s> and </s>
  float score = 0.0f;                     // the normalized score it was ranked by (see DecodeOptions)
  // Per output id, its log-probability, and then </s>'s when it ended with </s>.
  const float* token_log_probs = nullptr;
  bool ended_with_eos = false;            // else it stopped at the length limit
};

}  // namespace edgemt
