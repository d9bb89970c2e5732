#include "model/model_bytes.h"

#include <algorithm>

#include "packing/packed_weights.h"
#include "memory/page_memory.h"

namespace edgemt {

std::string ModelBytes::Identity() const {
  if (file_identity[0] != '\0') {
    // Timestamps have the file system's granularity (a few ms): a file
    // rewritten in place at the same size within it also changes these
    // bytes (the first 64 KB, with every table of the file, and 64 samples).
    uint64_t sampled = Fingerprint64(data, std::min<size_t>(size, size_t{64} << 10));
    for (size_t i = 0; i < 64; ++i) {
      const size_t offset = size / 64 * i;
      sampled = Fingerprint64(data + offset, std::min<size_t>(256, size - offset), sampled);
    }
    return std::string(file_identity) + " " + std::to_string(sampled);
  }
  // A caller's buffer has no file to ask: its bytes are the identity.
  return "buffer " + std::to_string(size) + " " + std::to_string(Fingerprint64(data, size));
}

void ModelBytes::ReleasePages(const void* begin, size_t count) const {
  // Only whole pages inside the range: neighbours may still be used in place.
  if (mapping != nullptr) DropPages(begin, count);
}

}  // namespace edgemt
