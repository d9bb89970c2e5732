// Where XNNPACK packs a model's layers (see packed_weights.h): blocks carved
// one after another out of large regions (memory/page_memory.h), so that even a
// small model's many small layers share huge pages. A layer's block lives
// as long as the model, so blocks are not freed one by one: a block given
// back (a create that failed, or a layer another translator packed first)
// is kept for the next block that fits in it, and every region is returned
// when the PackedRegions is destroyed.
#pragma once

#include <cstddef>
#include <mutex>

#include "memory/page_memory.h"

namespace edgemt {

class PackedRegions {
 public:
  PackedRegions() = default;
  ~PackedRegions();
  PackedRegions(const PackedRegions&) = delete;
  PackedRegions& operator=(const PackedRegions&) = delete;

  // `bytes` resident bytes aligned to kAlignment; null when out of memory.
  // Safe to call from several threads.
  void* Allocate(size_t bytes);
  // A block from Allocate (of `bytes`, as asked), to be handed out again.
  void GiveBack(void* block, size_t bytes);

  static constexpr size_t kAlignment = kPageBlockAlignment;

 private:
  struct Region;
  struct FreeBlock;

  void* Carve(size_t bytes);

  std::mutex mutex_;
  Region* regions_ = nullptr;        // newest first
  FreeBlock* given_back_ = nullptr;  // blocks to hand out again
};

}  // namespace edgemt
