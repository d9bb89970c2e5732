#include "decoding/beam_step.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "decoding/row_scan.h"

namespace edgemt {

float NormalizedScore(float log_prob_sum, size_t length, float length_penalty) {
  if (length == 0) return log_prob_sum;
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

// The slot a newly finished hypothesis of `score` takes: the next free one,
// or, when the sentence's `beam` slots are full, the worst one if it scores
// less (only the best `beam` can be returned); -1 when it is not kept.
int32_t FinishedSlot(const BeamRule& rule, size_t sentence, float score, BeamBuffers* b) {
  const size_t first = sentence * rule.beam;
  const size_t stored = static_cast<size_t>(b->finished_count[sentence]);
  if (stored < rule.beam) {
    ++b->finished_count[sentence];
    return static_cast<int32_t>(first + stored);
  }
  size_t worst = first;
  for (size_t i = first + 1; i < first + rule.beam; ++i) {
    if (b->finished_scores[i] <= b->finished_scores[worst]) worst = i;
  }
  return score > b->finished_scores[worst] ? static_cast<int32_t>(worst) : -1;
}

// Registers a finished hypothesis: the alive one in sentence row `from`
// (`produced` ids, in buffer `current`) followed by `token` (</s>, or any
// token at the length limit) of log-probability `token_log_prob`; `sum`
// includes it.
void Finish(const BeamRule& rule, size_t sentence, size_t from, size_t produced, size_t scored_from, int current,
            int32_t token, float token_log_prob, float sum, const int32_t* row_alignments, BeamBuffers* b) {
  ++b->finished_total[sentence];
  const size_t length = produced + 1;
  const float score = NormalizedScore(sum, length - std::min(scored_from, length), rule.length_penalty);
  const int32_t kept = FinishedSlot(rule, sentence, score, b);
  if (kept < 0) return;
  const size_t slot = static_cast<size_t>(kept);
  const size_t t = b->max_length;
  const size_t row = sentence * rule.beam + from;
  int32_t* ids = b->finished_ids + slot * (t + 1);
  float* log_probs = b->finished_log_probs + slot * (t + 1);
  std::memcpy(ids, b->ids[current] + row * t, produced * sizeof(int32_t));
  std::memcpy(log_probs, b->log_probs[current] + row * t, produced * sizeof(float));
  ids[produced] = token;
  log_probs[produced] = token_log_prob;
  if (row_alignments != nullptr) {
    int32_t* alignments = b->finished_alignments + slot * (t + 1);
    std::memcpy(alignments, b->alignments[current] + row * t, produced * sizeof(int32_t));
    alignments[produced] = row_alignments[from];
  }
  const bool with_eos = token == rule.eos_id;
  b->finished_lengths[slot] = static_cast<int32_t>(length);
  b->finished_eos[slot] = with_eos ? 1 : 0;
  b->finished_scores[slot] = score;
}

// A sentence with nothing to choose at all (every id banned): one empty hypothesis.
void FinishEmpty(size_t sentence, size_t beam, BeamBuffers* b) {
  const size_t slot = sentence * beam;
  ++b->finished_total[sentence];
  b->finished_count[sentence] = 1;
  b->finished_lengths[slot] = 0;
  b->finished_eos[slot] = 0;
  b->finished_scores[slot] = -std::numeric_limits<float>::infinity();
}

// The best 2 * beam continuations over a sentence's `live` alive hypotheses
// into the candidate lists (best first); returns how many there are.
size_t BestCandidates(const BeamRule& rule, size_t first, const float* logits, const float* log_sum_exp, size_t live,
                      bool eos_allowed, const OutputColumns& columns, BeamBuffers* b) {
  const size_t capacity = 2 * rule.beam;
  size_t count = 0;
  for (size_t r = 0; r < live; ++r) {
    const float* row = logits + r * rule.vocab;
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
    for (size_t v = 0; v < columns.count; ++v) {
      if (!(row[v] >= limit)) {
        v += FirstAtLeast(row + v, columns.count - v, limit);  // most logits fail it: skip them vectorized
        if (v == columns.count) break;
      }
      const int32_t token = columns.IdAt(v);
      if (rule.banned.Contains(token)) continue;
      if (token == rule.eos_id && !eos_allowed) continue;
      const float score = cumulative + (row[v] - lse);
      if (count == capacity && !(score > b->candidate_scores[capacity - 1])) continue;
      Insert(score, static_cast<int32_t>(r), token, capacity, &count, b);
      update_limit();
    }
  }
  return count;
}

// Copies alive row `from`'s ids (and log-probabilities, alignments) with
// `token` appended into new alive row `to` of buffer `next`.
void Continue(size_t first, size_t from, size_t to, int32_t token, float token_log_prob, size_t produced, int current,
              const int32_t* row_alignments, BeamBuffers* b) {
  const size_t t = b->max_length;
  const int next = 1 - current;
  b->parent[first + to] = static_cast<int32_t>(from);
  std::memcpy(b->ids[next] + (first + to) * t, b->ids[current] + (first + from) * t, produced * sizeof(int32_t));
  std::memcpy(b->log_probs[next] + (first + to) * t, b->log_probs[current] + (first + from) * t,
              produced * sizeof(float));
  b->ids[next][(first + to) * t + produced] = token;
  b->log_probs[next][(first + to) * t + produced] = token_log_prob;
  if (row_alignments != nullptr) {
    std::memcpy(b->alignments[next] + (first + to) * t, b->alignments[current] + (first + from) * t,
                produced * sizeof(int32_t));
    b->alignments[next][(first + to) * t + produced] = row_alignments[from];
  }
}

// After a step's choices, whose first `live` candidates other than </s>
// (of `count`) go on: their new cumulative scores, once every candidate has
// read the old ones, and a valid input for each idle row.
void SettleAlive(const BeamRule& rule, size_t first, size_t count, size_t live, BeamBuffers* b,
                 int32_t* next_tokens) {
  for (size_t i = 0, alive = 0; i < count && alive < live; ++i) {
    if (b->candidate_tokens[i] == rule.eos_id) continue;
    b->cumulative[first + alive++] = b->candidate_scores[i];
  }
  for (size_t r = live; r < rule.beam; ++r) next_tokens[r] = rule.eos_id;
}

// The step's result: `live` rows go on unless the sentence `stops`; one
// that ends with nothing finished gets an empty hypothesis.
BeamStepResult Ended(size_t sentence, size_t beam, size_t live, bool stops, BeamBuffers* b) {
  BeamStepResult result;
  result.live = stops ? 0 : live;
  if (result.live == 0 && b->finished_count[sentence] == 0) FinishEmpty(sentence, beam, b);
  result.done = result.live == 0;
  return result;
}

// Marian's step (BeamRule::shrinking) over the sorted candidates: the
// first beam - finished ones (as many as are alive, beam at the first
// step); </s>, or anything at the length limit, finishes and leaves the beam.
BeamStepResult ShrinkingStep(const BeamRule& rule, size_t sentence, size_t count, size_t produced, bool last_step,
                             int current, BeamBuffers* b, int32_t* next_tokens, size_t scored_from,
                             const int32_t* row_alignments) {
  const size_t first = sentence * rule.beam;
  const size_t finished = static_cast<size_t>(b->finished_total[sentence]);
  const size_t width = std::min(count, finished < rule.beam ? rule.beam - finished : 0);
  BeamStepResult result;
  for (size_t i = 0; i < width; ++i) {
    const size_t from = static_cast<size_t>(b->candidate_rows[i]);
    const int32_t token = b->candidate_tokens[i];
    const float score = b->candidate_scores[i];
    const float token_log_prob = score - b->cumulative[first + from];
    if (token == rule.eos_id || last_step) {
      Finish(rule, sentence, from, produced, scored_from, current, token, token_log_prob, score, row_alignments, b);
      continue;
    }
    Continue(first, from, result.live, token, token_log_prob, produced, current, row_alignments, b);
    next_tokens[result.live] = token;
    ++result.live;
  }
  SettleAlive(rule, first, width, result.live, b, next_tokens);
  return Ended(sentence, rule.beam, result.live, last_step, b);
}

}  // namespace

BeamStepResult ForcedStep(const BeamRule& rule, size_t sentence, int32_t token, size_t produced, bool last_step,
                          size_t scored_from, int current, const int32_t* row_alignments, BeamBuffers* b,
                          int32_t* next_tokens) {
  const size_t first = sentence * rule.beam;
  BeamStepResult result;
  if (last_step) {
    Finish(rule, sentence, 0, produced, scored_from, current, token, 0.0f, b->cumulative[first], row_alignments, b);
    result.done = true;
    return result;
  }
  const size_t t = b->max_length;
  const int next = 1 - current;
  std::memcpy(b->ids[next] + first * t, b->ids[current] + first * t, produced * sizeof(int32_t));
  std::memcpy(b->log_probs[next] + first * t, b->log_probs[current] + first * t, produced * sizeof(float));
  b->ids[next][first * t + produced] = token;
  b->log_probs[next][first * t + produced] = 0.0f;
  if (row_alignments != nullptr) {
    std::memcpy(b->alignments[next] + first * t, b->alignments[current] + first * t, produced * sizeof(int32_t));
    b->alignments[next][first * t + produced] = row_alignments[0];
  }
  b->parent[first] = 0;
  for (size_t r = 0; r < rule.beam; ++r) next_tokens[r] = token;
  result.live = 1;
  return result;
}

BeamStepResult BeamStep(const BeamRule& rule, size_t sentence, const float* logits, const float* log_sum_exp,
                        size_t live, size_t produced, bool eos_allowed, bool last_step, int current, BeamBuffers* b,
                        int32_t* next_tokens, size_t scored_from, bool after_prefix,
                        const int32_t* row_alignments, const OutputColumns* columns) {
  const size_t beam = rule.beam;
  const size_t first = sentence * beam;
  const OutputColumns every_id{rule.vocab, nullptr};
  const size_t count =
      BestCandidates(rule, first, logits, log_sum_exp, live, eos_allowed, columns != nullptr ? *columns : every_id, b);
  if (rule.shrinking) return ShrinkingStep(rule, sentence, count, produced, last_step, current, b, next_tokens,
                                           scored_from, row_alignments);
  // Among the best `beam`, </s> (or anything at the length limit) finishes a
  // hypothesis; the first `beam` candidates other than </s> go on.
  BeamStepResult result;
  size_t places = beam;  // alive places left by dead beams
  for (size_t i = 0; i < count; ++i) {
    const size_t from = static_cast<size_t>(b->candidate_rows[i]);
    const int32_t token = b->candidate_tokens[i];
    const float score = b->candidate_scores[i];
    const float token_log_prob = score - b->cumulative[first + from];
    if (after_prefix && !last_step && token == rule.eos_id && i > 0 && i < beam) {
      --places;
      continue;
    }
    if (i < beam && (token == rule.eos_id || last_step)) {
      if (i == 0) b->top_finished[sentence] = 1;
      Finish(rule, sentence, from, produced, scored_from, current, token, token_log_prob, score, row_alignments, b);
    }
    if (token == rule.eos_id || result.live == places || last_step) continue;
    Continue(first, from, result.live, token, token_log_prob, produced, current, row_alignments, b);
    next_tokens[result.live] = token;
    ++result.live;
  }
  SettleAlive(rule, first, count, result.live, b, next_tokens);
  // CTranslate2's rule: with a length penalty, done once `beam` hypotheses
  // have finished; without one, once the best candidate of a step was
  // </s> and num_hypotheses have finished (no alive one can beat it then).
  const size_t total = static_cast<size_t>(b->finished_total[sentence]);
  const bool done = rule.length_penalty == 0.0f ? b->top_finished[sentence] != 0 && total >= rule.num_hypotheses
                                                : total >= beam;
  return Ended(sentence, beam, result.live, done || last_step, b);
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

void BeamBuffers::Plan(size_t batch, size_t beam, size_t max_target, ArenaLayout* layout) {
  const size_t rows = batch * beam;
  const size_t t = max_target;
  max_length = t;
  layout->Add(&cumulative, rows);
  layout->Add(&parent, rows);
  for (int i = 0; i < 2; ++i) {
    layout->Add(&ids[i], rows * t);
    layout->Add(&log_probs[i], rows * t);
    layout->Add(&alignments[i], rows * t);
  }
  layout->Add(&candidate_scores, 2 * beam);
  layout->Add(&candidate_rows, 2 * beam);
  layout->Add(&candidate_tokens, 2 * beam);
  layout->Add(&finished_ids, rows * (t + 1));
  layout->Add(&finished_log_probs, rows * (t + 1));
  layout->Add(&finished_alignments, rows * (t + 1));
  layout->Add(&finished_lengths, rows);
  layout->Add(&finished_eos, rows);
  layout->Add(&finished_scores, rows);
  layout->Add(&finished_count, batch);
  layout->Add(&finished_total, batch);
  layout->Add(&top_finished, batch);
  layout->Add(&order, rows);
  layout->Add(&live, batch);
  layout->Add(&next_tokens, rows);
  layout->Add(&history_slots, rows);
  layout->Add(&old_history_slots, beam);
  layout->Add(&slot_kept, beam);
  layout->Add(&slot_copies, beam);
  layout->Add(&choosing, rows);
  layout->Add(&normalizers, rows);
}

}  // namespace edgemt
