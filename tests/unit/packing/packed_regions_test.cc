// Where the packed weights live (runtime/src/packing/packed_regions.h):
// aligned blocks that never overlap, small layers sharing a region, blocks
// given back handed out again, from several threads at once.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "packing/packed_regions.h"
#include "memory/page_memory.h"

using edgemt::PackedRegions;

namespace {

bool Aligned(const void* p, size_t alignment) { return reinterpret_cast<uintptr_t>(p) % alignment == 0; }

// Fills each block with its own byte, then checks that none was overwritten.
void CheckDisjoint(const std::vector<std::pair<uint8_t*, size_t>>& blocks) {
  for (size_t i = 0; i < blocks.size(); ++i) std::memset(blocks[i].first, static_cast<int>(i + 1), blocks[i].second);
  for (size_t i = 0; i < blocks.size(); ++i) {
    const uint8_t* p = blocks[i].first;
    size_t wrong = 0;
    for (size_t k = 0; k < blocks[i].second; ++k) wrong += p[k] != static_cast<uint8_t>(i + 1);
    CHECK_MESSAGE(wrong == 0, "block " << i << " overlaps another");
  }
}

}  // namespace

TEST_CASE("packed regions: aligned blocks that do not overlap, large and small") {
  PackedRegions arena;
  std::vector<std::pair<uint8_t*, size_t>> blocks;
  for (size_t bytes : {size_t{1}, size_t{0}, size_t{100}, size_t{128}, size_t{129}, size_t{70000},
                       size_t{3} << 20, size_t{5000}, size_t{2} << 20, size_t{1} << 20, size_t{333}}) {
    auto* p = static_cast<uint8_t*>(arena.Allocate(bytes));
    REQUIRE(p != nullptr);
    CHECK(Aligned(p, PackedRegions::kAlignment));
    blocks.push_back({p, bytes});
  }
  CheckDisjoint(blocks);
}

// Where there are no huge pages each block has a region of its own.
TEST_CASE("packed regions: small blocks share a region" * doctest::skip(edgemt::kHugePageBytes == 0)
          * doctest::description("needs huge pages")) {
  PackedRegions arena;
  auto* a = static_cast<uint8_t*>(arena.Allocate(1000));
  auto* b = static_cast<uint8_t*>(arena.Allocate(1000));
  REQUIRE((a != nullptr && b != nullptr));
  // Carved one after the other: the second starts at the first's next aligned byte.
  CHECK(b == a + 1024);
}

TEST_CASE("packed regions: a block given back is handed out again for one that fits") {
  PackedRegions arena;
  void* a = arena.Allocate(10000);
  REQUIRE(a != nullptr);
  arena.GiveBack(a, 10000);
  void* larger = arena.Allocate(20000);
  CHECK(larger != a);
  void* smaller = arena.Allocate(9000);
  CHECK(smaller == a);
  void* next = arena.Allocate(9000);
  CHECK(next != a);
}

TEST_CASE("packed regions: a size no memory can hold is refused") {
  PackedRegions arena;
  CHECK(arena.Allocate(SIZE_MAX) == nullptr);
  CHECK(arena.Allocate(SIZE_MAX / 2 + 1) == nullptr);
  CHECK(arena.Allocate(64) != nullptr);  // and the arena still works
}

TEST_CASE("packed regions: blocks from several threads at once do not overlap") {
  PackedRegions arena;
  constexpr size_t kThreads = 4, kPerThread = 50;
  std::vector<std::vector<std::pair<uint8_t*, size_t>>> got(kThreads);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&arena, &got, t] {
      for (size_t i = 0; i < kPerThread; ++i) {
        const size_t bytes = 200 + 997 * ((t * kPerThread + i) % 37);
        auto* p = static_cast<uint8_t*>(arena.Allocate(bytes));
        if (p == nullptr) continue;
        if (i % 5 == 4) {
          arena.GiveBack(p, bytes);  // some come back, to be handed out again
        } else {
          got[t].push_back({p, bytes});
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<std::pair<uint8_t*, size_t>> all;
  for (const auto& list : got) all.insert(all.end(), list.begin(), list.end());
  CHECK(all.size() == kThreads * kPerThread * 4 / 5);
  CheckDisjoint(all);
}
