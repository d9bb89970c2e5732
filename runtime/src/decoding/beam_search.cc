#include "decoding/beam_search.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <limits>

#include "decoding/row_normalizers.h"
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

// A step that feeds the sentence's target prefix id `token` instead of
// choosing: its one hypothesis goes on with it (log-probability 0), every
// row of the sentence feeding it (RowsOf); at the length limit it finishes.
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

}  // namespace

BeamStepResult BeamStep(const BeamRule& rule, size_t sentence, const float* logits, const float* log_sum_exp,
                        size_t live, size_t produced, bool eos_allowed, bool last_step, int current, BeamBuffers* b,
                        int32_t* next_tokens, size_t scored_from, bool after_prefix,
                        const int32_t* row_alignments, const OutputColumns* columns) {
  const size_t beam = rule.beam;
  const size_t t = b->max_length;
  const size_t first = sentence * beam;
  const int next = 1 - current;
  const OutputColumns every_id{rule.vocab, nullptr};
  const size_t count =
      BestCandidates(rule, first, logits, log_sum_exp, live, eos_allowed, columns != nullptr ? *columns : every_id, b);
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
    const size_t to = first + result.live;
    b->parent[to] = static_cast<int32_t>(from);
    std::memcpy(b->ids[next] + to * t, b->ids[current] + (first + from) * t, produced * sizeof(int32_t));
    std::memcpy(b->log_probs[next] + to * t, b->log_probs[current] + (first + from) * t, produced * sizeof(float));
    b->ids[next][to * t + produced] = token;
    b->log_probs[next][to * t + produced] = token_log_prob;
    if (row_alignments != nullptr) {
      std::memcpy(b->alignments[next] + to * t, b->alignments[current] + (first + from) * t,
                  produced * sizeof(int32_t));
      b->alignments[next][to * t + produced] = row_alignments[from];
    }
    next_tokens[result.live] = token;
    ++result.live;
  }
  // The new cumulative scores, once every candidate has read the old ones.
  for (size_t i = 0, alive = 0; i < count && alive < result.live; ++i) {
    if (b->candidate_tokens[i] == rule.eos_id) continue;
    b->cumulative[first + alive++] = b->candidate_scores[i];
  }
  for (size_t r = result.live; r < beam; ++r) next_tokens[r] = rule.eos_id;  // a valid input for an idle row
  // CTranslate2's rule: with a length penalty, done once `beam` hypotheses
  // have finished; without one, once the best candidate of a step was
  // </s> and num_hypotheses have finished (no alive one can beat it then).
  const size_t total = static_cast<size_t>(b->finished_total[sentence]);
  const bool done = rule.length_penalty == 0.0f ? b->top_finished[sentence] != 0 && total >= rule.num_hypotheses
                                                : total >= beam;
  if (done || last_step) result.live = 0;
  if (result.live == 0 && b->finished_count[sentence] == 0) FinishEmpty(sentence, beam, b);
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

