#include "memory/xnnpack_memory.h"

#include <cstdint>
#include <cstdlib>

#include "memory/page_memory.h"

namespace edgemt {
namespace {

// Below this, page faults are few and the block may share pages with others.
constexpr size_t kPopulateMinBytes = size_t{64} << 10;

void* Allocate(void*, size_t size) { return std::malloc(size); }
void* Reallocate(void*, void* pointer, size_t size) { return std::realloc(pointer, size); }
void Deallocate(void*, void* pointer) { std::free(pointer); }

void* AlignedAllocate(void*, size_t alignment, size_t size) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  void* pointer = nullptr;
  if (posix_memalign(&pointer, alignment, size) != 0) return nullptr;
  if (size >= kPopulateMinBytes) MakeResident(pointer, size);
  return pointer;
}

void AlignedDeallocate(void*, void* pointer) { std::free(pointer); }

const xnn_allocator kAllocator = {nullptr, Allocate, Reallocate, Deallocate, AlignedAllocate, AlignedDeallocate};

}  // namespace

const xnn_allocator* XnnpackAllocator() { return &kAllocator; }

}  // namespace edgemt
