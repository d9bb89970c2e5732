// The shortlisted projection's loops (plain and VNNI) read weight rows
// scattered through the weight when a list's rows are not gathered, so each
// waits on memory for every row (the hardware prefetchers follow strides,
// not id lists): the rows this many columns ahead are fetched while the
// current one is added.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgemt {

constexpr size_t kPrefetchColumns = 4;

// The weight row of column c: ids[c], or c where the rows were gathered in
// the list's order (null ids), which need no prefetching.
inline size_t RowOf(const int32_t* ids, size_t c) { return ids != nullptr ? static_cast<size_t>(ids[c]) : c; }

// Asks for every cache line of [address, address + bytes).
inline void PrefetchBytes(const void* address, size_t bytes) {
#if defined(__GNUC__)
  constexpr size_t kCacheLine = 64;
  const char* p = static_cast<const char*>(address);
  for (size_t offset = 0; offset < bytes; offset += kCacheLine) __builtin_prefetch(p + offset);
#else
  (void)address;
  (void)bytes;
#endif
}

}  // namespace edgemt
