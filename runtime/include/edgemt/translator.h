// Translation of token ids (greedy or beam search) with a fixed memory footprint: all
// activation memory is planned and allocated (or taken from the caller)
// when the translator is created, and translating allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "edgemt/model.h"
#include "edgemt/status.h"
#include "edgemt/types.h"

namespace edgemt {

struct TranslatorOptions {
  // Limits the memory plan is made for; requests over them are refused.
  int max_batch_size = 1;
  int max_source_length = 0;  // ids, </s> included; 0: the model's max_positions
  int max_target_length = 0;  // output ids; 0: the model's max_positions
  // The largest DecodeOptions::beam_size allowed: the memory plan holds
  // max_batch_size x max_beam_size hypotheses.
  int max_beam_size = 1;
  // Threads for the large matrix products (and for packing the weights in
  // Create); 0: the number of cores cpuinfo reports. Products under 1M
  // multiply-adds stay on the calling thread, and the other threads sleep
  // while it works alone. On a device whose other cores are busy, 1 avoids
  // waiting for a descheduled worker. The result is the same for any count.
  int num_threads = 0;
  // Optional caller-owned block of at least Translator::ArenaBytes() bytes,
  // 64-byte aligned, that must outlive the translator. Null: the translator
  // allocates it once.
  void* arena = nullptr;
  size_t arena_size = 0;
  // Accumulate a TranslationProfile (costs a clock read per operation).
  bool profile = false;
  // A directory for packed-weights cache files (docs/packed-cache.md). The
  // first translator of a model file writes one there; later loads, in any
  // process, map it read-only instead of packing the weights. A missing,
  // stale or unusable file never fails Create: see packed_cache_status().
  // Empty: no file (translators of one Model still share one packed copy).
  std::string packed_cache_dir;
};

struct DecodeOptions {
  // Stop after this many output ids; 0: min(2 * source length + 10,
  // max_target_length) for each sentence, as the reference decoder does.
  int max_length = 0;
  // </s> is not chosen before this many ids are out (fixed-length benchmarks).
  int min_length = 0;
  // 1: greedy (the largest logit, the lowest id on ties). 2..max_beam_size:
  // beam search, as follows. Each step scores every continuation of every
  // alive hypothesis by its summed log-probability (log-softmax of the float
  // logits; pad, unk and <s> are never chosen, </s> not before min_length)
  // and ranks them (higher score first, then the lower beam, then the lower
  // id). Walking the best 2 x beam_size in that order, a </s> among the
  // first beam_size finishes its hypothesis, and the first beam_size others
  // are the next step's hypotheses. A sentence stops when beam_size
  // hypotheses have finished; or when num_hypotheses have finished and the
  // best of them scores at least what every alive hypothesis would score if
  // </s> came next at no cost (its sum / (its length + 1)^length_penalty:
  // with length_penalty 0 nothing alive could beat the best any more); or
  // at its length limit (max_length, or the default above), where the
  // alive ones finish as they are. Finished hypotheses are ranked by
  // sum / length^length_penalty, the length counting </s> when the
  // hypothesis ended with it (ties: the one that finished first).
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
  // model's log-probabilities (no temperature).
  int sampling_topk = 1;
  float sampling_topp = 1.0f;
  float sampling_temperature = 1.0f;
  uint64_t sampling_seed = 0;
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
  // Per output id, its log-probability, and then </s>'s when it ended with </s>.
  const float* token_log_probs = nullptr;
  bool ended_with_eos = false;            // else it stopped at the length limit
};

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
