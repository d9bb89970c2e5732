// One beam-search step on hand-made logits (decoding/beam_search.h): when a
// sentence stops (CTranslate2's rule: beam_size finished with a length
// penalty; without one, num_hypotheses finished after a step whose best
// candidate was </s>; the length limit), its candidates over a wide
// vocabulary against a sort, and the log-sum-exp normalizer
// the scores use, against a double-precision sum, with and without
// excluded ids.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "decoding/beam_search.h"
#include "decoding/log_sum_exp.h"

using namespace edgemt;

namespace {

constexpr int32_t kEos = 3;
constexpr size_t kVocab = 6;  // pad, unk, <s>, </s>, then two words: 4 and 5
constexpr size_t kSteps = 8;

// BeamBuffers over vectors, for one sentence.
struct Buffers {
  explicit Buffers(size_t beam)
      : cumulative(beam), parent(beam), ids0(beam * kSteps), ids1(beam * kSteps), lp0(beam * kSteps),
        lp1(beam * kSteps), cand_scores(2 * beam), cand_rows(2 * beam), cand_tokens(2 * beam),
        fin_ids(beam * (kSteps + 1)), fin_lps(beam * (kSteps + 1)), fin_lengths(beam), fin_eos(beam),
        fin_scores(beam), fin_count(1), fin_total(1), top_finished(1), order(beam) {
    b.max_length = kSteps;
    b.cumulative = cumulative.data();
    b.parent = parent.data();
    b.ids[0] = ids0.data();
    b.ids[1] = ids1.data();
    b.log_probs[0] = lp0.data();
    b.log_probs[1] = lp1.data();
    b.candidate_scores = cand_scores.data();
    b.candidate_rows = cand_rows.data();
    b.candidate_tokens = cand_tokens.data();
    b.finished_ids = fin_ids.data();
    b.finished_log_probs = fin_lps.data();
    b.finished_lengths = fin_lengths.data();
    b.finished_eos = fin_eos.data();
    b.finished_scores = fin_scores.data();
    b.finished_count = fin_count.data();
    b.finished_total = fin_total.data();
    b.top_finished = top_finished.data();
    b.order = order.data();
  }
  std::vector<float> cumulative;
  std::vector<int32_t> parent, ids0, ids1;
  std::vector<float> lp0, lp1, cand_scores;
  std::vector<int32_t> cand_rows, cand_tokens, fin_ids;
  std::vector<float> fin_lps;
  std::vector<int32_t> fin_lengths;
  std::vector<uint8_t> fin_eos;
  std::vector<float> fin_scores;
  std::vector<int32_t> fin_count, fin_total;
  std::vector<uint8_t> top_finished;
  std::vector<int32_t> order;
  BeamBuffers b;
};

BeamRule Rule(size_t beam, size_t num_hypotheses) {
  BeamRule rule;
  rule.beam = beam;
  rule.vocab = kVocab;
  rule.eos_id = kEos;
  rule.banned.Add(0);
  rule.banned.Add(1);
  rule.banned.Add(2);
  rule.length_penalty = 0.0f;
  rule.num_hypotheses = num_hypotheses;
  return rule;
}

// Logit rows for `live` hypotheses: row r gives (</s>, 4, 5) the logits in `words`.
std::vector<float> Rows(const std::vector<std::vector<float>>& words) {
  std::vector<float> logits;
  for (const auto& w : words) {
    const std::vector<float> row = {-50.0f, -50.0f, -50.0f, w[0], w[1], w[2]};
    logits.insert(logits.end(), row.begin(), row.end());
  }
  return logits;
}

std::vector<float> Normalizers(const std::vector<float>& logits, size_t live) {
  std::vector<float> lse(live);
  for (size_t r = 0; r < live; ++r) {
    double sum = 0.0;
    for (size_t v = 0; v < kVocab; ++v) sum += std::exp(static_cast<double>(logits[r * kVocab + v]));
    lse[r] = static_cast<float>(std::log(sum));
  }
  return lse;
}

BeamStepResult Step(const BeamRule& rule, const std::vector<std::vector<float>>& words, size_t produced, int current,
                    Buffers* buffers, std::vector<int32_t>* next, bool last_step = false) {
  const std::vector<float> logits = Rows(words);
  const std::vector<float> lse = Normalizers(logits, words.size());
  next->assign(rule.beam, -1);
  return BeamStep(rule, 0, logits.data(), lse.data(), words.size(), produced, /*eos_allowed=*/true, last_step,
                  current, &buffers->b, next->data());
}

}  // namespace

