#include "edgemt/translator.h"

#include <cpuinfo.h>
#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "arena.h"
#include "decoding/beam_search.h"
#include "decoding/log_sum_exp.h"
#include "decoding/next_token.h"
#include "decoding/sampling.h"
#include "layers/decoder.h"
#include "layers/encoder.h"
#include "ops/embedding.h"
#include "packed_cache_file.h"
#include "packed_weights.h"
#include "thread_pool.h"
#include "workspace.h"
#include "xnnpack_memory.h"

namespace edgemt {
namespace {

Status InvalidArgument(const std::string& message) { return Status(StatusCode::kInvalidArgument, message); }

// The widest beam: a step's normalizers live on the stack.
constexpr int kMaxBeam = 256;

// Fills in defaults and checks the options against the model.
Status ResolveOptions(const ModelConfig& config, TranslatorOptions* options) {
  if (options->max_source_length == 0) options->max_source_length = config.max_positions;
  if (options->max_target_length == 0) options->max_target_length = config.max_positions;
  if (options->max_batch_size < 1 || options->max_batch_size > 65536)
    return InvalidArgument("max_batch_size must be 1..65536, not " + std::to_string(options->max_batch_size));
  if (options->max_source_length < 1 || options->max_source_length > config.max_positions)
    return InvalidArgument("max_source_length must be 1.." + std::to_string(config.max_positions) +
                           " (the model's positions), not " + std::to_string(options->max_source_length));
  if (options->max_target_length < 1 || options->max_target_length > config.max_positions)
    return InvalidArgument("max_target_length must be 1.." + std::to_string(config.max_positions) +
                           " (the model's positions), not " + std::to_string(options->max_target_length));
  if (options->max_beam_size < 1 || options->max_beam_size > kMaxBeam)
    return InvalidArgument("max_beam_size must be 1.." + std::to_string(kMaxBeam) + ", not " +
                           std::to_string(options->max_beam_size));
  if (options->num_threads < 0 || options->num_threads > 256)
    return InvalidArgument("num_threads must be 0..256, not " + std::to_string(options->num_threads));
  if (options->num_threads == 0) {
    options->num_threads = cpuinfo_initialize() ? static_cast<int>(cpuinfo_get_cores_count()) : 1;
    options->num_threads = std::max(1, options->num_threads);
  }
  return Status::Ok();
}

Limits LimitsOf(const TranslatorOptions& options) {
  return Limits{static_cast<size_t>(options.max_batch_size), static_cast<size_t>(options.max_source_length),
                static_cast<size_t>(options.max_target_length), static_cast<size_t>(options.max_beam_size),
                static_cast<size_t>(options.num_threads)};
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

struct AlignedDelete {
  void operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t(ArenaLayout::kAlignment)); }
};

// What a model never lets decoding choose: its file's banned ids; in files
// without them, pad, unk and <s> for beam search and sampling, and nothing
// for greedy decoding (the seed reference decoder's rule).
BannedIds ModelBans(const ModelConfig& config, bool greedy) {
  BannedIds banned;
  if (config.states_banned_ids) {
    for (int i = 0; i < config.banned_count; ++i) banned.Add(config.banned_ids[i]);
  } else if (!greedy) {
    banned.Add(config.pad_id);
    banned.Add(config.unk_id);
    banned.Add(config.bos_id);
  }
  return banned;
}

}  // namespace

struct Translator::Impl {
  std::shared_ptr<const Model> model;
  TranslatorOptions options;
  Limits limits;
  Workspace workspace;
  ArenaLayout layout;
  std::unique_ptr<uint8_t[], AlignedDelete> owned_arena;
  Encoder encoder;
  Decoder decoder;
  LogSumExp log_sum_exp;  // log-probabilities for beams and scores
  pthreadpool_t pool = nullptr;
  TranslationProfile profile;
  Status packed_cache_status;
  bool packed_cache_loaded = false;
  // The batch the last Encode call set up.
  size_t batch_count = 0;
  size_t batch_length = 0;
  size_t next_step = 0;

  ~Impl() {
    if (pool != nullptr) pthreadpool_destroy(pool);
  }

  RunContext context() { return RunContext{pool, options.profile ? &profile : nullptr}; }

