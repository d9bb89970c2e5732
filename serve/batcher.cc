#include "serve/batcher.h"

#include <algorithm>
#include <utility>

namespace edgemt::serve {

struct Batcher::Job {
  const std::vector<std::string>* texts;
  CatalogRequest request;
  std::vector<CatalogResult>* results;
  std::chrono::steady_clock::time_point deadline;
  bool started = false;
  bool finished = false;
  // Its waiter's own: a batch wakes its jobs' threads only, not every
  // connection's (64 at once under load, on two cores).
  std::condition_variable changed;
};

Batcher::Batcher(Catalog& catalog, const BatcherLimits& limits) : catalog_(catalog), limits_(limits) {
  for (int i = 0; i < std::max(1, limits_.workers); ++i) workers_.emplace_back([this] { Work(); });
}

Batcher::~Batcher() {
  Stop();
  for (std::thread& worker : workers_) worker.join();
}

void Batcher::Stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopping_ = true;
  work_.notify_all();
}

size_t Batcher::queued_texts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queued_texts_;
}

bool Batcher::SameBatch(const Job& a, const Job& b) const {
  return a.request.from == b.request.from && a.request.to == b.request.to && a.request.format == b.request.format &&
         a.request.alternatives == b.request.alternatives;
}

Admission Batcher::Translate(const std::vector<std::string>& texts, const CatalogRequest& request,
                             std::vector<CatalogResult>* results) {
  auto job = std::make_shared<Job>();
  job->texts = &texts;
  job->request = request;
  job->results = results;
  job->deadline = std::chrono::steady_clock::now() + limits_.max_wait;
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_) return Admission::kStopping;
  // One request larger than the queue still runs when the queue is empty.
  if (queued_texts_ > 0 && queued_texts_ + texts.size() > limits_.max_queued_texts) return Admission::kQueueFull;
  queue_.push_back(job);
  queued_texts_ += texts.size();
  work_.notify_one();
  if (!job->changed.wait_until(lock, job->deadline, [&job] { return job->started; })) {
    // Still waiting at its deadline: taken out of the queue, not translated.
    queue_.erase(std::find(queue_.begin(), queue_.end(), job));
    queued_texts_ -= texts.size();
    return Admission::kTimedOut;
  }
  job->changed.wait(lock, [&job] { return job->finished; });
  return Admission::kDone;
}

void Batcher::Work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    work_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    std::vector<std::shared_ptr<Job>> batch;
    size_t texts = 0;
    for (auto it = queue_.begin(); it != queue_.end();) {
      const bool fits = batch.empty() || (SameBatch(**it, *batch.front()) &&
                                          texts + (*it)->texts->size() <= limits_.max_batch_texts);
      if (!fits) {
        ++it;
        continue;
      }
      texts += (*it)->texts->size();
      (*it)->started = true;
      batch.push_back(*it);
      it = queue_.erase(it);
    }
    queued_texts_ -= texts;
    for (const auto& job : batch) job->changed.notify_one();  // their waiters stop watching the deadline
    lock.unlock();
    std::vector<std::string> all;
    all.reserve(texts);
    for (const auto& job : batch) all.insert(all.end(), job->texts->begin(), job->texts->end());
    std::vector<CatalogResult> results;
    catalog_.Translate(all.data(), all.size(), batch.front()->request, &results);
    size_t next = 0;
    for (const auto& job : batch) {
      job->results->assign(std::make_move_iterator(results.begin() + static_cast<std::ptrdiff_t>(next)),
                           std::make_move_iterator(results.begin() +
                                                   static_cast<std::ptrdiff_t>(next + job->texts->size())));
      next += job->texts->size();
    }
    lock.lock();
    for (const auto& job : batch) {
      job->finished = true;
      job->changed.notify_one();
    }
  }
}

}  // namespace edgemt::serve
