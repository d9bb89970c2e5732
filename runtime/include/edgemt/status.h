// Status values returned by every EdgeMT call: the runtime never throws and
// never aborts on bad input.
#pragma once

#include <string>
#include <utility>

namespace edgemt {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,   // a bad request: ids out of range, lengths over the limits, ...
  kInvalidModel,      // the model file is corrupt or inconsistent
  kUnsupported,       // a valid file this runtime cannot run (e.g. a newer format)
  kNotFound,          // a file that cannot be opened, a missing tokenizer
  kResourceExhausted, // memory could not be allocated, the caller's arena is too small
  kInternal,          // a dependency (XNNPACK, SentencePiece) failed
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid model: tensor 'x' has 12 bytes, its shape needs 16"
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)), has_value_(true) {}  // NOLINT: implicit by design
  // An ok Status holds no value: it is refused as an internal error, so that
  // ok() and status().ok() never disagree.
  Result(Status status)  // NOLINT: implicit by design
      : status_(status.ok() ? Status(StatusCode::kInternal, "a result was made of an ok status, without a value")
                            : std::move(status)) {}

  bool ok() const { return has_value_; }
  const Status& status() const { return status_; }
  T& value() & { return value_; }
  const T& value() const& { return value_; }
  T&& value() && { return std::move(value_); }

 private:
  T value_{};
  Status status_;
  bool has_value_ = false;
};

}  // namespace edgemt

#define EDGEMT_RETURN_IF_ERROR(expr)              \
  do {                                            \
    ::edgemt::Status edgemt_status_ = (expr);     \
    if (!edgemt_status_.ok()) return edgemt_status_; \
  } while (0)
