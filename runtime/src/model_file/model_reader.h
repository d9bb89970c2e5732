// Verifies a model file's bytes and builds the typed views of ModelWeights.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgemt/status.h"
#include "model_file/model_weights.h"

namespace edgemt {

constexpr uint16_t kFormatMajor = 2;
constexpr uint16_t kFormatMinor = 9;  // the newest minor version this runtime knows

// Checks the FlatBuffer structure, the identifier, the version, the
// hyperparameters and every tensor's type, shape, size, alignment and
// scales. On success `weights` points into `data`.
Status ReadModel(const uint8_t* data, size_t size, ModelWeights* weights);

// Whether every Linear weight has kPackingReadSlack bytes before `end`, the
// end of the buffer it lies in (ReadModel checks it last).
Status CheckPackingSlack(const ModelWeights& weights, const uint8_t* end);

}  // namespace edgemt
