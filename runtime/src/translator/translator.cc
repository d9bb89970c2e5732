// The translator's lifecycle: memory planned and allocated once, the
// layers configured and their weights packed (model/model_packing.h), a thread
// pool, and each call handed to its decoding loop (decoding/greedy.h,
// decoding/beam_search.h) through the StepModel interface.
#include "edgemt/translator.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "memory/arena.h"
#include "decoding/alternatives.h"
#include "decoding/beam_search.h"
#include "decoding/decoding_job.h"
#include "decoding/greedy.h"
#include "decoding/scoring.h"
#include "shortlist/shortlist.h"
#include "layers/decoder.h"
#include "layers/encoder.h"
#include "model/model_state.h"
#include "ops/embedding.h"
#include "translator/request_checks.h"
#include "base/thread_pool.h"
#include "workspace/workspace.h"
#include "memory/xnnpack_memory.h"

namespace edgemt {
namespace {

Status InvalidArgument(const std::string& message) { return Status(StatusCode::kInvalidArgument, message); }

struct AlignedDelete {
  void operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t(ArenaLayout::kAlignment)); }
};

}  // namespace

struct Translator::Impl final : StepModel {
  std::shared_ptr<const Model> model;
  TranslatorOptions options;
  Limits limits;
  Workspace workspace;
  ArenaLayout layout;
  std::unique_ptr<uint8_t[], AlignedDelete> owned_arena;
  Encoder encoder;
  Decoder decoder;
  pthreadpool_t pool = nullptr;
  TranslationProfile profile;
  ModelPacking::Outcome packing;
  // The batch the last Encode call set up.
  size_t batch_count = 0;
  size_t batch_length = 0;
  size_t next_step = 0;
  // The call's alignments (DecodeOptions::return_alignments), or null.
  const AlignmentRequest* alignment = nullptr;
  AlignmentRequest alignment_request;
  // The call's shortlists, one per source (DecodeOptions::use_shortlist), or null.
  const OutputColumns* shortlists = nullptr;
  // Whether the last Step ran on the pool (its workers still spin).
  bool step_was_parallel = false;

  ~Impl() {
    if (pool != nullptr) pthreadpool_destroy(pool);
  }

  TranslationProfile* profiling() { return options.profile ? &profile : nullptr; }
  RunContext context() { return RunContext{pool, profiling()}; }

  // The one block all activations live in: the caller's, or allocated here.
  Status BindArena() {
    const size_t bytes = layout.total_bytes();
    uint8_t* base = static_cast<uint8_t*>(options.arena);
    if (base != nullptr) {
      if (reinterpret_cast<uintptr_t>(base) % ArenaLayout::kAlignment != 0)
        return InvalidArgument("the arena must be 64-byte aligned");
      if (options.arena_size < bytes)
        return Status(StatusCode::kResourceExhausted, "the arena has " + std::to_string(options.arena_size) +
                                                          " bytes, these limits need " + std::to_string(bytes));
    } else {
      base = new (std::align_val_t(ArenaLayout::kAlignment), std::nothrow) uint8_t[bytes];
      if (base == nullptr)
        return Status(StatusCode::kResourceExhausted, "cannot allocate the " + std::to_string(bytes) + "-byte arena");
      owned_arena.reset(base);
    }
    layout.Bind(base);
    workspace.Plan(model->config(), StateOf(*model).weights.is_int8, limits, &layout);
    options.arena = base;
    options.arena_size = bytes;
    return Status::Ok();
  }

