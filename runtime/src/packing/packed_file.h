// The packed-cache file: a Model's packed weights written to disk once and
// memory-mapped read-only by later loads, so that they skip packing and
// share one copy through the page cache. docs/packed-cache.md describes the
// layout. A file is only used when it is whole, its checksums hold and its
// key matches exactly; anything else is reported, never trusted.
#pragma once

#include <string>

#include "edgemt/status.h"
#include "packing/packed_weights.h"

namespace edgemt {

// Everything a packing depends on, as text: the cache format, EdgeMT's
// version, the XNNPACK build, the CPU's features and micro-architectures,
// and the model file's identity (device, inode, size, modification and
// change times; a content fingerprint for a model in a caller's buffer:
// ModelBytes::Identity).
std::string PackedFileKey(const std::string& model_identity);

// DIR/<fingerprint of the key>.packed
std::string PackedFilePath(const std::string& dir, const std::string& key);

// Maps `path` and gives its entries to `store` (which must be empty).
// kNotFound: there is no such file; other codes: why it is not used.
Status LoadPackedCache(const std::string& path, const std::string& key, PackedWeights* store);

// Writes `store`'s entries to `path` atomically (a temporary file in the
// same directory, then a rename), creating the directory if needed.
Status WritePackedCache(const std::string& path, const std::string& key, const PackedWeights& store);

}  // namespace edgemt