  Status CheckSources(const TokenIds* sources, size_t count) const {
    if (sources == nullptr || count == 0) return InvalidArgument("no sources to translate");
    if (count > limits.batch)
      return InvalidArgument("a batch of " + std::to_string(count) + " is more than the translator's max_batch_size " +
                             std::to_string(limits.batch));
    const int vocab = model->config().source_vocab_size;
    for (size_t s = 0; s < count; ++s) {
      if (sources[s].size == 0 || sources[s].data == nullptr)
        return InvalidArgument("source " + std::to_string(s) + " is empty (a source ends with </s>)");
      if (sources[s].size > limits.source)
        return InvalidArgument("source " + std::to_string(s) + " has " + std::to_string(sources[s].size) +
                               " ids, more than the translator's max_source_length " + std::to_string(limits.source));
      for (size_t i = 0; i < sources[s].size; ++i) {
        const int32_t id = sources[s].data[i];
        if (id < 0 || id >= vocab)
          return InvalidArgument("id " + std::to_string(id) + " at position " + std::to_string(i) + " of source " +
                                 std::to_string(s) + " is outside the source vocabulary (0.." +
                                 std::to_string(vocab - 1) + ")");
      }
    }
    return Status::Ok();
  }

  Status Encode(const TokenIds* sources, size_t count) {
    EDGEMT_RETURN_IF_ERROR(CheckSources(sources, count));
    const auto start = std::chrono::steady_clock::now();
    size_t length = 0;
    for (size_t s = 0; s < count; ++s) length = std::max(length, sources[s].size);
    batch_count = 0;  // unusable until encoding succeeds
    const RunContext run = context();
    EDGEMT_RETURN_IF_ERROR(encoder.Run(sources, count, length, workspace, run));
    EDGEMT_RETURN_IF_ERROR(decoder.PrepareCrossAttention(count, length, workspace, run));
    // Workers that just ran the encoder would spin through serial decoder steps.
    const size_t rows = count * length;
    if ((encoder.RunsInParallel(rows) || decoder.CrossAttentionRunsInParallel(rows)) &&
        !decoder.StepRunsInParallel(count))
      ParkWorkers(pool);
    batch_count = count;
    batch_length = length;
    next_step = 0;
    if (options.profile) profile.encoder_ms += MillisecondsSince(start);
    return Status::Ok();
  }

  Status DecodeStep(const int32_t* tokens) {
    if (batch_count == 0) return InvalidArgument("DecodeStep needs a successful Encode first");
    if (tokens == nullptr) return InvalidArgument("tokens must not be null");
    if (next_step >= limits.target)
      return InvalidArgument("the translator's max_target_length " + std::to_string(limits.target) + " is reached");
    const int vocab = model->config().target_vocab_size;
    for (size_t s = 0; s < batch_count; ++s) {
      if (tokens[s] < 0 || tokens[s] >= vocab)
        return InvalidArgument("target id " + std::to_string(tokens[s]) + " is outside the target vocabulary");
      workspace.row_slots[s] = static_cast<int32_t>(s);  // every sentence, in order
    }
    EDGEMT_RETURN_IF_ERROR(RunStep(tokens, workspace.row_slots, batch_count, /*per_source=*/1, next_step));
    ++next_step;
    return Status::Ok();
  }

  // One decoder step over `rows` rows (Decoder::Step), profiled.
  Status RunStep(const int32_t* tokens, const int32_t* slots, size_t rows, size_t per_source, size_t step) {
    const auto start = std::chrono::steady_clock::now();
    EDGEMT_RETURN_IF_ERROR(decoder.Step(tokens, slots, rows, per_source, step, batch_length, workspace, context()));
    if (options.profile) {
      profile.decoder_ms += MillisecondsSince(start);
      ++profile.decoder_steps;
      profile.decoder_rows += static_cast<long>(rows);
    }
    return Status::Ok();
  }

