// The config table of a model file: its sizes within bounds, its kinds
// (norm placement, activation, positions) known, its special ids inside
// their vocabularies (part of ReadModel, model_reader.h).
#pragma once

#include "edgemt/model_config.h"
#include "edgemt/status.h"
#include "edgemt_generated.h"

namespace edgemt {

Status ReadConfig(const fb::Config* config, ModelConfig* out);

}  // namespace edgemt
