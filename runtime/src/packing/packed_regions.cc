#include "packing/packed_regions.h"

#include <cstdint>
#include <new>

namespace edgemt {

// A region's own bookkeeping sits in its first bytes.
struct PackedRegions::Region {
  PageBlock pages;
  size_t used = 0;  // bytes from pages.data, this header included
  Region* next = nullptr;
};

// A block given back keeps its size and the list's link in its own bytes.
struct PackedRegions::FreeBlock {
  size_t size = 0;
  FreeBlock* next = nullptr;
};

PackedRegions::~PackedRegions() {
  for (Region* region = regions_; region != nullptr;) {
    Region* next = region->next;
    const PageBlock pages = region->pages;
    FreePages(pages);
    region = next;
  }
}

void* PackedRegions::Allocate(size_t bytes) {
  const size_t size = RoundUpTo(bytes == 0 ? 1 : bytes, kAlignment);
  if (size < bytes || size > SIZE_MAX / 2) return nullptr;
  void* block = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (FreeBlock** link = &given_back_; *link != nullptr; link = &(*link)->next) {
      if ((*link)->size >= size) {
        block = *link;
        *link = (*link)->next;
        break;
      }
    }
    if (block == nullptr) block = Carve(size);
  }
  // Outside the lock: the kernel's work, the slow part, for this block alone.
  if (block != nullptr) MakeResident(block, size);
  return block;
}

// Called with mutex_ held.
void* PackedRegions::Carve(size_t size) {
  // The first region with room, else a new one for this block and the next ones.
  for (Region* region = regions_; region != nullptr; region = region->next) {
    if (region->pages.size - region->used >= size) {
      void* block = static_cast<uint8_t*>(region->pages.data) + region->used;
      region->used += size;
      return block;
    }
  }
  // Whole huge pages where there are any, so that smaller layers packed
  // later share this block's last one.
  const size_t header = RoundUpTo(sizeof(Region), kAlignment);
  const size_t wanted = header + size;
  const PageBlock pages = AllocatePages(kHugePageBytes == 0 ? wanted : RoundUpTo(wanted, kHugePageBytes));
  if (pages.data == nullptr) return nullptr;
  Region* region = new (pages.data) Region;
  region->pages = pages;
  region->used = wanted;
  region->next = regions_;
  regions_ = region;
  return static_cast<uint8_t*>(pages.data) + header;
}

void PackedRegions::GiveBack(void* block, size_t bytes) {
  if (block == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  FreeBlock* given = new (block) FreeBlock;
  given->size = RoundUpTo(bytes == 0 ? 1 : bytes, kAlignment);
  given->next = given_back_;
  given_back_ = given;
}

}  // namespace edgemt
