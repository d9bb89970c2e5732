#include "decoding/alternatives.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "decoding/log_sum_exp.h"

namespace edgemt {
namespace {

// The `n` most likely allowed ids of a row, best first (the higher logit,
// then the lower id), into ids[0..) and their log-probabilities; returns how
// many there are (fewer when fewer ids are allowed).
size_t BestIds(const float* logits, const OutputColumns& columns, const BannedIds& excluded, float normalizer, size_t n,
               int32_t* ids, float* log_probs) {
  size_t count = 0;
  for (size_t v = 0; v < columns.count; ++v) {
    const int32_t id = columns.IdAt(v);
    if (excluded.Contains(id) || std::isnan(logits[v])) continue;
    if (count == n && !(logits[v] > log_probs[n - 1])) continue;
    size_t at = count < n ? count++ : n - 1;
    for (; at > 0 && logits[v] > log_probs[at - 1]; --at) {
      log_probs[at] = log_probs[at - 1];
      ids[at] = ids[at - 1];
    }
    log_probs[at] = logits[v];
    ids[at] = id;
  }
  for (size_t k = 0; k < count; ++k) log_probs[k] -= normalizer;
  return count;
}

// Sentence s's completions: its prefix (cut at its length limit) and, when
// the limit leaves room, each alternative id from `ids`.
void SetCompletions(const DecodingJob& job, size_t s, size_t limit, const int32_t* ids, const float* log_probs,
                    size_t found, AlternativeBuffers& a) {
  const size_t n = static_cast<size_t>(job.options->num_hypotheses);
  const TokenIds prefix = job.PrefixOf(s);
  const size_t kept_prefix = prefix.size < limit ? prefix.size : limit;
  const bool expanded = prefix.size < limit && found > 0;
  const float min_prob = job.options->min_alternative_expansion_prob;
  bool keep = true;
  for (size_t k = 0; k < n; ++k) {
    const size_t j = s * n + k;
    int32_t* out = a.prefix_ids + j * job.max_target;
    if (kept_prefix > 0) std::memcpy(out, prefix.data, kept_prefix * sizeof(int32_t));
    // Alternatives past `found` repeat the best one, decoded but left out.
    const size_t pick = k < found ? k : 0;
    if (expanded) out[kept_prefix] = ids[pick];
    a.prefixes[j] = TokenIds{out, kept_prefix + (expanded ? 1 : 0)};
    a.first_log_probs[j] = expanded ? log_probs[pick] : 0.0f;
    a.expanded[j] = expanded ? 1 : 0;
    // CTranslate2 stops at the first alternative less likely than min_prob.
    if (expanded && (k >= found || std::exp(log_probs[k]) < min_prob)) keep = false;
    if (prefix.size < limit && found == 0) keep = false;  // every id is excluded
    a.kept[j] = keep ? 1 : 0;
    a.step_limits[j] = static_cast<int32_t>(limit);
  }
}

// The first pass: feeds every sentence's prefix and ranks the next ids.
Status RankAlternatives(const DecodingJob& job, StepModel& model, DecodingScratch& scratch, AlternativeBuffers& a) {
  const size_t n = static_cast<size_t>(job.options->num_hypotheses);
  const size_t vocab = static_cast<size_t>(job.config->target_vocab_size);
  // As in CTranslate2, the alternatives come from a one-step beam search
  // where </s> cannot be chosen and no id is output yet for the processors.
  BannedIds excluded = ModelBans(*job.config, /*greedy=*/false);
  excluded.Add(job.config->eos_id);
  size_t rows = 0;
  for (size_t s = 0; s < job.count; ++s) {
    const size_t limit = job.StepsFor(s);
    if (job.PrefixOf(s).size >= limit) {
      SetCompletions(job, s, limit, nullptr, nullptr, 0, a);
      continue;
    }
    scratch.row_slots[rows] = static_cast<int32_t>(s);
    scratch.row_tokens[rows] = job.config->decoder_start_id;
    ++rows;
  }
  for (size_t step = 0; rows > 0; ++step) {
    EDGEMT_RETURN_IF_ERROR(model.Step(scratch.row_tokens, scratch.row_slots, rows, /*per_source=*/1, step));
    size_t kept = 0;
    for (size_t r = 0; r < rows; ++r) {
      const size_t s = static_cast<size_t>(scratch.row_slots[r]);
      const TokenIds prefix = job.PrefixOf(s);
      if (step < prefix.size) {
        scratch.row_slots[kept] = static_cast<int32_t>(s);
        scratch.row_tokens[kept] = prefix.data[step];
        ++kept;
        continue;
      }
      float* row = model.logits() + r * vocab;
      const OutputColumns columns = model.ColumnsOf(job.SourceIndexOf(s));
      ApplyLogitsProcessors(job.processors, nullptr, 0, row, columns);
      const float lse = ListedLogSumExp(row, columns.count, model.UnlistedLogMass(r));
      const float normalizer = ExcludingIds(lse, row, columns.count, ColumnsOf(excluded, columns));
      // The vocabulary-sized scratch holds the ranking (at most vocab ids),
      // the normalizer being taken.
      int32_t* best_ids = scratch.ids;
      float* best_log_probs = scratch.probs;
      const size_t found = BestIds(row, columns, excluded, normalizer, n, best_ids, best_log_probs);
      SetCompletions(job, s, job.StepsFor(s), best_ids, best_log_probs, found, a);
    }
    rows = kept;
  }
  return Status::Ok();
}

}  // namespace

void AlternativeBuffers::Plan(size_t batch, size_t max_target, ArenaLayout* layout) {
  layout->Add(&prefix_ids, batch * max_target);
  layout->Add(&prefixes, batch);
  layout->Add(&first_log_probs, batch);
  layout->Add(&expanded, batch);
  layout->Add(&kept, batch);
  layout->Add(&step_limits, batch);
}

Status DecodeAlternatives(const DecodingJob& job, StepModel& model, DecodingScratch& scratch, GreedyBuffers& greedy,
                          BeamBuffers& beams, AlternativeBuffers& a) {
  EDGEMT_RETURN_IF_ERROR(RankAlternatives(job, model, scratch, a));
  const size_t n = static_cast<size_t>(job.options->num_hypotheses);
  DecodeOptions completion_options = *job.options;
  completion_options.num_hypotheses = 1;
  completion_options.return_alternatives = false;
  completion_options.target_prefixes = nullptr;
  DecodingJob completions = job;
  completions.options = &completion_options;
  completions.count = job.count * n;
  completions.per_source = n;
  completions.prefixes = a.prefixes;
  completions.completing = true;
  completions.step_limits = a.step_limits;
  completions.outputs = nullptr;
  const Status status = completion_options.beam_size == 1 ? DecodeGreedy(completions, model, scratch, greedy)
                                                          : DecodeBeam(completions, model, scratch, beams);
  EDGEMT_RETURN_IF_ERROR(status);
  for (size_t j = 0; j < completions.count; ++j) {
    Hypothesis& h = job.hypotheses[j];
    if (!a.kept[j]) {
      h = Hypothesis();
      h.score = -std::numeric_limits<float>::infinity();
      continue;
    }
    h.score += a.first_log_probs[j];
    // The alternative's id was fed as a prefix (log-probability 0): its own
    // goes into the translator's buffer the hypothesis points to.
    const size_t at = a.prefixes[j].size - 1;
    if (a.expanded[j] && at < h.ids.size) const_cast<float*>(h.token_log_probs)[at] = a.first_log_probs[j];
  }
  return Status::Ok();
}

}  // namespace edgemt