  Status CheckDecodeOptions(const DecodeOptions& decode) const {
    if (decode.max_length < 0 || static_cast<size_t>(decode.max_length) > limits.target)
      return InvalidArgument("max_length " + std::to_string(decode.max_length) +
                             " is outside the translator's max_target_length " + std::to_string(limits.target));
    if (decode.min_length < 0) return InvalidArgument("min_length must not be negative");
    if (decode.beam_size < 1 || static_cast<size_t>(decode.beam_size) > limits.beam)
      return InvalidArgument("beam_size " + std::to_string(decode.beam_size) + " is outside 1..the translator's " +
                             "max_beam_size " + std::to_string(limits.beam));
    if (decode.num_hypotheses < 1 || decode.num_hypotheses > decode.beam_size)
      return InvalidArgument("num_hypotheses " + std::to_string(decode.num_hypotheses) + " is outside 1..beam_size " +
                             std::to_string(decode.beam_size));
    if (!std::isfinite(decode.length_penalty)) return InvalidArgument("length_penalty must be a finite number");
    if (decode.sampling_topk < 0) return InvalidArgument("sampling_topk must not be negative");
    if (!(decode.sampling_topp > 0.0f && decode.sampling_topp <= 1.0f))
      return InvalidArgument("sampling_topp must be in (0, 1]");
    if (!(decode.sampling_temperature > 0.0f) || !std::isfinite(decode.sampling_temperature))
      return InvalidArgument("sampling_temperature must be a positive finite number");
    if (decode.sampling_topk != 1 && decode.beam_size != 1)
      return InvalidArgument("sampling (sampling_topk other than 1) needs beam_size 1");
    if (decode.on_token != nullptr && decode.beam_size != 1) return InvalidArgument("on_token needs beam_size 1");
    return Status::Ok();
  }

  // Decodes and fills `outputs` (the best ids) or `hypotheses` (n-best with
  // scores): the public overloads pass exactly one of them.
  Status Translate(const TokenIds* sources, size_t count, TokenIds* outputs, Hypothesis* hypotheses,
                   const DecodeOptions& decode) {
    EDGEMT_RETURN_IF_ERROR(CheckDecodeOptions(decode));
    EDGEMT_RETURN_IF_ERROR(Encode(sources, count));
    const Status status = decode.beam_size == 1 ? Greedy(sources, count, outputs, hypotheses, decode)
                                                : BeamSearch(sources, count, outputs, hypotheses, decode);
    const size_t rows = count * static_cast<size_t>(decode.beam_size);
    if (decoder.StepRunsInParallel(rows)) ParkWorkers(pool);  // else they are parked already
    return status;
  }

