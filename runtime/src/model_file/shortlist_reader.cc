#include "model_file/shortlist_reader.h"

#include <cmath>
#include <string>

#include "edgemt_generated.h"

namespace edgemt {
namespace {

Status Invalid(const std::string& message) { return Status(StatusCode::kInvalidModel, "shortlist: " + message); }

// Whether ids[0..count) are target ids, strictly ascending.
bool AscendingTargetIds(const int32_t* ids, size_t count, int vocab) {
  for (size_t i = 0; i < count; ++i) {
    if (ids[i] < 0 || ids[i] >= vocab) return false;
    if (i > 0 && ids[i] <= ids[i - 1]) return false;
  }
  return true;
}

}  // namespace

Status ReadShortlist(const fb::Shortlist* shortlist, const ModelConfig& config, ShortlistView* out) {
  *out = ShortlistView();
  if (shortlist == nullptr) return Status::Ok();
  const auto* offsets = shortlist->offsets();
  const auto* candidates = shortlist->candidates();
  const auto* frequent = shortlist->frequent();
  if (offsets == nullptr) return Invalid("the offsets are missing");
  const size_t sources = static_cast<size_t>(config.source_vocab_size);
  if (offsets->size() != sources + 1)
    return Invalid("has " + std::to_string(offsets->size()) + " offsets, the source vocabulary needs " +
                   std::to_string(sources + 1));
  const size_t total = candidates != nullptr ? candidates->size() : 0;
  if (offsets->Get(0) != 0 || offsets->Get(static_cast<uint32_t>(sources)) != total)
    return Invalid("the offsets do not span the " + std::to_string(total) + " candidates");
  const int32_t* ids = candidates != nullptr ? candidates->data() : nullptr;
  size_t longest = 0;
  for (size_t i = 0; i < sources; ++i) {
    const uint32_t begin = offsets->Get(static_cast<uint32_t>(i));
    const uint32_t end = offsets->Get(static_cast<uint32_t>(i + 1));
    if (end < begin || end > total) return Invalid("the offsets of source id " + std::to_string(i) + " are out of order");
    if (!AscendingTargetIds(ids + begin, end - begin, config.target_vocab_size))
      return Invalid("the candidates of source id " + std::to_string(i) +
                     " are not ascending target ids without repeats");
    if (end - begin > longest) longest = end - begin;
  }
  const size_t frequent_count = frequent != nullptr ? frequent->size() : 0;
  if (frequent_count > 0 && !AscendingTargetIds(frequent->data(), frequent_count, config.target_vocab_size))
    return Invalid("the frequent ids are not ascending target ids without repeats");
  const auto* row_sum = shortlist->output_row_sum();
  if (row_sum != nullptr) {
    if (row_sum->size() != static_cast<size_t>(config.d_model))
      return Invalid("output_row_sum has " + std::to_string(row_sum->size()) + " values for d_model " +
                     std::to_string(config.d_model));
    for (const float v : *row_sum) {
      if (!std::isfinite(v)) return Invalid("output_row_sum holds a value that is not finite");
    }
    if (!std::isfinite(shortlist->output_bias_sum())) return Invalid("output_bias_sum is not finite");
    out->output_row_sum = row_sum->data();
    out->output_bias_sum = shortlist->output_bias_sum();
  }
  // Marian pads for its GEMM's 8 columns; more than a vector's worth is no padding anyone writes.
  constexpr uint32_t kMostPadding = 64;
  if (shortlist->pad_multiple() > kMostPadding)
    return Invalid("pads to a multiple of " + std::to_string(shortlist->pad_multiple()) + " ids, at most " +
                   std::to_string(kMostPadding) + " is read");
  if (shortlist->pad_from() < 0 || shortlist->pad_from() > config.target_vocab_size)
    return Invalid("pads from id " + std::to_string(shortlist->pad_from()) + ", outside the target vocabulary of " +
                   std::to_string(config.target_vocab_size));
  if (shortlist->pad_uncounted() >= kMostPadding)
    return Invalid("counts " + std::to_string(shortlist->pad_uncounted()) + " unlisted ids toward its padding");
  out->pad_multiple = shortlist->pad_multiple();
  out->pad_from = shortlist->pad_from();
  out->pad_uncounted = shortlist->pad_uncounted();
  out->frequent = frequent_count > 0 ? frequent->data() : nullptr;
  out->frequent_count = frequent_count;
  out->offsets = offsets->data();
  out->candidates = ids;
  out->longest = longest;
  return Status::Ok();
}

}  // namespace edgemt
