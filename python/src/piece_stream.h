// A streamed translation running on its own thread: the decoder's pieces
// go into a queue that the consumer (the Python generator) drains. The
// worker never touches Python, so it needs no GIL; only the consumer waits,
// without the GIL. Stopping sets a flag that the piece callback returns, so
// decoding ends at its next piece (TextTranslator::TranslateStreaming).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "edgemt/status.h"
#include "edgemt/text_translator.h"

namespace edgemt_python {

class PieceStream {
 public:
  // Runs one streamed translation, passing each piece to the callback.
  using Run = std::function<edgemt::Status(const edgemt::PieceCallback& on_piece)>;

  // Starts the worker thread (std::system_error if it cannot be started).
  explicit PieceStream(Run run);
  ~PieceStream();  // Stop()
  PieceStream(const PieceStream&) = delete;
  PieceStream& operator=(const PieceStream&) = delete;

  // Waits for the next piece: true with *piece set; false once the
  // translation has ended (or was stopped) and every piece was taken, and
  // then status() says whether it failed.
  bool Next(std::string* piece);
  // Decoding stops at its next piece; returns once the worker has ended.
  // Pieces not taken yet are dropped.
  void Stop();
  edgemt::Status status();

 private:
  bool OnPiece(std::string_view piece);
  void Finish(edgemt::Status status);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> pieces_;  // unbounded: a consumer that pauses never blocks the decoder
  bool stop_ = false;
  bool finished_ = false;
  edgemt::Status status_;
  std::thread worker_;  // last: it starts once everything above exists
};

}  // namespace edgemt_python