  // Beam size 1: the largest logit, the lowest id on ties. workspace.finished
  // is 2 for a sentence that ended with </s>, 1 at its length limit.
  Status Greedy(const TokenIds* sources, size_t count, TokenIds* outputs, Hypothesis* hypotheses,
                const DecodeOptions& decode) {
    const ModelConfig& config = model->config();
    const size_t vocab = static_cast<size_t>(config.target_vocab_size);
    const size_t scores_stride = limits.target + 1;
    const bool sampling = decode.sampling_topk != 1;
    SamplingRule rule;
    rule.top_k = decode.sampling_topk;
    rule.top_p = decode.sampling_topp;
    rule.temperature = decode.sampling_temperature;
    rule.banned = ModelBans(config, /*greedy=*/!sampling);
    SamplingRule before_min_length = rule;  // </s> is banned until min_length tokens
    before_min_length.banned.Add(config.eos_id);
    // Each step computes the unfinished sentences only: row r continues
    // sentence row_slots[r], and a sentence that finishes leaves the rows.
    size_t rows = count;
    for (size_t s = 0; s < count; ++s) {
      if (sampling) workspace.sampler_states[s] = SamplingSeed(decode.sampling_seed, sources[s].data, sources[s].size);
      workspace.row_slots[s] = static_cast<int32_t>(s);
      workspace.row_tokens[s] = config.decoder_start_id;
      workspace.output_lengths[s] = 0;
      workspace.finished[s] = 0;
    }
    // Every sentence finishes within StepsFor(its source) <= limits.target steps.
    for (size_t step = 0; rows > 0; ++step) {
      EDGEMT_RETURN_IF_ERROR(RunStep(workspace.row_tokens, workspace.row_slots, rows, /*per_source=*/1, step));
      const auto start = std::chrono::steady_clock::now();
      size_t kept = 0;
      for (size_t r = 0; r < rows; ++r) {
        const size_t s = static_cast<size_t>(workspace.row_slots[r]);
        const int32_t produced = workspace.output_lengths[s];
        const SamplingRule& row_rule = produced < decode.min_length ? before_min_length : rule;
        const float* logits = workspace.logits + r * vocab;
        const int32_t next = sampling ? SampleToken(logits, vocab, row_rule, &workspace.sampler_states[s],
                                                    workspace.sample_probs, workspace.sample_ids)
                                      : NextToken(logits, vocab, row_rule.banned);
        if (hypotheses != nullptr)  // only when asked: a pass over the vocabulary
          workspace.output_log_probs[s * scores_stride + static_cast<size_t>(produced)] =
              logits[next] - log_sum_exp.Of(logits, workspace.sample_probs);
        if (next == config.eos_id) {
          workspace.finished[s] = 2;
          continue;
        }
        workspace.output_ids[s * limits.target + static_cast<size_t>(produced)] = next;
        workspace.output_lengths[s] = produced + 1;
        if (static_cast<size_t>(produced + 1) >= StepsFor(sources[s].size, decode)) workspace.finished[s] = 1;
        if (decode.on_token != nullptr && !decode.on_token(decode.on_token_user_data, s, next))
          workspace.finished[s] = 1;  // the caller stopped it
        if (workspace.finished[s]) continue;
        workspace.row_slots[kept] = static_cast<int32_t>(s);  // kept <= r: compacts in place
        workspace.row_tokens[kept] = next;
        ++kept;
      }
      rows = kept;
      ChoiceTime(start);
    }
    for (size_t s = 0; s < count; ++s) {
      const TokenIds ids{workspace.output_ids + s * limits.target, static_cast<size_t>(workspace.output_lengths[s])};
      if (outputs != nullptr) outputs[s] = ids;
      if (hypotheses == nullptr) continue;
      Hypothesis& h = hypotheses[s];
      h.ids = ids;
      h.ended_with_eos = workspace.finished[s] == 2;
      h.token_log_probs = workspace.output_log_probs + s * scores_stride;
      const size_t length = ids.size + (h.ended_with_eos ? 1 : 0);
      float sum = 0.0f;
      for (size_t i = 0; i < length; ++i) sum += h.token_log_probs[i];
      h.score = length == 0 ? 0.0f : NormalizedScore(sum, length, decode.length_penalty);
    }
    return Status::Ok();
  }

