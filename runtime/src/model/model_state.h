// What the runtime, not its users, holds of a Model: its bytes, the weight
// views the reader verified, and the packing every translator of the model
// shares. edgemt/model.h keeps it out of sight; StateOf reaches it.
#pragma once

#include <memory>

#include "model/model_bytes.h"
#include "model/model_packing.h"
#include "model_file/model_weights.h"

namespace edgemt {

class Model;

class ModelState {
 public:
  ModelBytes bytes;
  ModelWeights weights;
  std::unique_ptr<ModelPacking> packing;  // made once the bytes are in place (it refers to them)
};

const ModelState& StateOf(const Model& model);

}  // namespace edgemt
