// Model sets and language detection in the native module: edgemt.Catalog,
// edgemt.detect_language (edgemt/catalog.h, edgemt/language_id.h).
#pragma once

#include <pybind11/pybind11.h>

namespace edgemt_python {

void BindCatalog(pybind11::module_& m);

}  // namespace edgemt_python
