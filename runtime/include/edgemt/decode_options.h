// How one call decodes (greedy, beam search, sampling, streaming) and what
// it returns per hypothesis: plain values, below the translator, so that
// the decoding loops inside the runtime need not include translator.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgemt/types.h"

namespace edgemt {

// A new field that changes outputs must join the translation cache's key
// (TranslationCache::KeyOf in runtime/src/text/translation_cache.cc).
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
  // A model whose file asks for Marian's search (ModelConfig::shrinking_beam)
  // gets it instead: each step ranks the continuations of every alive
  // hypothesis as above and takes the first n, n the number alive (beam_size
  // at the first step); those that end with </s> (all of them at the length
  // limit) finish and leave the beam, which shrinks, the others go on; a
  // sentence stops when none is alive. A target prefix's first step after it
  // has no dead beams then.
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
  // CTranslate2's decoding options, with its meaning.
  // Target prefixes: null, or one per source (size 0: none). Sentence i's
  // first target_prefixes[i].size output ids are these ids (without <s>
  // and </s>; a </s> among them does not end it): each step feeds the next
  // one instead of choosing, with log-probability 0 (the hypothesis's score
  // counts them in its length, not in its sum); then decoding goes on as
  // usual, from them. max_length and min_length count them (a longer
  // prefix is cut at the length limit). With beam
  // search, at the first step after a prefix only the best candidate may
  // be </s> (CTranslate2's rule: the others become dead beams).
  const TokenIds* target_prefixes = nullptr;
  // Alternatives at the first position after the prefix (or the first
  // position without one): the num_hypotheses (may exceed beam_size) most
  // likely ids there (</s> excluded), best first, each completed by the
  // usual search (beam_size, sampling) as a sentence of its own. Sentence i's
  // hypotheses are those completions in the order of their first id; a
  // completion's score is that id's log-probability plus the completion's
  // own score (normalized over the ids after it only), as CTranslate2's;
  // an alternative less likely than min_alternative_expansion_prob and
  // every one after it are left out (empty ids, score -infinity). The
  // sentences are decoded as a batch of count x num_hypotheses, which must
  // fit the translator's max_batch_size.
  bool return_alternatives = false;
  float min_alternative_expansion_prob = 0.0f;
  // Raw logits of ids already output (the prefix included) are divided by
  // this penalty when positive and multiplied by it when negative, before
  // each choice (CTRL's repetition penalty); 1: off. Must be positive.
  float repetition_penalty = 1.0f;
  // An id that would complete an n-gram already output (n =
  // no_repeat_ngram_size, the prefix included) is not chosen; 0: off.
  int no_repeat_ngram_size = 0;
  // <unk> is never chosen.
  bool disable_unk = false;
  // Each hypothesis's alignments (Hypothesis::alignments): for every output
  // id, the source position (0-based over the source ids, </s> and any <s>
  // included) that the cross-attention of decoder layer alignment_layer,
  // averaged over its heads, weighs most when the id is chosen; the
  // source's </s> and <s> are left out unless nothing else is there. A
  // negative layer counts from the last. The default, the last layer (as
  // CTranslate2's), linked known word translations best on the trained
  // model measured (docs/alignments.md). Not with return_alternatives.
  bool return_alignments = false;
  int alignment_layer = -1;
  // With a model file that has a vocabulary shortlist (docs/shortlist.md),
  // each sentence chooses only among its shortlist: the candidates of its
  // source ids, the model's frequent ids and </s>. The output layer and the
  // choice cover those ids alone; the log-softmax's normalizer adds an
  // estimate of the probability of the other ids when the file has its
  // output sums (format 2.7), so that scores stay near the whole
  // vocabulary's, else it covers the shortlist alone. A sentence's
  // shortlist depends on its source only: outputs do not depend on the
  // batch. false: the whole vocabulary. Without a shortlist in the file it
  // changes nothing.
  bool use_shortlist = true;
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
  // Per output id, its log-probability, and then </s>'s when it ended with </s>
  // (a target prefix's ids have 0; Translator::Score's targets, their own).
  const float* token_log_probs = nullptr;
  // With DecodeOptions::return_alignments, per output id its aligned source
  // position; else null.
  const int32_t* alignments = nullptr;
  bool ended_with_eos = false;            // else it stopped at the length limit
};

}  // namespace edgemt
