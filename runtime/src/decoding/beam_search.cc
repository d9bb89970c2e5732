#include "decoding/beam_search.h"

#include <cstring>
#include <limits>

#include "decoding/row_normalizers.h"

namespace edgemt {

namespace {

BeamRule RuleOf(const DecodingJob& job) {
  BeamRule rule;
  rule.beam = static_cast<size_t>(job.options->beam_size);
  rule.vocab = static_cast<size_t>(job.config->target_vocab_size);
  rule.eos_id = job.config->eos_id;
  rule.banned = ModelBans(*job.config, /*greedy=*/false);
  rule.length_penalty = job.options->length_penalty;
  rule.num_hypotheses = static_cast<size_t>(job.options->num_hypotheses);
  rule.shrinking = job.config->shrinking_beam;
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
