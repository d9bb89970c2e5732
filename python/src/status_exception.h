// Statuses become Python exceptions here, at the module's boundary (the
// only place C++ exceptions are used: pybind11 turns them into Python's):
// ValueError for bad arguments, OSError for what cannot be found or read,
// MemoryError when memory ran out, RuntimeError for the rest. The message is the runtime's.
#pragma once

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "edgemt/status.h"

namespace edgemt_python {

// Needs the GIL. `where` (e.g. "source 3") prefixes the message.
[[noreturn]] inline void RaiseStatus(const edgemt::Status& status, const std::string& where = "") {
  const std::string message = where.empty() ? status.message() : where + ": " + status.message();
  switch (status.code()) {
    case edgemt::StatusCode::kInvalidArgument:
      throw pybind11::value_error(message);
    case edgemt::StatusCode::kNotFound:
      // pybind11 2.10 has no OSError type to throw: set it and hand it on.
      PyErr_SetString(PyExc_OSError, message.c_str());
      throw pybind11::error_already_set();
    case edgemt::StatusCode::kResourceExhausted:
      PyErr_SetString(PyExc_MemoryError, message.c_str());
      throw pybind11::error_already_set();
    default:  // kInvalidModel, kUnsupported, kInternal
      throw std::runtime_error(message);
  }
}

}  // namespace edgemt_python