  Status BeamSearch(const TokenIds* sources, size_t count, TokenIds* outputs, Hypothesis* hypotheses,
                    const DecodeOptions& decode) {
    const ModelConfig& config = model->config();
    const size_t beam = static_cast<size_t>(decode.beam_size);
    const size_t vocab = static_cast<size_t>(config.target_vocab_size);
    BeamBuffers& b = workspace.beams;
    BeamRule rule;
    rule.beam = beam;
    rule.vocab = vocab;
    rule.eos_id = config.eos_id;
    rule.banned = ModelBans(config, /*greedy=*/false);
    rule.length_penalty = decode.length_penalty;
    rule.num_hypotheses = static_cast<size_t>(decode.num_hypotheses);
    for (size_t s = 0; s < count; ++s) {
      workspace.live[s] = 1;  // the first step continues <s> only
      workspace.finished[s] = 0;
      b.finished_count[s] = 0;
      b.cumulative[s * beam] = 0.0f;
      for (size_t r = 0; r < beam; ++r) workspace.step_tokens[s * beam + r] = config.decoder_start_id;
    }
    // The rows of a step: the alive hypotheses of the unfinished sentences,
    // sentence by sentence (a sentence's rows are contiguous in the logits).
    // The first step, whose one hypothesis is <s>, computes it `beam` times
    // all the same: on ARM, XNNPACK's 1-row and multi-row int8 kernels round
    // differently, and a sentence alone would run its first step on the
    // 1-row kernel while a batch runs it on the multi-row one (later steps
    // have beam >= 2 rows a sentence either way).
    auto rows_of = [&](size_t s, size_t step) { return step == 0 ? beam : static_cast<size_t>(workspace.live[s]); };
    auto gather_rows = [&](size_t step) {
      size_t rows = 0;
      for (size_t s = 0; s < count; ++s) {
        if (workspace.finished[s]) continue;
        for (size_t r = 0; r < rows_of(s, step); ++r, ++rows) {
          workspace.row_slots[rows] = static_cast<int32_t>(s * beam + r);
          workspace.row_tokens[rows] = workspace.step_tokens[s * beam + r];
        }
      }
      return rows;
    };
    int current = 0;
    // Every sentence is done within StepsFor(its source) <= limits.target steps.
    for (size_t step = 0, rows = gather_rows(0); rows > 0; ++step, rows = gather_rows(step)) {
      EDGEMT_RETURN_IF_ERROR(RunStep(workspace.row_tokens, workspace.row_slots, rows, beam, step));
      const auto start = std::chrono::steady_clock::now();
      const bool eos_allowed = step >= static_cast<size_t>(decode.min_length);
      const float* logits = workspace.logits;  // the next unfinished sentence's first row
      for (size_t s = 0; s < count; ++s) {
        if (workspace.finished[s]) continue;
        const bool last_step = step + 1 >= StepsFor(sources[s].size, decode);
        const size_t live = static_cast<size_t>(workspace.live[s]);
        float normalizers[kMaxBeam];
        for (size_t r = 0; r < live; ++r) normalizers[r] = log_sum_exp.Of(logits + r * vocab, workspace.sample_probs);
        const BeamStepResult result = BeamStep(rule, s, logits, normalizers, live, step, eos_allowed, last_step,
                                               current, &b, workspace.step_tokens + s * beam);
        logits += rows_of(s, step) * vocab;
        workspace.live[s] = static_cast<int32_t>(result.live);
        if (result.done) {
          workspace.finished[s] = 1;
          continue;
        }
        const auto reorder_start = std::chrono::steady_clock::now();
        FollowParents(s, beam, result.live, step + 1);
        if (options.profile) profile.cache_reorder_ms += MillisecondsSince(reorder_start);
      }
      current = 1 - current;
      ChoiceTime(start);
    }
    const size_t n = static_cast<size_t>(decode.num_hypotheses);
    for (size_t s = 0; s < count; ++s) {
      RankFinished(s, beam, &b);
      const size_t finished = static_cast<size_t>(b.finished_count[s]);
      for (size_t k = 0; k < n; ++k) {
        Hypothesis h;
        h.score = -std::numeric_limits<float>::infinity();
        if (k < finished) {
          const size_t slot = static_cast<size_t>(b.order[s * beam + k]);
          h.ended_with_eos = b.finished_eos[slot] != 0;
          h.ids = TokenIds{b.finished_ids + slot * (limits.target + 1),
                           static_cast<size_t>(b.finished_lengths[slot]) - (h.ended_with_eos ? 1 : 0)};
          h.token_log_probs = b.finished_log_probs + slot * (limits.target + 1);
          h.score = b.finished_scores[slot];
        }
        if (hypotheses != nullptr) hypotheses[s * n + k] = h;
        if (outputs != nullptr && k == 0) outputs[s] = h.ids;
      }
    }
    return Status::Ok();
  }

  // Moves each layer's self-attention cache rows of sentence s so that new
  // hypothesis r holds its parent's first `positions` keys and values.
  void FollowParents(size_t s, size_t beam, size_t live, size_t positions) {
    const BeamBuffers& b = workspace.beams;
    bool identity = true;
    for (size_t r = 0; r < live; ++r) identity = identity && b.parent[s * beam + r] == static_cast<int32_t>(r);
    if (identity) return;
    const size_t d = static_cast<size_t>(model->config().d_model);
    const size_t row_floats = limits.target * d;  // a hypothesis's cache row
    const size_t used = positions * d;
    for (size_t l = 0; l < workspace.self_keys.size(); ++l) {
      for (float* cache : {workspace.self_keys[l], workspace.self_values[l]}) {
        float* sentence = cache + s * beam * row_floats;
        for (size_t r = 0; r < live; ++r)
          std::memcpy(workspace.cache_scratch + r * used,
                      sentence + static_cast<size_t>(b.parent[s * beam + r]) * row_floats, used * sizeof(float));
        for (size_t r = 0; r < live; ++r)
          std::memcpy(sentence + r * row_floats, workspace.cache_scratch + r * used, used * sizeof(float));
      }
    }
  }

