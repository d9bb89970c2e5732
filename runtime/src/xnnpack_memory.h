// The allocator EdgeMT hands to XNNPACK.
#pragma once

#include <xnnpack.h>

#include <cstddef>

namespace edgemt {

// XNNPACK's default allocator (malloc / posix_memalign, released with free,
// so blocks stay interchangeable with the default's), except that a large
// aligned block, which is where XNNPACK packs a layer's weights, has its
// pages made resident in one system call (Linux: MADV_POPULATE_WRITE) before
// XNNPACK writes it. Faulting ~100 MB in page by page costs about five times
// as much, and it is most of the time to load a model.
const xnn_allocator* XnnpackAllocator();

// The same for the blocks PackedWeights has XNNPACK pack into: aligned,
// resident, released with std::free. Null when out of memory.
void* AllocateResident(size_t alignment, size_t size);

}  // namespace edgemt
