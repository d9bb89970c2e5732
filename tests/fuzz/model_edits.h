// One meaningful change to a valid model, for the fuzzers (model_edits.cc).
#pragma once

#include <random>

#include "edgemt_generated.h"

namespace edgemt::testing {

// Changes one thing in `model`, chosen with `random`.
void EditModel(fb::ModelT& model, std::mt19937& random);

}  // namespace edgemt::testing
