#include "decoding/beam_search.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <limits>

namespace edgemt {

float NormalizedScore(float log_prob_sum, size_t length, float length_penalty) {
  return log_prob_sum / static_cast<float>(std::pow(static_cast<double>(length), static_cast<double>(length_penalty)));
}

namespace {

// Inserts (score, row, token) into the candidates sorted best first, keeping
// at most `capacity`: a higher score first, then the lower row, then the lower token.
void Insert(float score, int32_t row, int32_t token, size_t capacity, size_t* count, BeamBuffers* b) {
  size_t at = *count;
  while (at > 0) {
    const float other = b->candidate_scores[at - 1];
    const bool before = score > other || (score == other && (row < b->candidate_rows[at - 1] ||
                                                             (row == b->candidate_rows[at - 1] &&
                                                              token < b->candidate_tokens[at - 1])));
    if (!before) break;
    --at;
  }
  if (at >= capacity) return;
  const size_t last = *count < capacity ? *count : capacity - 1;
  for (size_t i = last; i > at; --i) {
    b->candidate_scores[i] = b->candidate_scores[i - 1];
    b->candidate_rows[i] = b->candidate_rows[i - 1];
    b->candidate_tokens[i] = b->candidate_tokens[i - 1];
  }
  b->candidate_scores[at] = score;
  b->candidate_rows[at] = row;
  b->candidate_tokens[at] = token;
  if (*count < capacity) ++*count;
}

// Copies an alive hypothesis (sentence row `from`, `produced` ids) into the
// sentence's next finished slot, `token` and its log-probability appended
// when it ended with </s>.
void Finish(const BeamRule& rule, size_t sentence, size_t from, size_t produced, int current, bool with_eos,
            float eos_log_prob, float sum, BeamBuffers* b) {
  const size_t t = b->max_length;
  const size_t slot = sentence * rule.beam + static_cast<size_t>(b->finished_count[sentence]);
  const size_t row = sentence * rule.beam + from;
  int32_t* ids = b->finished_ids + slot * (t + 1);
  float* log_probs = b->finished_log_probs + slot * (t + 1);
  std::memcpy(ids, b->ids[current] + row * t, produced * sizeof(int32_t));
  std::memcpy(log_probs, b->log_probs[current] + row * t, produced * sizeof(float));
  size_t length = produced;
  if (with_eos) {
    ids[length] = rule.eos_id;
    log_probs[length] = eos_log_prob;
    ++length;
  }
  b->finished_lengths[slot] = static_cast<int32_t>(length);
  b->finished_eos[slot] = with_eos ? 1 : 0;
  b->finished_scores[slot] = length == 0 ? -std::numeric_limits<float>::infinity()
                                         : NormalizedScore(sum, length, rule.length_penalty);
  ++b->finished_count[sentence];
}

}  // namespace

BeamStepResult BeamStep(const BeamRule& rule, size_t sentence, const float* logits, const float* log_sum_exp,
                        size_t live, size_t produced, bool eos_allowed, bool last_step, int current, BeamBuffers* b,
                        int32_t* next_tokens) {
  const size_t beam = rule.beam;
  const size_t vocab = rule.vocab;
  const size_t t = b->max_length;
  const size_t first = sentence * beam;
  const int next = 1 - current;
  // The best 2 * beam continuations over all alive hypotheses.
  const size_t capacity = 2 * beam;
  size_t count = 0;
  for (size_t r = 0; r < live; ++r) {
    const float* row = logits + r * vocab;
    const float lse = log_sum_exp[r];
    const float cumulative = b->cumulative[first + r];
    // Once the list is full, a logit must beat (worst - cumulative + lse) to
    // enter: a cheap pre-filter on the logit alone, with a margin for the
    // rounding of the exact score, which decides.
    float limit = -std::numeric_limits<float>::infinity();
    auto update_limit = [&]() {
      if (count < capacity) return;
      const float worst = b->candidate_scores[capacity - 1];
      const float bound = worst - cumulative + lse;
      limit = bound - 1e-5f * (std::fabs(worst) + std::fabs(cumulative) + std::fabs(lse)) - 1e-6f;
    };
    update_limit();
    for (size_t v = 0; v < vocab; ++v) {
      if (!(row[v] >= limit)) continue;
      const int32_t token = static_cast<int32_t>(v);
      if (rule.banned.Contains(token)) continue;
      if (token == rule.eos_id && !eos_allowed) continue;
      const float score = cumulative + (row[v] - lse);
      if (count == capacity && !(score > b->candidate_scores[capacity - 1])) continue;
      Insert(score, static_cast<int32_t>(r), token, capacity, &count, b);
      update_limit();
    }
  }
  // </s> among the best `beam` finishes a hypothesis; the first `beam` others go on.
  BeamStepResult result;
  for (size_t i = 0; i < count; ++i) {
    const size_t from = static_cast<size_t>(b->candidate_rows[i]);
    const int32_t token = b->candidate_tokens[i];
    const float score = b->candidate_scores[i];
    if (token == rule.eos_id) {
      if (i < beam && static_cast<size_t>(b->finished_count[sentence]) < beam) {
        const float previous = b->cumulative[first + from];
        Finish(rule, sentence, from, produced, current, /*with_eos=*/true, score - previous, score, b);
      }
      continue;
    }
    if (result.live == beam) continue;
    const size_t to = first + result.live;
    b->parent[to] = static_cast<int32_t>(from);
    std::memcpy(b->ids[next] + to * t, b->ids[current] + (first + from) * t, produced * sizeof(int32_t));
    std::memcpy(b->log_probs[next] + to * t, b->log_probs[current] + (first + from) * t, produced * sizeof(float));
    b->ids[next][to * t + produced] = token;
    b->log_probs[next][to * t + produced] = score - b->cumulative[first + from];
    next_tokens[result.live] = token;
    ++result.live;
  }
  // The new cumulative scores, once every candidate has read the old ones.
  for (size_t i = 0, alive = 0; i < count && alive < result.live; ++i) {
    if (b->candidate_tokens[i] == rule.eos_id) continue;
    b->cumulative[first + alive++] = b->candidate_scores[i];
  }
  for (size_t r = result.live; r < beam; ++r) next_tokens[r] = rule.eos_id;  // a valid input for an idle row
  if (last_step) {
    // The length limit: every alive hypothesis finishes as it is.
    for (size_t r = 0; r < result.live && static_cast<size_t>(b->finished_count[sentence]) < beam; ++r)
      Finish(rule, sentence, r, produced + 1, next, /*with_eos=*/false, 0.0f, b->cumulative[first + r], b);
    result.live = 0;
  }
  const size_t finished = static_cast<size_t>(b->finished_count[sentence]);
  // Done when the best finished hypothesis beats what every alive one would
  // score if </s> came next at no cost (exact with length_penalty 0).
  bool settled = false;
  if (finished >= rule.num_hypotheses && result.live > 0) {
    float best_finished = -std::numeric_limits<float>::infinity();
    for (size_t f = 0; f < finished; ++f) best_finished = std::max(best_finished, b->finished_scores[first + f]);
    settled = true;
    for (size_t r = 0; r < result.live && settled; ++r)
      settled = best_finished >= NormalizedScore(b->cumulative[first + r], produced + 2, rule.length_penalty);
  }
  if (finished >= beam || settled) result.live = 0;
  if (result.live == 0 && b->finished_count[sentence] == 0)  // nothing could be chosen at all
    Finish(rule, sentence, 0, 0, current, /*with_eos=*/false, 0.0f, 0.0f, b);
  result.done = result.live == 0;
  return result;
}

void RankFinished(size_t sentence, size_t beam, BeamBuffers* b) {
  const size_t first = sentence * beam;
  const size_t count = static_cast<size_t>(b->finished_count[sentence]);
  for (size_t i = 0; i < count; ++i) {
    // Insertion sort: at most a beam's worth, stable for equal scores.
    size_t at = i;
    const int32_t slot = static_cast<int32_t>(first + i);
    while (at > 0 && b->finished_scores[slot] > b->finished_scores[b->order[first + at - 1]]) {
      b->order[first + at] = b->order[first + at - 1];
      --at;
    }
    b->order[first + at] = slot;
  }
}

}  // namespace edgemt
