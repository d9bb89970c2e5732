#include "edgemt/status.h"

namespace edgemt {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kInvalidModel: return "invalid model";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kResourceExhausted: return "resource exhausted";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

}  // namespace edgemt
