// Beam search's self-attention history without moving it: each alive
// hypothesis names its history slot, one of its sentence's `beam` slots, which
// lists the history rows of its keys and values (Workspace::self_history).
// After a step, the first hypothesis to continue a parent keeps the
// parent's slot; only a parent's second and later children need a copy of
// that list, into a slot that no hypothesis keeps (a dead one's). Moving
// every hypothesis to its row index instead copied most rows every step.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgemt {

// A history copy: slot `to` takes the keys and values of slot `from`.
struct HistoryCopy {
  int32_t from = 0;
  int32_t to = 0;
};

// The buffers of one sentence's assignment, each [beam].
struct HistorySlotBuffers {
  const int32_t* old_slots;  // the slot of each old hypothesis: a permutation of the sentence's slots
  int32_t* slots;            // out: the slot of each new hypothesis, then the unused ones (a permutation)
  uint8_t* kept;             // scratch: whether an old hypothesis's slot is kept by its first child
  HistoryCopy* copies;       // out: the copies to make
};

// New hypothesis r < live continues old hypothesis parents[r]. Returns the
// number of copies; their sources are kept slots and their targets free
// ones, so they may be made in any order.
size_t AssignHistorySlots(const int32_t* parents, size_t live, size_t beam, const HistorySlotBuffers& b);

}  // namespace edgemt
