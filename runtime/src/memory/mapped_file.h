// A regular file mapped read-only, for the model file and the packed-cache
// file: pages come from the page cache, shared by every process mapping it.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace edgemt {

struct MappedFile {
  enum class Failure { kNone, kOpen, kNotRegular, kEmpty, kMap };

  // Unmaps when the last copy goes; null unless mapped.
  std::shared_ptr<const uint8_t> data;
  size_t size = 0;
  struct stat info {};  // the file's, from fstat
  Failure failure = Failure::kNone;
  int error = 0;  // errno of kOpen and kMap
};

// Opens `path` and maps all of it; an empty file is not mapped (kEmpty).
MappedFile MapReadOnly(const std::string& path);

}  // namespace edgemt
