// The allocator EdgeMT hands to XNNPACK.
#pragma once

#include <xnnpack.h>

#include <cstddef>

namespace edgemt {

// XNNPACK's default allocator (malloc / posix_memalign, released with free,
// so blocks stay interchangeable with the default's), except that a large
// aligned block, where XNNPACK packs a layer's weights that a translator
// keeps to itself (shared ones go to packing/packed_regions.h), has its pages made
// resident in one system call (page_memory.h) before XNNPACK writes it.
// Faulting ~100 MB in page by page costs about five times as much.
const xnn_allocator* XnnpackAllocator();

}  // namespace edgemt
