#include "decoding/greedy.h"

#include <algorithm>

#include "decoding/beam_search.h"
#include "decoding/log_sum_exp.h"
#include "decoding/next_token.h"
#include "decoding/sampling.h"

namespace edgemt {
namespace {

// The choice of one step for each row, with the rule in force before and
// after min_length (</s> is banned until min_length ids are out).
struct GreedyRule {
  bool sampling = false;
  SamplingRule rule;
  SamplingRule before_min_length;
};

GreedyRule RuleOf(const DecodingJob& job) {
  const DecodeOptions& decode = *job.options;
  GreedyRule g;
  g.sampling = decode.sampling_topk != 1;
  g.rule.top_k = decode.sampling_topk;
  g.rule.top_p = decode.sampling_topp;
  g.rule.temperature = decode.sampling_temperature;
  g.rule.banned = ModelBans(*job.config, /*greedy=*/!g.sampling);
  g.before_min_length = g.rule;
  g.before_min_length.banned.Add(job.config->eos_id);
  return g;
}

// Chooses sentence s's next id from its row's logits, records its
// log-probability when scores are asked for, and settles the sentence's
// state. True when the sentence goes on, with *chosen its next decoder input.
// A target prefix's ids are fed instead of chosen, with log-probability 0.
// `row`: the sentence's row in the step (its alignment); `columns`: the
// ids of its logits, of which `unlisted_log_mass` leaves the rest out.
bool Advance(const DecodingJob& job, const GreedyRule& g, size_t s, size_t row, float* logits,
             const OutputColumns& columns, float unlisted_log_mass, DecodingScratch& scratch, GreedyBuffers& b,
             int32_t* chosen) {
  const DecodeOptions& decode = *job.options;
  const size_t width = columns.count;
  const int32_t produced = b.output_lengths[s];
  const TokenIds prefix = job.PrefixOf(s);
  const bool forced = static_cast<size_t>(produced) < prefix.size;
  float* log_prob = b.output_log_probs + s * (job.max_target + 1) + static_cast<size_t>(produced);
  int32_t next = 0;
  if (forced) {
    next = prefix.data[produced];
    *log_prob = 0.0f;
  } else {
    job.ApplyProcessors(s, b.output_ids + s * job.max_target, static_cast<size_t>(produced), logits, columns);
    SamplingRule rule = produced < decode.min_length ? g.before_min_length : g.rule;
    rule.banned = ColumnsOf(rule.banned, columns);
    const int32_t column = g.sampling ? SampleToken(logits, width, rule, &b.sampler_states[s], scratch.probs, scratch.ids)
                                      : NextToken(logits, width, rule.banned);
    if (job.hypotheses != nullptr) {  // only when asked: a pass over the vocabulary
      const float lse = ListedLogSumExp(logits, width, unlisted_log_mass);
      *log_prob = logits[column] - ExcludingIds(lse, logits, width, rule.banned);
    }
    next = columns.IdAt(static_cast<size_t>(column));
  }
  if (!forced && next == job.config->eos_id) {
    scratch.states[s] = SentenceState::kEndedWithEos;
    return false;
  }
  b.output_ids[s * job.max_target + static_cast<size_t>(produced)] = next;
  if (decode.return_alignments)
    b.output_alignments[s * job.max_target + static_cast<size_t>(produced)] = scratch.row_alignments[row];
  b.output_lengths[s] = produced + 1;
  if (static_cast<size_t>(produced + 1) >= job.StepsFor(s)) scratch.states[s] = SentenceState::kStopped;
  if (decode.on_token != nullptr && !decode.on_token(decode.on_token_user_data, s, next))
    scratch.states[s] = SentenceState::kStopped;  // the caller stopped it
  *chosen = next;
  return scratch.states[s] == SentenceState::kDecoding;
}

void WriteResults(const DecodingJob& job, const DecodingScratch& scratch, const GreedyBuffers& b) {
  for (size_t s = 0; s < job.count; ++s) {
    const TokenIds ids{b.output_ids + s * job.max_target, static_cast<size_t>(b.output_lengths[s])};
    if (job.outputs != nullptr) job.outputs[s] = ids;
    if (job.hypotheses == nullptr) continue;
    Hypothesis& h = job.hypotheses[s];
    h.ids = ids;
    h.ended_with_eos = scratch.states[s] == SentenceState::kEndedWithEos;
    h.token_log_probs = b.output_log_probs + s * (job.max_target + 1);
    h.alignments = job.options->return_alignments ? b.output_alignments + s * job.max_target : nullptr;
    const size_t total = ids.size + (h.ended_with_eos ? 1 : 0);
    const size_t from = std::min(job.ScoredFrom(s), total);
    const size_t length = total - from;
    float sum = 0.0f;
    for (size_t i = from; i < from + length; ++i) sum += h.token_log_probs[i];
    h.score = NormalizedScore(sum, length, job.options->length_penalty);
  }
}

}  // namespace

void GreedyBuffers::Plan(size_t batch, size_t max_target, ArenaLayout* layout) {
  layout->Add(&output_ids, batch * max_target);
  layout->Add(&output_log_probs, batch * (max_target + 1));
  layout->Add(&output_alignments, batch * max_target);
  layout->Add(&output_lengths, batch);
  layout->Add(&sampler_states, batch);
}

Status DecodeGreedy(const DecodingJob& job, StepModel& model, DecodingScratch& scratch, GreedyBuffers& b) {
  const GreedyRule rule = RuleOf(job);
  const size_t vocab = static_cast<size_t>(job.config->target_vocab_size);
  // Each step computes the unfinished sentences only: row r continues
  // sentence row_slots[r], and a sentence that finishes leaves the rows.
  size_t rows = job.count;
  for (size_t s = 0; s < job.count; ++s) {
    if (rule.sampling)
      b.sampler_states[s] = SamplingSeed(job.options->sampling_seed, job.SourceOf(s).data, job.SourceOf(s).size);
    scratch.row_slots[s] = static_cast<int32_t>(s);
    scratch.row_tokens[s] = job.config->decoder_start_id;
    b.output_lengths[s] = 0;
    scratch.states[s] = SentenceState::kDecoding;
  }
  // Every sentence finishes within StepsFor(it) <= max_target steps.
  for (size_t step = 0; rows > 0; ++step) {
    EDGEMT_RETURN_IF_ERROR(model.Step(scratch.row_tokens, scratch.row_slots, rows, job.per_source, step));
    const auto start = std::chrono::steady_clock::now();
    size_t kept = 0;
    for (size_t r = 0; r < rows; ++r) {
      const size_t s = static_cast<size_t>(scratch.row_slots[r]);
      int32_t next = 0;
      const OutputColumns columns = model.ColumnsOf(job.SourceIndexOf(s));
      if (!Advance(job, rule, s, r, model.logits() + r * vocab, columns, model.UnlistedLogMass(r), scratch, b, &next))
        continue;
      scratch.row_slots[kept] = static_cast<int32_t>(s);  // kept <= r: compacts in place
      scratch.row_tokens[kept] = next;
      ++kept;
    }
    rows = kept;
    AddChoiceTime(job.profile, start);
  }
  WriteResults(job, scratch, b);
  return Status::Ok();
}

}  // namespace edgemt
