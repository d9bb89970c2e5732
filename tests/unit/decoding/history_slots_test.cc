// Beam search's history slots (runtime/src/decoding/history_slots.h) against
// moving the histories themselves: for every parent pattern of up to 4 alive
// hypotheses in a beam of 4, from shuffled slots, each new hypothesis's slot
// holds its parent's keys and values after the copies, the slots stay a
// permutation, no copy reads a slot another writes, and a parent's first
// child costs no copy.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "decoding/history_slots.h"

TEST_CASE("history slots: every new hypothesis reads its parent's history, copying only for second children") {
  const size_t beam = 4;
  const std::vector<std::vector<int32_t>> starts = {{0, 1, 2, 3}, {2, 0, 3, 1}, {3, 2, 1, 0}};
  for (const std::vector<int32_t>& start : starts) {
    for (size_t old_live = 1; old_live <= beam; ++old_live) {
      for (size_t live = 1; live <= beam; ++live) {
        size_t patterns = 1;
        for (size_t r = 0; r < live; ++r) patterns *= old_live;
        for (size_t code = 0; code < patterns; ++code) {
          std::vector<int32_t> parents(live);
          for (size_t r = 0, c = code; r < live; ++r, c /= old_live) parents[r] = static_cast<int32_t>(c % old_live);
          // A slot's content: the old hypothesis that owns it (100 + slot where none does).
          std::vector<int32_t> content(beam);
          for (size_t slot = 0; slot < beam; ++slot) content[slot] = 100 + static_cast<int32_t>(slot);
          for (size_t h = 0; h < old_live; ++h) content[static_cast<size_t>(start[h])] = static_cast<int32_t>(h);
          std::vector<int32_t> slots(beam);
          std::vector<uint8_t> kept(beam);
          std::vector<edgemt::HistoryCopy> copies(beam);
          const edgemt::HistorySlotBuffers buffers{start.data(), slots.data(), kept.data(), copies.data()};
          const size_t count = edgemt::AssignHistorySlots(parents.data(), live, beam, buffers);
          CAPTURE(old_live);
          CAPTURE(code);
          std::vector<int32_t> after = content;
          for (size_t i = 0; i < count; ++i) {
            for (size_t j = 0; j < count; ++j) CHECK(copies[i].from != copies[j].to);
            after[static_cast<size_t>(copies[i].to)] = content[static_cast<size_t>(copies[i].from)];
          }
          for (size_t r = 0; r < live; ++r) CHECK(after[static_cast<size_t>(slots[r])] == parents[r]);
          std::vector<int32_t> sorted = slots;
          std::sort(sorted.begin(), sorted.end());
          for (size_t i = 0; i < beam; ++i) CHECK(sorted[i] == static_cast<int32_t>(i));
          std::vector<int32_t> distinct = parents;
          std::sort(distinct.begin(), distinct.end());
          const size_t parents_used = static_cast<size_t>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
          CHECK(count == live - parents_used);
        }
      }
    }
  }
}
