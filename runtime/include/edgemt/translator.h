// Translation of token ids (greedy or beam search) with a fixed memory footprint: all
// activation memory is planned and allocated (or taken from the caller)
// when the translator is created, and translating allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "edgemt/decode_options.h"
#include "edgemt/model.h"
#include "edgemt/status.h"
#include "edgemt/translator_options.h"
#include "edgemt/types.h"

namespace edgemt {

// One translator serves one thread at a time. For several threads, create
// one translator per thread from the same Model: they share the Model's
// packed weights (packed by the first), and each adds only its arena.
class Translator {
 public:
  // Creates the XNNPACK operators (packing the weights once) and plans memory.
  static Result<std::unique_ptr<Translator>> Create(std::shared_ptr<const Model> model,
                                                    const TranslatorOptions& options = {});
  // The arena size Create needs for these options (for a caller's block).
  static Result<size_t> ArenaBytes(const Model& model, const TranslatorOptions& options);

  ~Translator();
  Translator(const Translator&) = delete;
  Translator& operator=(const Translator&) = delete;

  // Translates `count` sources (source ids end with </s>). outputs[i] gets
  // the output ids without <s> and </s>; they point into the translator's
  // memory and stay valid until the next call. A batch gives exactly the
  // outputs of translating its sentences one by one; each decoder step
  // computes only the sentences (and beams) not yet finished, so a batch
  // costs what its sentences' own steps cost, not its longest one's times
  // the batch size. Sources of similar lengths batch best (less padding):
  // TextTranslator sorts them.
  // With beam_size > 1: the best hypothesis of each sentence.
  Status Translate(const TokenIds* sources, size_t count, TokenIds* outputs, const DecodeOptions& options = {});
  // n-best with scores: hypotheses[i * num_hypotheses + k] is sentence i's
  // k-th best. Greedy decoding gives one hypothesis with its scores.
  Status Translate(const TokenIds* sources, size_t count, Hypothesis* hypotheses, const DecodeOptions& options);

  // The log-probability of each id of targets[i] (target ids without <s>
  // and </s>) and then of </s>, given sources[i], as CTranslate2's
  // score_batch: results[i].ids is targets[i], token_log_probs has
  // targets[i].size + 1 entries (log-softmax over the whole vocabulary),
  // score is their sum and ended_with_eos is true.
  Status Score(const TokenIds* sources, const TokenIds* targets, size_t count, Hypothesis* results);

  // Ok when Translate accepts these options with this translator's limits;
  // else the status Translate would return for them.
  Status CheckOptions(const DecodeOptions& options) const;

  // Lower level, for tests and benchmarks: encode a batch, then run decoder
  // steps feeding one token per sentence; logits(i) is sentence i's last step.
  Status Encode(const TokenIds* sources, size_t count);
  Status DecodeStep(const int32_t* tokens);
  const float* encoder_output(size_t index) const;  // [source length, d_model]
  const float* logits(size_t index) const;          // [target_vocab_size]

  const Model& model() const;
  const TranslatorOptions& options() const;  // with the defaults resolved
  size_t arena_bytes() const;
  const TranslationProfile& profile() const;
  // With a packed_cache_dir: Ok when the packed weights came from the cache
  // file or were written to it; otherwise why the file was not used or not
  // written (the translator packed the weights and works all the same).
  const Status& packed_cache_status() const;
  // Whether the packed weights came from a cache file (mapped, not packed).
  bool packed_cache_loaded() const;
  void ResetProfile();

 private:
  struct Impl;
  explicit Translator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace edgemt
