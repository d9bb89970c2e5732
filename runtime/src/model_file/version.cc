#include "edgemt/version.h"

#include <string>

#include "model_file/model_reader.h"

namespace edgemt {

const char* Version() { return EDGEMT_VERSION_STRING; }

const char* ModelFormats() {
  // The reader takes every minor version of its major one, up to the newest it knows.
  static const std::string formats = std::to_string(kFormatMajor) + ".0-" + std::to_string(kFormatMajor) + "." +
                                     std::to_string(kFormatMinor);
  return formats.c_str();
}

}  // namespace edgemt
