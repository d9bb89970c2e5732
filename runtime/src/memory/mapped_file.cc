#include "memory/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "base/shared_nothrow.h"

namespace edgemt {

MappedFile MapReadOnly(const std::string& path) {
  MappedFile file;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    file.failure = MappedFile::Failure::kOpen;
    file.error = errno;
    return file;
  }
  if (fstat(fd, &file.info) != 0 || !S_ISREG(file.info.st_mode)) {
    close(fd);
    file.failure = MappedFile::Failure::kNotRegular;
    return file;
  }
  file.size = static_cast<size_t>(file.info.st_size);
  if (file.size == 0) {
    close(fd);
    file.failure = MappedFile::Failure::kEmpty;
    return file;
  }
  void* mapping = mmap(nullptr, file.size, PROT_READ, MAP_PRIVATE, fd, 0);
  file.error = errno;
  close(fd);
  if (mapping == MAP_FAILED) {
    file.failure = MappedFile::Failure::kMap;
    return file;
  }
  file.error = 0;
  const size_t size = file.size;
  file.data = ShareNothrow(static_cast<const uint8_t*>(mapping),
                           [size](const uint8_t* p) { munmap(const_cast<uint8_t*>(p), size); });
  if (!file.data) {
    file.failure = MappedFile::Failure::kMap;
    file.error = ENOMEM;
  }
  return file;
}

}  // namespace edgemt
