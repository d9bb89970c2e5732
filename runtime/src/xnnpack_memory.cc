#include "xnnpack_memory.h"

#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it, harmlessly.
#endif
#endif

namespace edgemt {
namespace {

// Below this, page faults are few and the block may share pages with others.
constexpr size_t kPopulateMinBytes = size_t{64} << 10;

void* Allocate(void*, size_t size) { return std::malloc(size); }
void* Reallocate(void*, void* pointer, size_t size) { return std::realloc(pointer, size); }
void Deallocate(void*, void* pointer) { std::free(pointer); }

void MakeResident(void* pointer, size_t size) {
#if defined(__linux__)
  const long page_size = sysconf(_SC_PAGESIZE);
  if (page_size <= 0) return;
  const uintptr_t page = static_cast<uintptr_t>(page_size);
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(pointer) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(pointer) + size) & ~(page - 1);
  // Only whole pages inside the block; a refusal only costs speed.
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)pointer;
  (void)size;
#endif
}

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

void* AllocateResident(size_t alignment, size_t size) { return AlignedAllocate(nullptr, alignment, size); }

}  // namespace edgemt