TEST_CASE("without a length penalty, a sentence stops once a step's best candidate was </s> and num_hypotheses have finished") {
  // Step 0 from <s>: </s> is the best candidate (length penalty 0: scores are sums).
  const std::vector<std::vector<float>> first = {{2.0f, 1.0f, 0.5f}};
  SUBCASE("one hypothesis asked: done at once") {
    Buffers buffers(3);
    std::vector<int32_t> next;
    const BeamStepResult result = Step(Rule(3, 1), first, 0, 0, &buffers, &next);
    CHECK(result.done);
    CHECK(buffers.fin_count[0] == 1);
    CHECK(buffers.fin_eos[0] == 1);
  }
  SUBCASE("two asked: it goes on until a second one finishes, even though beam 3 is not full") {
    Buffers buffers(3);
    std::vector<int32_t> next;
    BeamStepResult result = Step(Rule(3, 2), first, 0, 0, &buffers, &next);
    CHECK_FALSE(result.done);
    CHECK(result.live == 2);  // words 4 and 5 go on
    CHECK(next[0] == 4);
    CHECK(next[1] == 5);
    // Step 1: </s> ranks second after word 4 of the first hypothesis: it finishes, the second.
    result = Step(Rule(3, 2), {{1.5f, 2.0f, -5.0f}, {-9.0f, -5.0f, -5.0f}}, 1, 1, &buffers, &next);
    CHECK(buffers.fin_count[0] == 2);
    CHECK(result.done);
  }
}

TEST_CASE("without a length penalty, a finished hypothesis below the best candidate does not stop the sentence") {
  Buffers buffers(3);
  std::vector<int32_t> next;
  // Step 0: word 4 is best; </s> second, so it finishes, but the best candidate goes on.
  BeamStepResult result = Step(Rule(3, 1), {{1.0f, 2.0f, 0.5f}}, 0, 0, &buffers, &next);
  CHECK(buffers.fin_count[0] == 1);
  CHECK_FALSE(result.done);
  REQUIRE(result.live == 2);
  // Step 1: </s> of row 0 is the best candidate: one has finished, so done.
  result = Step(Rule(3, 1), {{3.0f, 2.0f, -5.0f}, {-9.0f, -5.0f, -5.0f}}, 1, 1, &buffers, &next);
  CHECK(buffers.fin_count[0] == 2);
  CHECK(result.done);
}

TEST_CASE("with a length penalty, a sentence goes on until beam_size have finished") {
  Buffers buffers(3);
  std::vector<int32_t> next;
  BeamRule rule = Rule(3, 1);
  rule.length_penalty = 1.0f;
  // Step 0: </s> is the best candidate and finishes; two others go on.
  BeamStepResult result = Step(rule, {{2.0f, 1.0f, 0.5f}}, 0, 0, &buffers, &next);
  CHECK(buffers.fin_count[0] == 1);
  CHECK_FALSE(result.done);
  REQUIRE(result.live == 2);
  // Step 1: </s> of both rows among the best 3: three have finished.
  result = Step(rule, {{3.0f, -2.0f, -5.0f}, {3.0f, -5.0f, -5.0f}}, 1, 1, &buffers, &next);
  CHECK(buffers.fin_count[0] == 3);
  CHECK(result.done);
}

TEST_CASE("at the length limit, each of the best beam_size candidates finishes, </s> or not") {
  Buffers buffers(2);
  std::vector<int32_t> next;
  BeamRule rule = Rule(2, 2);
  rule.length_penalty = 1.0f;
  const BeamStepResult result = Step(rule, {{0.5f, 2.0f, 1.0f}}, 0, 0, &buffers, &next, /*last_step=*/true);
  CHECK(result.done);
  CHECK(result.live == 0);
  REQUIRE(buffers.fin_count[0] == 2);
  CHECK(buffers.fin_eos[0] == 0);  // word 4, the best, without </s>
  CHECK(buffers.fin_ids[0] == 4);
  CHECK(buffers.fin_lengths[0] == 1);
  CHECK(buffers.fin_eos[1] == 0);  // word 5; </s> ranked third
  CHECK(buffers.fin_ids[kSteps + 1] == 5);
}