  // Choosing tokens is part of each decoder step.
  void ChoiceTime(std::chrono::steady_clock::time_point start) {
    if (!options.profile) return;
    const double ms = MillisecondsSince(start);
    profile.other_ms += ms;
    profile.decoder_ms += ms;
  }

  // Decoder steps for a source of `source_size` ids (the reference's rule).
  size_t StepsFor(size_t source_size, const DecodeOptions& decode) const {
    if (decode.max_length > 0) return static_cast<size_t>(decode.max_length);
    return std::min(2 * source_size + 10, limits.target);
  }
};

Translator::Translator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Translator::~Translator() = default;

Status Translator::CheckOptions(const DecodeOptions& options) const { return impl_->CheckDecodeOptions(options); }

Result<size_t> Translator::ArenaBytes(const Model& model, const TranslatorOptions& options) {
  TranslatorOptions resolved = options;
  EDGEMT_RETURN_IF_ERROR(ResolveOptions(model.config(), &resolved));
  Workspace workspace;
  ArenaLayout layout;
  workspace.Plan(model.config(), model.is_int8(), LimitsOf(resolved), &layout);
  return layout.total_bytes();
}

Result<std::unique_ptr<Translator>> Translator::Create(std::shared_ptr<const Model> model,
                                                       const TranslatorOptions& options) {
  if (model == nullptr) return InvalidArgument("the model is null");
  auto impl = std::unique_ptr<Impl>(new (std::nothrow) Impl);
  if (!impl) return Status(StatusCode::kResourceExhausted, "out of memory");
  impl->model = std::move(model);
  impl->options = options;
  EDGEMT_RETURN_IF_ERROR(ResolveOptions(impl->model->config(), &impl->options));
  impl->limits = LimitsOf(impl->options);
  const ModelWeights& weights = impl->model->weights();

  // The pool starts meanwhile (planning, the arena, the packed cache).
  std::unique_ptr<PoolStarter> pool_starter;
  if (impl->options.num_threads > 1) {
    pool_starter.reset(new (std::nothrow) PoolStarter(static_cast<size_t>(impl->options.num_threads)));
    if (!pool_starter) return Status(StatusCode::kResourceExhausted, "out of memory");
  }
  const xnn_status init = xnn_initialize(XnnpackAllocator());
  if (init != xnn_status_success)
    return Status(StatusCode::kUnsupported, "XNNPACK cannot run on this CPU (status " + std::to_string(init) + ")");

  // Plan, then allocate (or adopt) the one block all activations live in.
  impl->workspace.Plan(weights.config, weights.is_int8, impl->limits, &impl->layout);
  EDGEMT_RETURN_IF_ERROR(impl->log_sum_exp.Init(static_cast<size_t>(weights.config.target_vocab_size)));
  const size_t bytes = impl->layout.total_bytes();
  uint8_t* base = static_cast<uint8_t*>(impl->options.arena);
  if (base != nullptr) {
    if (reinterpret_cast<uintptr_t>(base) % ArenaLayout::kAlignment != 0)
      return InvalidArgument("the arena must be 64-byte aligned");
    if (impl->options.arena_size < bytes)
      return Status(StatusCode::kResourceExhausted, "the arena has " + std::to_string(impl->options.arena_size) +
                                                        " bytes, these limits need " + std::to_string(bytes));
  } else {
    base = new (std::align_val_t(ArenaLayout::kAlignment), std::nothrow) uint8_t[bytes];
    if (base == nullptr)
      return Status(StatusCode::kResourceExhausted, "cannot allocate the " + std::to_string(bytes) + "-byte arena");
    impl->owned_arena.reset(base);
  }
  impl->layout.Bind(base);
  impl->options.arena = base;
  impl->options.arena_size = bytes;

  if (impl->workspace.positions != nullptr) {
    FillSinusoidalTable(weights.config.position_encoding, std::max(impl->limits.source, impl->limits.target),
                        static_cast<size_t>(weights.config.d_model), impl->workspace.positions);
  }
  std::vector<LinearOp*> linears;
  impl->encoder.Configure(weights, &linears);
  impl->decoder.Configure(weights, impl->limits.target, &linears);
  // Each layer's mapped weights go back to the OS as soon as XNNPACK holds
  // its packed copy, so that the file and the copies are never resident
  // together. Weights also read in place (the embeddings, which a tied
  // projection shares) come back page by page, only where they are used.
  const Model& mapped = *impl->model;
  PackedWeights& packed = mapped.packed_weights();
  const std::string& cache_dir = impl->options.packed_cache_dir;
  std::string cache_key, cache_path;
  if (!cache_dir.empty()) {
    std::lock_guard<std::mutex> lock(packed.file_mutex());
    cache_key = PackedCacheKey(mapped);
    cache_path = PackedCachePath(cache_dir, cache_key);
    if (packed.entry_count() == 0) {
      Status loaded = LoadPackedCache(cache_path, cache_key, &packed);
      if (loaded.ok()) packed.saved_entries = packed.entry_count();
      if (loaded.code() != StatusCode::kNotFound) impl->packed_cache_status = loaded;
    }
    impl->packed_cache_loaded = packed.has_mapping();
  }
  if (pool_starter != nullptr) {
    impl->pool = pool_starter->Take();
    if (impl->pool == nullptr) return Status(StatusCode::kResourceExhausted, "cannot create the thread pool");
  }
  // Finding a packed layer takes microseconds: the pool only pays for
  // packing (waking a worker can cost the caller a scheduler tick).
  bool all_packed = true;
  for (const LinearOp* linear : linears)
    all_packed = all_packed && packed.Contains(packed.LayerId(linear->parts(), linear->kind()));
  EDGEMT_RETURN_IF_ERROR(PackLinears(linears, &packed, all_packed ? nullptr : impl->pool, [&mapped](const LinearOp& linear) {
    for (const LinearView& part : linear.parts()) mapped.ReleasePages(part.weight.data, part.weight.bytes());
  }));
  if (!cache_dir.empty()) {
    // Written when the file lacks layers this process packed (no file, a
    // stale or corrupt one, or one from before a layer was added).
    std::lock_guard<std::mutex> lock(packed.file_mutex());
    if (packed.saved_entries != packed.entry_count()) {
      const Status written = WritePackedCache(cache_path, cache_key, packed);
      Status& reported = impl->packed_cache_status;  // why the file was not used, if it was not
      if (written.ok()) {
        packed.saved_entries = packed.entry_count();
        if (!reported.ok()) reported = Status(reported.code(), reported.message() + "; packed the weights and replaced it");
      } else {
        reported = reported.ok() ? written : Status(written.code(), reported.message() + "; " + written.message());
      }
    }
  }
  return std::unique_ptr<Translator>(new (std::nothrow) Translator(std::move(impl)));
}

