#include "piece_stream.h"

#include <exception>
#include <new>
#include <utility>

namespace edgemt_python {

PieceStream::PieceStream(Run run)
    : worker_([this, run = std::move(run)] {
        edgemt::Status status;
        try {
          status = run([this](std::string_view piece) { return OnPiece(piece); });
        } catch (const std::exception& e) {  // an exception must not leave a std::thread
          status = edgemt::Status(edgemt::StatusCode::kInternal, e.what());
        }
        Finish(std::move(status));
      }) {}

PieceStream::~PieceStream() { Stop(); }

bool PieceStream::OnPiece(std::string_view piece) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stop_) return false;
  try {
    pieces_.emplace_back(piece);
  } catch (const std::bad_alloc&) {  // the callback must not throw: stop with a status instead
    status_ = edgemt::Status(edgemt::StatusCode::kResourceExhausted, "out of memory while streaming");
    stop_ = true;
    return false;
  }
  changed_.notify_one();
  return true;
}

void PieceStream::Finish(edgemt::Status status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_.ok()) status_ = std::move(status);
  finished_ = true;
  changed_.notify_one();
}

bool PieceStream::Next(std::string* piece) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !pieces_.empty() || finished_; });
  if (pieces_.empty()) return false;
  *piece = std::move(pieces_.front());
  pieces_.pop_front();
  return true;
}

void PieceStream::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    pieces_.clear();
  }
  if (worker_.joinable()) worker_.join();
}

edgemt::Status PieceStream::status() {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

}  // namespace edgemt_python
