// The limits and resources a Translator is created with: plain values, below
// the translator, so that the runtime's request checks need not include
// translator.h.
#pragma once

#include <cstddef>
#include <string>

namespace edgemt {

struct TranslatorOptions {
  // Limits the memory plan is made for; requests over them are refused.
  int max_batch_size = 1;
  int max_source_length = 0;  // ids, </s> included; 0: the model's max_positions
  int max_target_length = 0;  // output ids; 0: the model's max_positions
  // The largest DecodeOptions::beam_size allowed: the memory plan holds
  // max_batch_size x max_beam_size hypotheses.
  int max_beam_size = 1;
  // Threads for the large matrix products (and for packing the weights in
  // Create); 0: the number of cores cpuinfo reports. Products under 1M
  // multiply-adds stay on the calling thread, and the other threads sleep
  // while it works alone. On a device whose other cores are busy, 1 avoids
  // waiting for a descheduled worker. The result is the same for any count.
  int num_threads = 0;
  // Optional caller-owned block of at least Translator::ArenaBytes() bytes,
  // 64-byte aligned, that must outlive the translator. Null: the translator
  // allocates it once.
  void* arena = nullptr;
  size_t arena_size = 0;
  // Accumulate a TranslationProfile (costs a clock read per operation).
  bool profile = false;
  // A directory for packed-weights cache files (docs/packed-cache.md). The
  // first translator of a model file writes one there; later loads, in any
  // process, map it read-only instead of packing the weights. A missing,
  // stale or unusable file never fails Create: see packed_cache_status().
  // Empty: no file (translators of one Model still share one packed copy).
  std::string packed_cache_dir;
};

}  // namespace edgemt