Status Translator::Translate(const TokenIds* sources, size_t count, TokenIds* outputs, const DecodeOptions& options) {
  if (outputs == nullptr) return InvalidArgument("outputs must not be null");
  return impl_->Translate(sources, count, outputs, nullptr, options);
}
Status Translator::Translate(const TokenIds* sources, size_t count, Hypothesis* hypotheses,
                             const DecodeOptions& options) {
  if (hypotheses == nullptr) return InvalidArgument("hypotheses must not be null");
  return impl_->Translate(sources, count, nullptr, hypotheses, options);
}
Status Translator::Encode(const TokenIds* sources, size_t count) { return impl_->Encode(sources, count); }
Status Translator::DecodeStep(const int32_t* tokens) { return impl_->DecodeStep(tokens); }

const float* Translator::encoder_output(size_t index) const {
  if (index >= impl_->batch_count) return nullptr;
  return impl_->workspace.memory + index * impl_->batch_length * static_cast<size_t>(impl_->model->config().d_model);
}

const float* Translator::logits(size_t index) const {
  if (index >= impl_->batch_count || impl_->next_step == 0) return nullptr;
  return impl_->workspace.logits + index * static_cast<size_t>(impl_->model->config().target_vocab_size);
}

const Model& Translator::model() const { return *impl_->model; }
const TranslatorOptions& Translator::options() const { return impl_->options; }
size_t Translator::arena_bytes() const { return impl_->layout.total_bytes(); }
const TranslationProfile& Translator::profile() const { return impl_->profile; }
const Status& Translator::packed_cache_status() const { return impl_->packed_cache_status; }
bool Translator::packed_cache_loaded() const { return impl_->packed_cache_loaded; }
void Translator::ResetProfile() { impl_->profile = TranslationProfile(); }

}  // namespace edgemt
