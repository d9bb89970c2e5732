// Requests waiting for translation, batched: a worker takes the oldest
// request and every other waiting one with the same languages and format,
// and translates their texts in one Catalog call (the text layer sorts and
// batches them), so that many small concurrent requests cost about what one
// batched call does. The queue is bounded; a request that waited too long
// is answered without being translated.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "edgemt/catalog.h"

namespace edgemt::serve {

struct BatcherLimits {
  int workers = 1;                  // translations at once (each uses the model's threads)
  size_t max_queued_texts = 1024;   // more waiting: kQueueFull
  size_t max_batch_texts = 64;      // texts one Catalog call takes
  std::chrono::milliseconds max_wait{30000};  // in the queue; longer: kTimedOut
};

enum class Admission { kDone, kQueueFull, kTimedOut, kStopping };

class Batcher {
 public:
  Batcher(Catalog& catalog, const BatcherLimits& limits);
  ~Batcher();  // Stop(), then the workers are joined
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Blocks until the texts are translated (kDone: results filled) or not.
  Admission Translate(const std::vector<std::string>& texts, const CatalogRequest& request,
                      std::vector<CatalogResult>* results);
  // Refuses new requests (kStopping); those waiting and running finish.
  void Stop();
  size_t queued_texts() const;

 private:
  struct Job;
  void Work();
  bool SameBatch(const Job& a, const Job& b) const;

  Catalog& catalog_;
  BatcherLimits limits_;
  mutable std::mutex mutex_;
  std::condition_variable work_;  // a job came, or stopping
  std::deque<std::shared_ptr<Job>> queue_;
  size_t queued_texts_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace edgemt::serve
