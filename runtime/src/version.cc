#include "edgemt/version.h"

#include "model_reader.h"

namespace edgemt {
namespace {

static_assert(kFormatMajor == 2 && kFormatMinor == 2, "update kModelFormats with the reader's format versions");
constexpr const char kModelFormats[] = "2.0-2.2";

}  // namespace

const char* Version() { return EDGEMT_VERSION_STRING; }

const char* ModelFormats() { return kModelFormats; }

}  // namespace edgemt
