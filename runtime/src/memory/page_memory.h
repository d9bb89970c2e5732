// Whole pages: large blocks of memory, with huge pages where there are any,
// for what is written whole and kept as long as the model: its packed
// weights (packing/packed_regions.h); and pages made resident or given back at once. Not for a translator's arena, which is planned for the
// longest input and mostly never touched: a huge page would make all of it
// resident (3x the process's memory on Multi30k at beam 4).
//
// On Linux a block of 2 MB or more is aligned to 2 MB and advised for
// transparent huge pages (MADV_HUGEPAGE), so that one page fault, and one
// TLB entry, covers 2 MB instead of 4 kB. Under a hypervisor that shadows
// page tables every first touch of a 4 kB page traps, which was most of a
// small model's start-up (docs/packed-cache.md). Where the kernel gives no
// huge pages the advice is ignored and the block has ordinary pages.
#pragma once

#include <cstddef>

namespace edgemt {

// Where AllocatePages aligns to huge pages: 2 MB on Linux; 0, never, elsewhere.
#if defined(__linux__)
constexpr size_t kHugePageBytes = size_t{2} << 20;  // x86-64 and arm64 with 4 kB base pages
#else
constexpr size_t kHugePageBytes = 0;
#endif

// The least alignment of a PageBlock: XNNPACK's largest XNN_ALLOCATION_ALIGNMENT.
constexpr size_t kPageBlockAlignment = 128;

inline size_t RoundUpTo(size_t bytes, size_t multiple) { return (bytes + multiple - 1) / multiple * multiple; }

struct PageBlock {
  void* data = nullptr;  // kPageBlockAlignment-aligned at least; null when out of memory
  size_t size = 0;       // usable bytes from data
};

// At least `bytes` bytes, contents undefined: a mapping of its own on huge
// pages where the block is that large, from malloc otherwise. An empty block
// when out of memory.
PageBlock AllocatePages(size_t bytes);
void FreePages(const PageBlock& block);

// Makes the whole pages inside [pointer, pointer + size) resident in one
// system call (Linux: MADV_POPULATE_WRITE), instead of one fault per page
// when they are first written. A refusal only costs speed.
void MakeResident(void* pointer, size_t size);

// Tells the OS that the whole pages inside [pointer, pointer + size) are not
// needed any more (MADV_DONTNEED): mapped file pages are read again if used.
void DropPages(const void* pointer, size_t size);

}  // namespace edgemt
