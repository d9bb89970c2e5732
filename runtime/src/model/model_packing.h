// How a translator's linear layers get their packed (XNNPACK layout)
// weights: found in the store that every translator of the Model shares,
// mapped from a packed-cache file (docs/packed-cache.md), or packed now and
// then written to that file. One per Model: it owns the store, and the
// mutex that serializes the cache file's use among translators.
#pragma once

#include <pthreadpool.h>

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "edgemt/status.h"
#include "model/model_bytes.h"
#include "ops/linear.h"
#include "packing/packed_weights.h"

namespace edgemt {

class ModelPacking {
 public:
  // `capacity`: the most packed operators the model can need.
  ModelPacking(const ModelBytes& bytes, size_t capacity);
  ModelPacking(const ModelPacking&) = delete;
  ModelPacking& operator=(const ModelPacking&) = delete;

  PackedWeights& store() { return store_; }

  struct Outcome {
    // With a cache directory: Ok when the packed weights came from the file
    // or were written to it; otherwise why the file was not used or not
    // written (the layers were packed all the same).
    Status cache_status;
    bool cache_loaded = false;  // the store's entries came from a mapped file
  };

  // Creates the XNNPACK operators of `linears`, packing what the store lacks.
  // `take_pool` gives the translator's thread pool (null: the calling
  // thread); it is asked once, after the cache file was read, so that the
  // pool can start meanwhile. Each layer's mapped weights go back to the OS
  // as soon as its packed copy exists.
  Status Pack(const LinearOpList& linears, const std::string& cache_dir,
              const std::function<Status(pthreadpool_t*)>& take_pool, Outcome* outcome);

 private:
  void ReadCacheFile(const std::string& path, const std::string& key, Outcome* outcome);
  void WriteCacheFile(const std::string& path, const std::string& key, Outcome* outcome);

  const ModelBytes& bytes_;
  PackedWeights store_;
  std::mutex file_mutex_;
  size_t saved_entries_ = 0;  // entries in the cache file last read or written (file_mutex_)
};

}  // namespace edgemt