namespace {

BeamRule RuleOf(const DecodingJob& job) {
  BeamRule rule;
  rule.beam = static_cast<size_t>(job.options->beam_size);
  rule.vocab = static_cast<size_t>(job.config->target_vocab_size);
  rule.eos_id = job.config->eos_id;
  rule.banned = ModelBans(*job.config, /*greedy=*/false);
  rule.length_penalty = job.options->length_penalty;
  rule.num_hypotheses = static_cast<size_t>(job.options->num_hypotheses);
  return rule;
}

// The rows of a step: the alive hypotheses of the unfinished sentences,
// sentence by sentence (a sentence's rows are contiguous in the logits).
// The first step, whose one hypothesis is <s>, computes it `beam` times
// all the same: on ARM, XNNPACK's 1-row and multi-row int8 kernels round
// differently, and a sentence alone would run its first step on the
// 1-row kernel while a batch runs it on the multi-row one (later steps
// have beam >= 2 rows a sentence either way).
// The same holds while a target prefix is fed, up to the first step after
// it: the sentence has one hypothesis, computed `beam` times.
size_t RowsOf(const DecodingJob& job, const BeamBuffers& b, size_t beam, size_t s, size_t step) {
  return step <= job.PrefixOf(s).size ? beam : static_cast<size_t>(b.live[s]);
}

size_t GatherRows(const DecodingJob& job, size_t beam, size_t step, DecodingScratch& scratch, const BeamBuffers& b) {
  size_t rows = 0;
  for (size_t s = 0; s < job.count; ++s) {
    if (scratch.states[s] != SentenceState::kDecoding) continue;
    for (size_t r = 0; r < RowsOf(job, b, beam, s, step); ++r, ++rows) {
      scratch.row_slots[rows] = b.history_slots[s * beam + r];
      scratch.row_tokens[rows] = b.next_tokens[s * beam + r];
    }
  }
  return rows;
}

// The rows that choose this step (the alive hypotheses of sentences past
// their target prefix) into b.choosing; returns how many.
size_t ChoosingRows(const DecodingJob& job, size_t beam, size_t step, const DecodingScratch& scratch, BeamBuffers& b) {
  size_t count = 0;
  size_t row = 0;  // the sentence's first logits row
  for (size_t s = 0; s < job.count; ++s) {
    if (scratch.states[s] != SentenceState::kDecoding) continue;
    if (step >= job.PrefixOf(s).size) {
      for (int32_t r = 0; r < b.live[s]; ++r)
        b.choosing[count++] = ChoosingRow{static_cast<int32_t>(s), r, static_cast<int32_t>(row) + r};
    }
    row += RowsOf(job, b, beam, s, step);
  }
  return count;
}

// Chooses every unfinished sentence's hypotheses after a decoder step and
// gives those that go on their history slots (copying a slot for a second child).
void ChooseStep(const DecodingJob& job, const BeamRule& rule, size_t step, int current, StepModel& model,
                DecodingScratch& scratch, BeamBuffers& b) {
  const bool eos_allowed = step >= static_cast<size_t>(job.options->min_length);
  BannedIds excluded = rule.banned;
  if (!eos_allowed) excluded.Add(rule.eos_id);
  RowNormalizers normalizers(job, excluded, step, b.choosing, Histories{b.ids[current], rule.beam, b.max_length},
                             model, b.normalizers);
  model.ForEachRow(ChoosingRows(job, rule.beam, step, scratch, b), normalizers);

  size_t first_row = 0;  // the next unfinished sentence's first logits row
  const int32_t* alignments = job.options->return_alignments ? scratch.row_alignments : nullptr;  // its rows' too
  for (size_t s = 0; s < job.count; ++s) {
    if (scratch.states[s] != SentenceState::kDecoding) continue;
    const bool last_step = step + 1 >= job.StepsFor(s);
    const size_t first = s * rule.beam;
    const size_t from = job.ScoredFrom(s);
    const TokenIds prefix = job.PrefixOf(s);
    const float* rows = model.logits() + first_row * rule.vocab;
    const float* row_normalizers = b.normalizers + first_row;
    const int32_t* row_alignments = alignments;
    const size_t step_rows = RowsOf(job, b, rule.beam, s, step);
    first_row += step_rows;
    if (alignments != nullptr) alignments += step_rows;
    if (step < prefix.size) {
      const BeamStepResult forced = ForcedStep(rule, s, prefix.data[step], step, last_step, from, current,
                                               row_alignments, &b, b.next_tokens + first);
      b.live[s] = static_cast<int32_t>(forced.live);
      if (forced.done) scratch.states[s] = SentenceState::kStopped;
      continue;  // one hypothesis in place: no history to move
    }
    const OutputColumns columns = model.ColumnsOf(job.SourceIndexOf(s));
    const size_t live = static_cast<size_t>(b.live[s]);
    const bool after_prefix = !job.completing && prefix.size > 0 && step == prefix.size;
    const BeamStepResult result = BeamStep(rule, s, rows, row_normalizers, live, step, eos_allowed, last_step,
                                           current, &b, b.next_tokens + first, from, after_prefix, row_alignments,
                                           &columns);
    b.live[s] = static_cast<int32_t>(result.live);
    if (result.done) {
      scratch.states[s] = SentenceState::kStopped;
      continue;
    }
    const auto reorder_start = std::chrono::steady_clock::now();
    std::memcpy(b.old_history_slots, b.history_slots + first, rule.beam * sizeof(int32_t));
    const HistorySlotBuffers slots{b.old_history_slots, b.history_slots + first, b.slot_kept, b.slot_copies};
    const size_t copies = AssignHistorySlots(b.parent + first, result.live, rule.beam, slots);
    model.CopyHistorySlots(b.slot_copies, copies, step + 1);
    if (job.profile != nullptr) job.profile->cache_reorder_ms += MillisecondsSince(reorder_start);
  }
}

void WriteResults(const DecodingJob& job, size_t beam, BeamBuffers& b) {
  const size_t n = static_cast<size_t>(job.options->num_hypotheses);
  for (size_t s = 0; s < job.count; ++s) {
    RankFinished(s, beam, &b);
    const size_t finished = static_cast<size_t>(b.finished_count[s]);
    for (size_t k = 0; k < n; ++k) {
      Hypothesis h;
      h.score = -std::numeric_limits<float>::infinity();
      if (k < finished) {
        const size_t slot = static_cast<size_t>(b.order[s * beam + k]);
        h.ended_with_eos = b.finished_eos[slot] != 0;
        h.ids = TokenIds{b.finished_ids + slot * (job.max_target + 1),
                         static_cast<size_t>(b.finished_lengths[slot]) - (h.ended_with_eos ? 1 : 0)};
        h.token_log_probs = b.finished_log_probs + slot * (job.max_target + 1);
        if (job.options->return_alignments) h.alignments = b.finished_alignments + slot * (job.max_target + 1);
        h.score = b.finished_scores[slot];
      }
      if (job.hypotheses != nullptr) job.hypotheses[s * n + k] = h;
      if (job.outputs != nullptr && k == 0) job.outputs[s] = h.ids;
    }
  }
}

}  // namespace