TEST_CASE("the step's candidates over a wide vocabulary are the best scores of all rows") {
  // Rows of 1,000 logits: the search skips, 64 at a time, the logits that
  // cannot enter the list. Against a sort of every (row, id) score.
  const size_t vocab = 1000;
  const size_t beam = 4;
  std::mt19937 random(11);
  for (int trial = 0; trial < 20; ++trial) {
    CAPTURE(trial);
    std::normal_distribution<float> normal(0.0f, trial % 2 == 0 ? 1.0f : 6.0f);
    std::vector<float> logits(beam * vocab);
    for (float& x : logits) x = normal(random);
    if (trial % 4 == 1) logits[beam * vocab - 1] = 30.0f;  // the best in the last slot of the last row
    if (trial % 4 == 3) logits[vocab + 63] = logits[vocab + 64] = 25.0f;  // a tie across a block boundary
    BeamRule rule = Rule(beam, 1);
    rule.vocab = vocab;
    Buffers buffers(beam);
    std::vector<float> lse(beam);
    for (size_t r = 0; r < beam; ++r) {
      buffers.cumulative[r] = -0.5f * static_cast<float>(r);
      lse[r] = LogSumExp(logits.data() + r * vocab, vocab);
    }
    struct Scored {
      float score;
      int32_t row, token;
    };
    std::vector<Scored> all;
    for (size_t r = 0; r < beam; ++r) {
      for (size_t v = 0; v < vocab; ++v) {
        if (rule.banned.Contains(static_cast<int32_t>(v)) || static_cast<int32_t>(v) == kEos) continue;
        all.push_back({buffers.cumulative[r] + (logits[r * vocab + v] - lse[r]), static_cast<int32_t>(r),
                       static_cast<int32_t>(v)});
      }
    }
    std::stable_sort(all.begin(), all.end(), [](const Scored& a, const Scored& b) { return a.score > b.score; });
    std::vector<int32_t> next(beam, -1);
    const BeamStepResult result = BeamStep(rule, 0, logits.data(), lse.data(), beam, 0, /*eos_allowed=*/false,
                                           /*last_step=*/false, 0, &buffers.b, next.data());
    REQUIRE(result.live == beam);
    for (size_t k = 0; k < beam; ++k) {
      CAPTURE(k);
      CHECK(next[k] == all[k].token);
      CHECK(buffers.parent[k] == all[k].row);
      CHECK(buffers.cumulative[k] == all[k].score);
    }
  }
}

TEST_CASE("the log-sum-exp normalizer matches a double-precision sum") {
  std::mt19937 random(7);
  for (size_t vocab : {1u, 7u, 33u, 8000u, 32001u}) {
    for (float spread : {0.1f, 5.0f, 40.0f}) {
      std::normal_distribution<float> normal(3.0f, spread);
      std::vector<float> logits(vocab);
      for (float& x : logits) x = normal(random);
      double top = -std::numeric_limits<double>::infinity();
      for (float x : logits) top = std::max(top, static_cast<double>(x));
      double sum = 0.0;
      for (float x : logits) sum += std::exp(static_cast<double>(x) - top);
      const double expected = top + std::log(sum);
      // The exps are summed in 16 float lanes: the worst-case relative error
      // of that sum is (vocab / 16 + 4) u, u = 2^-24, and the exp
      // approximation adds at most 4 u per term (so 4 u of the sum); the
      // log and max + log add a few u of log(sum) and of the result. A
      // relative error e of the sum moves its log by at most e (1 + e).
      const double u = std::ldexp(1.0, -24);
      const double sum_error = (static_cast<double>(vocab) / 16.0 + 4.0 + 4.0) * u;
      const double tolerance = sum_error * (1.0 + sum_error) + 4 * u * (std::log(sum) + std::fabs(expected));
      CHECK(std::fabs(LogSumExp(logits.data(), logits.size()) - expected) <= tolerance);
    }
  }
}

TEST_CASE("the log-sum-exp of NaNs, infinities and nothing") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> row(40, -inf);
  CHECK(LogSumExp(row.data(), 0) == -inf);
  CHECK(LogSumExp(row.data(), row.size()) == -inf);
  row[17] = 2.0f;
  row[30] = nan;  // counts as probability 0
  CHECK(LogSumExp(row.data(), row.size()) == doctest::Approx(2.0));
  row[3] = 2.0f;
  CHECK(LogSumExp(row.data(), row.size()) == doctest::Approx(2.0 + std::log(2.0)));
  row[5] = inf;
  CHECK(LogSumExp(row.data(), row.size()) == inf);
}

