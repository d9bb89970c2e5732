// The packed (XNNPACK layout) weights of one Model, shared by every
// translator made from it: a weights cache XNNPACK packs into and looks up
// in (struct xnn_weights_cache_provider). A layer is packed once per
// process, however many translators use it; its packed copy lives until the
// Model is destroyed. Entries may also come from a packed-cache file
// (packing/packed_file.h), memory-mapped read-only and shared with other
// processes through the page cache.
#pragma once

#include <xnnpack.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "edgemt/status.h"
#include "model_file/model_weights.h"
#include "packing/packed_regions.h"

namespace edgemt {

class PackedWeights {
 public:
  // One packed operator: a layer (see LayerId) as one XNNPACK kernel packs it.
  struct Entry {
    uint64_t layer = 0;
    uint32_t seed = 0;  // XNNPACK's key for the operator type and kernel layout
    const void* data = nullptr;
    size_t size = 0;
  };

  // `model_base`: the model's first byte, which layer ids are relative to.
  // `capacity`: the most entries the model can need.
  PackedWeights(const void* model_base, size_t capacity);
  ~PackedWeights();
  PackedWeights(const PackedWeights&) = delete;
  PackedWeights& operator=(const PackedWeights&) = delete;

  // The provider to pass to xnn_create_*; only valid inside a Packing scope.
  xnn_weights_cache_t provider() { return &provider_; }

  // A layer's identity in this model and in any process that maps the same
  // file: where its parts' weights sit in the file, their shapes and types,
  // and the type the operator runs in.
  uint64_t LayerId(const LinearParts& parts, WeightType runs_in) const;
  bool Contains(uint64_t layer) const;

  // While alive, XNNPACK create calls on this thread pack (or find) `layer`.
  // A probe refuses to pack: the create fails unless the layer is found, so
  // that the caller may pass weights XNNPACK must not read (see LinearOp).
  class Packing {
   public:
    Packing(PackedWeights* store, uint64_t layer, bool probe);
    ~Packing();
    Packing(const Packing&) = delete;
    Packing& operator=(const Packing&) = delete;
    // False when the store is full: create without the provider then.
    bool active() const { return active_; }
    bool refused() const { return refused_; }

   private:
    friend class PackedWeights;
    PackedWeights* store_;
    uint64_t layer_;
    bool probe_;
    bool active_ = false;
    bool refused_ = false;
    void* reserved_ = nullptr;  // packed by XNNPACK, not yet inserted
    size_t reserved_bytes_ = 0;
    Packing* previous_;
  };

  // Entries from a mapped file (kept mapped as long as the store lives).
  // Only into an empty store; false otherwise or when they do not fit.
  bool AdoptMapped(std::shared_ptr<const void> mapping, const std::vector<Entry>& entries);
  size_t entry_count() const { return count_.load(std::memory_order_acquire); }
  bool has_mapping() const;
  // Every entry, in insertion order (for writing a cache file).
  std::vector<Entry> Snapshot() const;
  size_t packed_bytes() const;
  // Entries XNNPACK packed in this process (not read from a file).
  size_t packed_here() const;

 private:
  static size_t LookUp(void* context, const xnn_weights_cache_look_up_key* key);
  static void* ReserveSpace(void* context, size_t bytes);
  static size_t LookUpOrInsert(void* context, const xnn_weights_cache_look_up_key* key, void* ptr, size_t size);
  static bool IsFinalized(void* context);
  static void* OffsetToAddr(void* context, size_t offset);
  static xnn_status DeleteCache(void* context);

  size_t FindLocked(uint64_t layer, uint32_t seed) const;

  xnn_weights_cache_provider provider_;
  const uint8_t* model_base_;
  // Fixed capacity, so that an entry never moves: XNNPACK resolves offsets
  // (entry indexes) to addresses when a translator runs, without the lock.
  std::unique_ptr<Entry[]> entries_;
  size_t capacity_ = 0;
  std::atomic<size_t> count_{0};
  size_t pending_ = 0;  // slots held by live Packing scopes
  size_t packed_here_ = 0;
  mutable std::mutex mutex_;
  PackedRegions regions_;  // what XNNPACK packed into here
  std::shared_ptr<const void> mapping_;
};

// A fast 64-bit fingerprint (not cryptographic) of a byte range, for cache
// keys and for checking a cache file's contents.
uint64_t Fingerprint64(const void* data, size_t size, uint64_t seed = 0);

}  // namespace edgemt