  Status Encode(const TokenIds* sources, size_t count) {
    EDGEMT_RETURN_IF_ERROR(CheckSources(sources, count, limits, model->config().source_vocab_size));
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
      workspace.decoding.row_slots[s] = static_cast<int32_t>(s);  // every sentence, in order
    }
    EDGEMT_RETURN_IF_ERROR(Step(tokens, workspace.decoding.row_slots, batch_count, /*per_source=*/1, next_step));
    ++next_step;
    return Status::Ok();
  }

  // StepModel: one decoder step over `rows` rows (Decoder::Step), profiled.
  Status Step(const int32_t* tokens, const int32_t* slots, size_t rows, size_t per_source, size_t step) override {
    const auto start = std::chrono::steady_clock::now();
    EDGEMT_RETURN_IF_ERROR(
        decoder.Step(tokens, slots, rows, per_source, step, batch_length, workspace, context(), alignment,
                     shortlists != nullptr ? workspace.source_lists : nullptr));
    step_was_parallel = decoder.StepRunsInParallel(rows);
    if (options.profile) {
      profile.decoder_ms += MillisecondsSince(start);
      ++profile.decoder_steps;
      profile.decoder_rows += static_cast<long>(rows);
    }
    return Status::Ok();
  }
  float* logits() override { return workspace.logits; }
  float UnlistedLogMass(size_t row) const override {
    return shortlists != nullptr ? workspace.unlisted_log_mass[row] : -std::numeric_limits<float>::infinity();
  }
  OutputColumns ColumnsOf(size_t source) const override {
    if (shortlists != nullptr) return shortlists[source];
    return OutputColumns{static_cast<size_t>(model->config().target_vocab_size), nullptr};
  }

  // Each source's shortlist into workspace.source_columns, and its weight
  // rows into workspace.source_lists, gathered while the arena's room lasts.
  void BuildShortlists(const TokenIds* sources, size_t count) {
    const ShortlistView& shortlist = StateOf(*model).weights.shortlist;
    size_t gathered = 0;
    for (size_t s = 0; s < count; ++s) {
      int32_t* ids = workspace.shortlist_ids + s * limits.shortlist;
      const size_t found = SourceShortlist(shortlist, sources[s], model->config().eos_id,
                                          static_cast<size_t>(model->config().target_vocab_size),
                                          workspace.shortlist_seen, ids);
      workspace.source_columns[s] = OutputColumns{found, ids};
      size_t used = 0;
      workspace.source_lists[s] =
          decoder.GatherShortlist(workspace.source_columns[s], workspace.gathered_rows + gathered,
                                  limits.gathered_shortlist - gathered, &used);
      gathered += used;
    }
  }
  void CopyHistorySlots(const HistoryCopy* copies, size_t count, size_t positions) override {
    for (size_t i = 0; i < count; ++i)
      decoder.CopyHistory(static_cast<size_t>(copies[i].from), static_cast<size_t>(copies[i].to), positions, workspace);
  }
  void ForEachRow(size_t count, RowTask& task) override {
    auto run = [&task](size_t, size_t i) { task.Run(i); };
    ParallelFor(pool, step_was_parallel, count, run);
  }

  DecodingJob JobFor(const TokenIds* sources, size_t count, const DecodeOptions& decode) {
    DecodingJob job;
    job.config = &model->config();
    job.options = &decode;
    job.sources = sources;
    job.count = count;
    job.prefixes = decode.target_prefixes;
    job.processors = LogitsProcessors::Of(decode, model->config().unk_id);
    job.max_target = limits.target;
    job.profile = profiling();
    return job;
  }

  // The public overloads pass exactly one of `outputs` and `hypotheses`.
  Status Translate(const TokenIds* sources, size_t count, TokenIds* outputs, Hypothesis* hypotheses,
                   const DecodeOptions& decode) {
    EDGEMT_RETURN_IF_ERROR(CheckDecodeOptions(decode, limits, model->config().decoder_layers));
    if (decode.return_alternatives && hypotheses == nullptr)
      return InvalidArgument("return_alternatives needs the Translate overload that returns hypotheses");
    EDGEMT_RETURN_IF_ERROR(CheckRequest(decode, count, limits, model->config().target_vocab_size));
    EDGEMT_RETURN_IF_ERROR(Encode(sources, count));
    DecodingJob job = JobFor(sources, count, decode);
    job.outputs = outputs;
    job.hypotheses = hypotheses;
    alignment_request.layer = AlignmentLayerOf(decode, model->config().decoder_layers);
    alignment_request.positions = workspace.decoding.row_alignments;
    alignment = decode.return_alignments && hypotheses != nullptr ? &alignment_request : nullptr;
    shortlists = nullptr;
    if (decode.use_shortlist && limits.shortlist > 0) {
      BuildShortlists(sources, count);
      shortlists = workspace.source_columns;
    }
    Status status;
    if (decode.return_alternatives) {
      status = DecodeAlternatives(job, *this, workspace.decoding, workspace.greedy, workspace.beams,
                                  workspace.alternatives);
    } else if (decode.beam_size == 1) {
      status = DecodeGreedy(job, *this, workspace.decoding, workspace.greedy);
    } else {
      status = DecodeBeam(job, *this, workspace.decoding, workspace.beams);
    }
    alignment = nullptr;
    shortlists = nullptr;
    ParkAfterDecoding(count * static_cast<size_t>(decode.beam_size) *
                      (decode.return_alternatives ? static_cast<size_t>(decode.num_hypotheses) : 1));
    return status;
  }

  Status Score(const TokenIds* sources, const TokenIds* targets, size_t count, Hypothesis* results) {
    EDGEMT_RETURN_IF_ERROR(CheckTargets(targets, count, limits, model->config().target_vocab_size));
    EDGEMT_RETURN_IF_ERROR(Encode(sources, count));
    const DecodeOptions decode;
    DecodingJob job = JobFor(sources, count, decode);
    job.hypotheses = results;
    const Status status = ScoreTargets(job, targets, *this, workspace.decoding, workspace.greedy);
    ParkAfterDecoding(count);
    return status;
  }

  void ParkAfterDecoding(size_t rows) {
    if (decoder.StepRunsInParallel(rows)) ParkWorkers(pool);  // else they are parked already
  }
};

