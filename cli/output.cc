#include "cli/output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace edgemt::cli {

bool Output::Check(bool ok) {
  if (!ok && error_ == 0) error_ = errno != 0 ? errno : EIO;
  return error_ == 0;
}

bool Output::Write(std::string_view text) {
  if (error_ != 0) return false;
  if (text.empty()) return true;
  errno = 0;
  return Check(std::fwrite(text.data(), 1, text.size(), stdout) == text.size());
}

bool Output::Flush() {
  if (error_ != 0) return false;
  errno = 0;
  return Check(std::fflush(stdout) == 0);
}

bool Output::Close() {
  const bool flushed = Flush();
  errno = 0;
  const bool closed = std::fclose(stdout) == 0;
  return flushed && Check(closed);
}

std::string Output::Error() const {
  return std::string("cannot write the output: ") + std::strerror(error_);
}

}  // namespace edgemt::cli
