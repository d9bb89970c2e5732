// A model file's bytes, as the runtime holds them: a read-only memory map of
// the file, or a caller's buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace edgemt {

struct ModelBytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const uint8_t> mapping;  // a mapped file; null for a caller's buffer
  // A mapped file's identity: device, inode, size, modification and change
  // times (any write to the file changes them). Empty for a buffer. Not a
  // std::string: loading allocates only what it can check (no exceptions).
  char file_identity[160] = {};

  // What identifies these bytes in packed-cache keys.
  std::string Identity() const;
  // Tells the OS that the mapped bytes [begin, begin + count) are not needed
  // any more (their packed copy lives elsewhere). No-op for a buffer.
  void ReleasePages(const void* begin, size_t count) const;
};

}  // namespace edgemt
