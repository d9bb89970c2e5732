// What both embind files build JavaScript values with: an {error} value
// (the runtime has no C++ exceptions to throw across), and arrays.
#pragma once

#include <emscripten/val.h>

#include <string>
#include <vector>

namespace edgemt_js {

inline emscripten::val Error(const std::string& message) {
  emscripten::val out = emscripten::val::object();
  out.set("error", message);
  return out;
}

template <typename T>
emscripten::val ArrayOf(const std::vector<T>& values) {
  emscripten::val out = emscripten::val::array();
  for (size_t i = 0; i < values.size(); ++i) out.set(i, values[i]);
  return out;
}

}  // namespace edgemt_js