Status DecodeBeam(const DecodingJob& job, StepModel& model, DecodingScratch& scratch, BeamBuffers& b) {
  const BeamRule rule = RuleOf(job);
  const size_t beam = rule.beam;
  for (size_t s = 0; s < job.count; ++s) {
    b.live[s] = 1;  // the first step continues <s> only
    scratch.states[s] = SentenceState::kDecoding;
    b.finished_count[s] = 0;
    b.finished_total[s] = 0;
    b.top_finished[s] = 0;
    b.cumulative[s * beam] = 0.0f;
    for (size_t r = 0; r < beam; ++r) {
      b.next_tokens[s * beam + r] = job.config->decoder_start_id;
      b.history_slots[s * beam + r] = static_cast<int32_t>(s * beam + r);
    }
  }
  int current = 0;
  // Every sentence is done within StepsFor(it) <= max_target steps.
  for (size_t step = 0, rows = GatherRows(job, beam, 0, scratch, b); rows > 0;
       ++step, rows = GatherRows(job, beam, step, scratch, b)) {
    EDGEMT_RETURN_IF_ERROR(model.Step(scratch.row_tokens, scratch.row_slots, rows, beam * job.per_source, step));
    const auto start = std::chrono::steady_clock::now();
    ChooseStep(job, rule, step, current, model, scratch, b);
    current = 1 - current;
    AddChoiceTime(job.profile, start);
  }
  WriteResults(job, beam, b);
  return Status::Ok();
}

}  // namespace edgemt