TEST_CASE("the normalizer without excluded ids is the log-sum-exp of the allowed logits") {
  const size_t vocab = 50;
  // The excluded ids hold a little, half, or nearly all of the probability (the double-precision path).
  for (float excluded_logit : {-3.0f, 4.0f, 40.0f}) {
    CAPTURE(excluded_logit);
    std::vector<float> logits(vocab);
    for (size_t v = 0; v < vocab; ++v) logits[v] = 0.1f * static_cast<float>(v % 7);
    BannedIds excluded;
    for (int32_t id : {3, 11, 3}) {  // an id listed twice counts once
      excluded.Add(id);
      logits[static_cast<size_t>(id)] = excluded_logit;
    }
    double sum = 0.0;
    for (size_t v = 0; v < vocab; ++v) {
      if (v != 3 && v != 11) sum += std::exp(static_cast<double>(logits[v]));
    }
    const float all = LogSumExp(logits.data(), logits.size());
    const float allowed = ExcludingIds(all, logits.data(), vocab, excluded);
    CHECK(std::fabs(allowed - std::log(sum)) <= 1e-5);
    CHECK(ExcludingIds(all, logits.data(), vocab, BannedIds()) == all);
  }
}

namespace {

// Marian's search (BeamRule::shrinking), length penalty 1 as its normalize 1.
BeamRule ShrinkingRule(size_t beam) {
  BeamRule rule = Rule(beam, 1);
  rule.length_penalty = 1.0f;
  rule.shrinking = true;
  return rule;
}

}  // namespace

TEST_CASE("Marian's shrinking beam: a finished hypothesis leaves it, each step keeps as many as are alive") {
  Buffers buffers(3);
  std::vector<int32_t> next;
  const BeamRule rule = ShrinkingRule(3);
  // Step 0 from the start: the best 3 (the beam) are </s>, 4 and 5: </s> finishes, two go on.
  BeamStepResult result = Step(rule, {{2.0f, 1.0f, 0.5f}}, 0, 0, &buffers, &next);
  CHECK(buffers.fin_total[0] == 1);
  CHECK_FALSE(result.done);
  REQUIRE(result.live == 2);
  CHECK(next[0] == 4);
  CHECK(next[1] == 5);
  // Step 1: two alive, so the best 2 of their 6 continuations: both of row 0's words (4 4, 4 5);
  // row 1's 4 and </s>, third and fourth, are not taken (the default rule would take 3, beam's).
  result = Step(rule, {{-9.0f, 3.0f, 2.9f}, {0.0f, 1.0f, -9.0f}}, 1, 1, &buffers, &next);
  CHECK(buffers.fin_total[0] == 1);
  REQUIRE(result.live == 2);
  CHECK(buffers.parent[0] == 0);
  CHECK(buffers.parent[1] == 0);
  // Step 2: row 1's </s> is among the best 2: it finishes; one goes on, the beam is 1 now.
  result = Step(rule, {{-9.0f, 1.0f, -9.0f}, {3.0f, -9.0f, -9.0f}}, 2, 0, &buffers, &next);
  CHECK(buffers.fin_total[0] == 2);
  REQUIRE(result.live == 1);
  CHECK_FALSE(result.done);
  // Step 3: the last one ends: the beam is empty and the sentence done, with three finished
  // (one per place the first step opened), ranked by sum / length.
  result = Step(rule, {{4.0f, -9.0f, -9.0f}}, 3, 1, &buffers, &next);
  CHECK(result.done);
  CHECK(buffers.fin_count[0] == 3);
  RankFinished(0, 3, &buffers.b);
  for (int k = 0; k + 1 < 3; ++k)
    CHECK(buffers.fin_scores[buffers.order[k]] >= buffers.fin_scores[buffers.order[k + 1]]);
}

TEST_CASE("Marian's shrinking beam finishes every alive hypothesis at the length limit") {
  Buffers buffers(2);
  std::vector<int32_t> next;
  const BeamRule rule = ShrinkingRule(2);
  BeamStepResult result = Step(rule, {{-9.0f, 1.0f, 0.5f}}, 0, 0, &buffers, &next);
  REQUIRE(result.live == 2);
  result = Step(rule, {{-9.0f, 1.0f, 0.5f}, {-9.0f, 0.2f, 0.1f}}, 1, 1, &buffers, &next, /*last_step=*/true);
  CHECK(result.done);
  CHECK(buffers.fin_count[0] == 2);
  CHECK(buffers.fin_eos[0] == 0);
  CHECK(buffers.fin_eos[1] == 0);
}
