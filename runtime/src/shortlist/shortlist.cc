#include "shortlist/shortlist.h"

#include <algorithm>

namespace edgemt {

size_t ShortlistCapacity(const ShortlistView& shortlist, size_t source_length, size_t target_vocab) {
  if (!shortlist.present()) return 0;
  const size_t padding = shortlist.pad_multiple > 1 ? shortlist.pad_multiple - 1 : 0;
  const size_t bound = source_length * shortlist.longest + shortlist.frequent_count + 1 + padding;
  return std::min(bound, target_vocab);
}

size_t SourceShortlist(const ShortlistView& shortlist, const TokenIds& source, int32_t eos_id, size_t target_vocab,
                       uint8_t* seen, int32_t* out) {
  size_t count = 0;
  auto add = [&](int32_t id) {
    if (seen[id] != 0) return;
    seen[id] = 1;
    out[count++] = id;
  };
  add(eos_id);
  for (size_t i = 0; i < shortlist.frequent_count; ++i) add(shortlist.frequent[i]);
  for (size_t i = 0; i < source.size; ++i) {
    const size_t id = static_cast<size_t>(source.data[i]);
    for (uint32_t c = shortlist.offsets[id]; c < shortlist.offsets[id + 1]; ++c) add(shortlist.candidates[c]);
  }
  if (shortlist.pad_multiple > 1) {
    for (size_t id = static_cast<size_t>(shortlist.pad_from);
         id < target_vocab && (count + shortlist.pad_uncounted) % shortlist.pad_multiple != 0; ++id)
      add(static_cast<int32_t>(id));
  }
  std::sort(out, out + count);
  for (size_t i = 0; i < count; ++i) seen[out[i]] = 0;
  return count;
}

}  // namespace edgemt
