// The decoding a model file asks for, and how its sources are framed
// (declared in edgemt/text_translator.h: the rules every front end shares).
#include <algorithm>

#include "edgemt/text_translator.h"

namespace edgemt {

DecodeOptions ModelDecodeDefaults(const ModelConfig& config, int max_beam_size, bool greedy_only) {
  DecodeOptions decode;
  if (!greedy_only && config.default_beam_size > 1) decode.beam_size = std::min(config.default_beam_size, max_beam_size);
  decode.max_length = config.default_max_length;
  decode.length_penalty = config.default_length_penalty;
  return decode;
}

void FrameSource(const ModelConfig& config, std::vector<int32_t>* ids) {
  if (ids->empty()) return;
  if (config.source_bos) ids->insert(ids->begin(), config.bos_id);
  if (config.source_eos) ids->push_back(config.eos_id);
}

int ModelMaxBeamSize(const ModelConfig& config) { return std::max(1, config.default_beam_size); }

}  // namespace edgemt