Translator::Translator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Translator::~Translator() = default;

Status Translator::CheckOptions(const DecodeOptions& options) const {
  return CheckDecodeOptions(options, impl_->limits, impl_->model->config().decoder_layers);
}

Result<size_t> Translator::ArenaBytes(const Model& model, const TranslatorOptions& options) {
  TranslatorOptions resolved = options;
  EDGEMT_RETURN_IF_ERROR(ResolveTranslatorOptions(model.config(), &resolved));
  Workspace workspace;
  ArenaLayout layout;
  workspace.Plan(model.config(), model.is_int8(), LimitsOf(resolved, StateOf(model).weights), &layout);
  return layout.total_bytes();
}

Result<std::unique_ptr<Translator>> Translator::Create(std::shared_ptr<const Model> model,
                                                       const TranslatorOptions& options) {
  if (model == nullptr) return InvalidArgument("the model is null");
  auto impl = std::unique_ptr<Impl>(new (std::nothrow) Impl);
  if (!impl) return Status(StatusCode::kResourceExhausted, "out of memory");
  impl->model = std::move(model);
  impl->options = options;
  EDGEMT_RETURN_IF_ERROR(ResolveTranslatorOptions(impl->model->config(), &impl->options));
  const ModelState& state = StateOf(*impl->model);
  impl->limits = LimitsOf(impl->options, state.weights);
  const ModelConfig& config = state.weights.config;

  // The pool starts meanwhile (planning, the arena, the packed cache).
  std::unique_ptr<PoolStarter> pool_starter;
  if (impl->options.num_threads > 1) {
    pool_starter.reset(new (std::nothrow) PoolStarter(static_cast<size_t>(impl->options.num_threads)));
    if (!pool_starter) return Status(StatusCode::kResourceExhausted, "out of memory");
  }
  const xnn_status init = xnn_initialize(XnnpackAllocator());
  if (init != xnn_status_success)
    return Status(StatusCode::kUnsupported, "XNNPACK cannot run on this CPU (status " + std::to_string(init) + ")");

  impl->workspace.Plan(config, state.weights.is_int8, impl->limits, &impl->layout);
  EDGEMT_RETURN_IF_ERROR(impl->BindArena());
  if (impl->workspace.shortlist_seen != nullptr)
    std::fill_n(impl->workspace.shortlist_seen, static_cast<size_t>(config.target_vocab_size), uint8_t{0});
  if (impl->workspace.positions != nullptr) {
    FillSinusoidalTable(config.position_encoding, std::max(impl->limits.source, impl->limits.target),
                        static_cast<size_t>(config.d_model), impl->workspace.positions);
  }
  // The layers' operators and the output projection.
  LinearOpList linears;
  if (!linears.Allocate(Encoder::kLinearsPerLayer * state.weights.encoder_layers.size() +
                        Decoder::kLinearsPerLayer * state.weights.decoder_layers.size() + 1))
    return Status(StatusCode::kResourceExhausted, "out of memory");
  EDGEMT_RETURN_IF_ERROR(impl->encoder.Configure(state.weights, &linears));
  EDGEMT_RETURN_IF_ERROR(impl->decoder.Configure(state.weights, impl->limits.target, &linears));
  if (impl->limits.shortlist > 0) EDGEMT_RETURN_IF_ERROR(impl->decoder.PrepareShortlist());
  Impl* self = impl.get();
  EDGEMT_RETURN_IF_ERROR(state.packing->Pack(linears, impl->options.packed_cache_dir, [&](pthreadpool_t* pool) {
    if (pool_starter == nullptr) return Status::Ok();
    self->pool = *pool = pool_starter->Take();
    if (self->pool == nullptr) {
      return Status(StatusCode::kResourceExhausted,
                    "cannot start a pool of " + std::to_string(self->options.num_threads) + " threads");
    }
    return Status::Ok();
  }, &impl->packing));
  std::unique_ptr<Translator> made(new (std::nothrow) Translator(std::move(impl)));
  if (!made) return Status(StatusCode::kResourceExhausted, "out of memory");
  return made;
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
Status Translator::Score(const TokenIds* sources, const TokenIds* targets, size_t count, Hypothesis* results) {
  if (results == nullptr) return InvalidArgument("results must not be null");
  return impl_->Score(sources, targets, count, results);
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
const Status& Translator::packed_cache_status() const { return impl_->packing.cache_status; }
bool Translator::packed_cache_loaded() const { return impl_->packing.cache_loaded; }
void Translator::ResetProfile() { impl_->profile = TranslationProfile(); }

}  // namespace edgemt
