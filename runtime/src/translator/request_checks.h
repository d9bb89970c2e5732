// What a translator checks of a caller's request before any work: its
// options against the model (filling in defaults), a call's decoding
// options against the translator's limits, and the sources' ids.
#pragma once

#include <cstddef>

#include "edgemt/decode_options.h"
#include "edgemt/model_config.h"
#include "edgemt/status.h"
#include "edgemt/translator_options.h"
#include "model_file/model_weights.h"
#include "workspace/workspace.h"

namespace edgemt {

// Fills in defaults and checks the options against the model.
Status ResolveTranslatorOptions(const ModelConfig& config, TranslatorOptions* options);

// The sizes the memory plan is made for (`weights`: the shortlist's).
Limits LimitsOf(const TranslatorOptions& resolved, const ModelWeights& weights);

// `decoder_layers`: the model's, for alignment_layer.
Status CheckDecodeOptions(const DecodeOptions& decode, const Limits& limits, int decoder_layers);

// The decoder layer whose cross-attention gives the alignments
// (DecodeOptions::alignment_layer, checked: negative counts from the last).
size_t AlignmentLayerOf(const DecodeOptions& decode, int decoder_layers);

// What a call's options ask of its `count` sentences: target prefixes of
// target ids (cut at the length limit), alternatives that fit the batch.
Status CheckRequest(const DecodeOptions& decode, size_t count, const Limits& limits, int target_vocab_size);

// Targets to score: each of target ids, with room for </s>.
Status CheckTargets(const TokenIds* targets, size_t count, const Limits& limits, int target_vocab_size);

// 1..limits.batch sources, each 1..limits.source ids of the source vocabulary.
Status CheckSources(const TokenIds* sources, size_t count, const Limits& limits, int source_vocab_size);

}  // namespace edgemt
