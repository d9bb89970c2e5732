#pragma once

// EdgeMT's version and the model files it reads: the one source of the
// strings that `edgemt-translate --version`, edgemt_version() /
// edgemt_model_formats() in C and `edgemt.__version__` /
// `edgemt.MODEL_FORMATS` in Python all print.

namespace edgemt {

// "MAJOR.MINOR.PATCH" (CMake's project version).
const char* Version();
// The model file format versions this build reads, "2.0-2.2".
const char* ModelFormats();

}  // namespace edgemt
