#include "catalog/route.h"

#include <string>

namespace edgemt {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

size_t Find(const std::vector<CatalogModel>& models, std::string_view from, std::string_view to) {
  for (size_t i = 0; i < models.size(); ++i) {
    if (models[i].source_language == from && models[i].target_language == to) return i;
  }
  return kNone;
}

bool Reads(const std::vector<CatalogModel>& models, std::string_view language, bool source) {
  for (const CatalogModel& model : models) {
    if ((source ? model.source_language : model.target_language) == language) return true;
  }
  return false;
}

}  // namespace

Result<std::vector<size_t>> FindRoute(const std::vector<CatalogModel>& models, std::string_view pivot,
                                      std::string_view from, std::string_view to) {
  if (from == to) return std::vector<size_t>{};
  if (!Reads(models, from, true))
    return Status(StatusCode::kNotFound, "no installed model translates from '" + std::string(from) + "'");
  if (!Reads(models, to, false))
    return Status(StatusCode::kNotFound, "no installed model translates to '" + std::string(to) + "'");
  if (const size_t direct = Find(models, from, to); direct != kNone) return std::vector<size_t>{direct};
  const size_t first = Find(models, from, pivot), second = Find(models, pivot, to);
  if (first != kNone && second != kNone) return std::vector<size_t>{first, second};
  return Status(StatusCode::kNotFound, "no installed model or pair of models through '" + std::string(pivot) +
                                           "' translates '" + std::string(from) + "' to '" + std::string(to) + "'");
}

}  // namespace edgemt
