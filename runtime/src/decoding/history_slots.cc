#include "decoding/history_slots.h"

namespace edgemt {

size_t AssignHistorySlots(const int32_t* parents, size_t live, size_t beam, const HistorySlotBuffers& b) {
  for (size_t i = 0; i < beam; ++i) b.kept[i] = 0;
  constexpr int32_t kUnassigned = -1;
  for (size_t r = 0; r < live; ++r) {
    const size_t p = static_cast<size_t>(parents[r]);
    b.slots[r] = b.kept[p] ? kUnassigned : b.old_slots[p];
    b.kept[p] = 1;
  }
  // The other children, then the rows past `live`, take the slots that no
  // first child kept, in order.
  size_t copies = 0, free_index = 0;
  auto next_free = [&]() {
    while (b.kept[free_index]) ++free_index;
    return b.old_slots[free_index++];
  };
  for (size_t r = 0; r < live; ++r) {
    if (b.slots[r] != kUnassigned) continue;
    b.slots[r] = next_free();
    b.copies[copies++] = HistoryCopy{b.old_slots[parents[r]], b.slots[r]};
  }
  for (size_t r = live; r < beam; ++r) b.slots[r] = next_free();
  return copies;
}

}  // namespace edgemt
