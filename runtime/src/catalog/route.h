// Which models of a set a translation goes through: the one of its pair,
// else two through the pivot language; none from a language to itself.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "edgemt/catalog.h"
#include "edgemt/status.h"

namespace edgemt {

// Indices into `models`; kNotFound saying which language or pair is missing.
Result<std::vector<size_t>> FindRoute(const std::vector<CatalogModel>& models, std::string_view pivot,
                                      std::string_view from, std::string_view to);

}  // namespace edgemt
