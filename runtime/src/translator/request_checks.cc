#include "translator/request_checks.h"

#include <cpuinfo.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "decoding/beam_search.h"
#include "shortlist/shortlist.h"
#include "shortlist/shortlisted_projection.h"

namespace edgemt {
namespace {

Status InvalidArgument(const std::string& message) { return Status(StatusCode::kInvalidArgument, message); }

}  // namespace

Status ResolveTranslatorOptions(const ModelConfig& config, TranslatorOptions* options) {
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
  if (options->max_beam_size < 1 || options->max_beam_size > kMaxBeamSize)
    return InvalidArgument("max_beam_size must be 1.." + std::to_string(kMaxBeamSize) + ", not " +
                           std::to_string(options->max_beam_size));
  if (options->num_threads < 0 || options->num_threads > 256)
    return InvalidArgument("num_threads must be 0..256, not " + std::to_string(options->num_threads));
  if (options->num_threads == 0) {
    options->num_threads = cpuinfo_initialize() ? static_cast<int>(cpuinfo_get_cores_count()) : 1;
    options->num_threads = std::max(1, options->num_threads);
  }
  return Status::Ok();
}

Limits LimitsOf(const TranslatorOptions& options, const ModelWeights& weights) {
  Limits limits{static_cast<size_t>(options.max_batch_size), static_cast<size_t>(options.max_source_length),
                static_cast<size_t>(options.max_target_length), static_cast<size_t>(options.max_beam_size),
                static_cast<size_t>(options.num_threads)};
  limits.shortlist = ShortlistCapacity(weights.shortlist, limits.source,
                                       static_cast<size_t>(weights.config.target_vocab_size));
  if (limits.shortlist > 0) {
    limits.gathered_shortlist = std::min(kMaxGatheredShortlistBytes,
                                         limits.batch * GatheredBytes(weights.output_projection, limits.shortlist));
  }
  return limits;
}

size_t AlignmentLayerOf(const DecodeOptions& decode, int decoder_layers) {
  const int layer = decode.alignment_layer < 0 ? decoder_layers + decode.alignment_layer : decode.alignment_layer;
  return static_cast<size_t>(std::max(0, std::min(layer, decoder_layers - 1)));
}

Status CheckDecodeOptions(const DecodeOptions& decode, const Limits& limits, int decoder_layers) {
  if (decode.return_alignments) {
    if (decode.alignment_layer < -decoder_layers || decode.alignment_layer >= decoder_layers)
      return InvalidArgument("alignment_layer " + std::to_string(decode.alignment_layer) + " is outside -" +
                             std::to_string(decoder_layers) + ".." + std::to_string(decoder_layers - 1) +
                             " (the model's decoder layers)");
    if (decode.return_alternatives) return InvalidArgument("alignments are not returned with alternatives");
  }
  if (decode.max_length < 0 || static_cast<size_t>(decode.max_length) > limits.target)
    return InvalidArgument("max_length " + std::to_string(decode.max_length) +
                           " is outside the translator's max_target_length " + std::to_string(limits.target));
  if (decode.min_length < 0) return InvalidArgument("min_length must not be negative");
  if (decode.beam_size < 1 || static_cast<size_t>(decode.beam_size) > limits.beam)
    return InvalidArgument("beam_size " + std::to_string(decode.beam_size) + " is outside 1..the translator's " +
                           "max_beam_size " + std::to_string(limits.beam));
  if (decode.return_alternatives) {
    if (decode.num_hypotheses < 1 || static_cast<size_t>(decode.num_hypotheses) > limits.batch)
      return InvalidArgument("num_hypotheses " + std::to_string(decode.num_hypotheses) +
                             " is outside 1..the translator's max_batch_size " + std::to_string(limits.batch) +
                             " (alternatives are decoded as a batch)");
    if (!(decode.min_alternative_expansion_prob >= 0.0f && decode.min_alternative_expansion_prob <= 1.0f))
      return InvalidArgument("min_alternative_expansion_prob must be in [0, 1]");
    if (decode.on_token != nullptr) return InvalidArgument("on_token does not stream alternatives");
  } else if (decode.num_hypotheses < 1 || decode.num_hypotheses > decode.beam_size) {
    return InvalidArgument("num_hypotheses " + std::to_string(decode.num_hypotheses) + " is outside 1..beam_size " +
                           std::to_string(decode.beam_size));
  }
  if (!(decode.repetition_penalty > 0.0f) || !std::isfinite(decode.repetition_penalty))
    return InvalidArgument("repetition_penalty must be a positive finite number");
  if (decode.no_repeat_ngram_size < 0) return InvalidArgument("no_repeat_ngram_size must not be negative");
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

namespace {

// `most`: 0 for no bound.
Status CheckTargetIds(const char* what, const TokenIds& ids, size_t index, size_t most, int vocab) {
  if (ids.size > 0 && ids.data == nullptr)
    return InvalidArgument(std::string(what) + " " + std::to_string(index) + " has no ids");
  if (most > 0 && ids.size > most)
    return InvalidArgument(std::string(what) + " " + std::to_string(index) + " has " + std::to_string(ids.size) +
                           " ids, more than " + std::to_string(most) + " (the translator's max_target_length)");
  for (size_t i = 0; i < ids.size; ++i) {
    if (ids.data[i] < 0 || ids.data[i] >= vocab)
      return InvalidArgument("id " + std::to_string(ids.data[i]) + " at position " + std::to_string(i) + " of " +
                             what + " " + std::to_string(index) + " is outside the target vocabulary (0.." +
                             std::to_string(vocab - 1) + ")");
  }
  return Status::Ok();
}

}  // namespace

Status CheckRequest(const DecodeOptions& decode, size_t count, const Limits& limits, int target_vocab_size) {
  if (decode.return_alternatives && count * static_cast<size_t>(decode.num_hypotheses) > limits.batch)
    return InvalidArgument(std::to_string(count) + " sentences x " + std::to_string(decode.num_hypotheses) +
                           " alternatives is more than the translator's max_batch_size " +
                           std::to_string(limits.batch));
  if (decode.target_prefixes == nullptr) return Status::Ok();
  for (size_t s = 0; s < count; ++s)
    // A prefix longer than the length limit is cut there, as in CTranslate2.
    EDGEMT_RETURN_IF_ERROR(CheckTargetIds("target prefix", decode.target_prefixes[s], s, /*most=*/0,
                                          target_vocab_size));
  return Status::Ok();
}

Status CheckTargets(const TokenIds* targets, size_t count, const Limits& limits, int target_vocab_size) {
  if (targets == nullptr) return InvalidArgument("no targets to score");
  for (size_t s = 0; s < count; ++s)
    EDGEMT_RETURN_IF_ERROR(CheckTargetIds("target", targets[s], s, limits.target - 1, target_vocab_size));
  return Status::Ok();
}

Status CheckSources(const TokenIds* sources, size_t count, const Limits& limits, int source_vocab_size) {
  if (sources == nullptr || count == 0) return InvalidArgument("no sources to translate");
  if (count > limits.batch)
    return InvalidArgument("a batch of " + std::to_string(count) + " is more than the translator's max_batch_size " +
                           std::to_string(limits.batch));
  for (size_t s = 0; s < count; ++s) {
    if (sources[s].size == 0 || sources[s].data == nullptr)
      return InvalidArgument("source " + std::to_string(s) + " is empty (a source ends with </s>)");
    if (sources[s].size > limits.source)
      return InvalidArgument("source " + std::to_string(s) + " has " + std::to_string(sources[s].size) +
                             " ids, more than the translator's max_source_length " + std::to_string(limits.source));
    for (size_t i = 0; i < sources[s].size; ++i) {
      const int32_t id = sources[s].data[i];
      if (id < 0 || id >= source_vocab_size)
        return InvalidArgument("id " + std::to_string(id) + " at position " + std::to_string(i) + " of source " +
                               std::to_string(s) + " is outside the source vocabulary (0.." +
                               std::to_string(source_vocab_size - 1) + ")");
    }
  }
  return Status::Ok();
}

}  // namespace edgemt
