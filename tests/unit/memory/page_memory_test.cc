// Whole pages (runtime/src/memory/page_memory.h): large blocks aligned to
// huge pages on Linux and rounded to whole ones, all of them usable.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>

#include "memory/page_memory.h"

namespace {

bool Aligned(const void* p, size_t alignment) { return reinterpret_cast<uintptr_t>(p) % alignment == 0; }

}  // namespace

TEST_CASE("page memory: large blocks are aligned to huge pages and rounded to whole ones") {
  const edgemt::PageBlock small = edgemt::AllocatePages(1000);
  REQUIRE(small.data != nullptr);
  CHECK(small.size >= 1000);
  CHECK(Aligned(small.data, 128));
  edgemt::FreePages(small);
  const edgemt::PageBlock large = edgemt::AllocatePages((size_t{3} << 20) + 1);
  REQUIRE(large.data != nullptr);
  if (edgemt::kHugePageBytes != 0) {
    CHECK(Aligned(large.data, edgemt::kHugePageBytes));
    CHECK(large.size == size_t{4} << 20);
  }
  std::memset(large.data, 7, large.size);  // all of it is usable
  edgemt::FreePages(large);
}
