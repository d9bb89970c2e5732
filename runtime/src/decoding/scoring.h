// Scoring given targets (Translator::Score), as CTranslate2's score_batch:
// the decoder is fed <s> and each target's ids (teacher forcing), and each
// step gives the log-probability of the next target id, then of </s>:
// log-softmax over the whole vocabulary, no id excluded, no processors.
#pragma once

#include "decoding/decoding_job.h"
#include "decoding/greedy.h"
#include "decoding/step_model.h"

namespace edgemt {

// Scores targets[s] for each of job.count sentences into job.hypotheses[s]:
// its ids are the target, token_log_probs has target.size + 1 entries
// (</s>'s last), ended_with_eos is true and score is their sum. Each
// target has at most job.max_target - 1 ids (the caller checks).
Status ScoreTargets(const DecodingJob& job, const TokenIds* targets, StepModel& model, DecodingScratch& scratch,
                    GreedyBuffers& buffers);

}  // namespace edgemt
