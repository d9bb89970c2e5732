// --info: what a model file is, or what a model set holds, as text.
#pragma once

#include <string>

#include "edgemt/catalog.h"
#include "edgemt/model.h"

namespace edgemt::cli {

std::string ModelInfo(const std::string& path, const Model& model);
// Each model of the set, then every pair it translates (direct or through the pivot).
std::string ModelSetInfo(const Catalog& catalog);

}  // namespace edgemt::cli
