#include "memory/page_memory.h"

#include <cstdint>
#include <cstdlib>

#include <sys/mman.h>
#include <unistd.h>

#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it, harmlessly.
#endif
#endif

namespace edgemt {
namespace {

bool OnHugePages(size_t size) { return kHugePageBytes != 0 && size >= kHugePageBytes; }

#if defined(__linux__)
// A mapping of its own, not malloc's: advice given to part of the heap would
// stay with the memory malloc hands out next to it.
void* MapHugePages(size_t size) {
  // Map a huge page more than asked, then unmap what lies before and after
  // an aligned range: mmap itself only aligns to base pages.
  if (size + kHugePageBytes < size) return nullptr;
  void* mapped = mmap(nullptr, size + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return nullptr;
  const uintptr_t first = reinterpret_cast<uintptr_t>(mapped);
  const uintptr_t begin = RoundUpTo(first, kHugePageBytes);
  if (begin > first) munmap(mapped, begin - first);
  munmap(reinterpret_cast<void*>(begin + size), first + kHugePageBytes - begin);
  (void)madvise(reinterpret_cast<void*>(begin), size, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(begin);
}
#endif

// The whole pages inside [pointer, pointer + size): false when there are none.
bool WholePages(const void* pointer, size_t size, void** begin, size_t* length) {
  const long page_size = sysconf(_SC_PAGESIZE);
  if (page_size <= 0) return false;
  const uintptr_t page = static_cast<uintptr_t>(page_size);
  const uintptr_t first = (reinterpret_cast<uintptr_t>(pointer) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(pointer) + size) & ~(page - 1);
  if (end <= first) return false;
  *begin = reinterpret_cast<void*>(first);
  *length = end - first;
  return true;
}

}  // namespace

PageBlock AllocatePages(size_t bytes) {
  if (bytes == 0) bytes = 1;
  PageBlock block;
  const size_t size = RoundUpTo(bytes, OnHugePages(bytes) ? kHugePageBytes : kPageBlockAlignment);
  if (size < bytes) return block;  // overflow
#if defined(__linux__)
  if (OnHugePages(size)) {
    block.data = MapHugePages(size);
    block.size = block.data != nullptr ? size : 0;
    return block;
  }
#endif
  if (posix_memalign(&block.data, kPageBlockAlignment, size) != 0) return PageBlock{};
  block.size = size;
  return block;
}

void FreePages(const PageBlock& block) {
  if (block.data == nullptr) return;
#if defined(__linux__)
  if (OnHugePages(block.size)) {
    munmap(block.data, block.size);
    return;
  }
#endif
  std::free(block.data);
}

void MakeResident(void* pointer, size_t size) {
#if defined(__linux__)
  void* begin = nullptr;
  size_t length = 0;
  if (WholePages(pointer, size, &begin, &length)) (void)madvise(begin, length, MADV_POPULATE_WRITE);
#else
  (void)pointer;
  (void)size;
#endif
}

void DropPages(const void* pointer, size_t size) {
  void* begin = nullptr;
  size_t length = 0;
  if (WholePages(pointer, size, &begin, &length)) (void)madvise(begin, length, MADV_DONTNEED);
}

}  // namespace edgemt
