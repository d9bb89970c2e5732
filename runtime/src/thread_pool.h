// What EdgeMT adds to pthreadpool.
#pragma once

#include <pthread.h>
#include <pthreadpool.h>

#include <cstddef>

namespace edgemt {

// After a parallel call, pthreadpool's workers keep spinning for the next one
// (tens of milliseconds). When the caller goes on alone (decoder steps too
// small to split, or between translations), a spinning worker only takes
// from it: from the same physical core on SMT machines, from the power
// budget on phones. This puts the workers to sleep at once (no-op for null).
void ParkWorkers(pthreadpool_t pool);

// Runs body(thread, i) for every i in [0, count): split across the pool
// when `parallel` (thread is then 0..PoolThreads(pool) - 1, which a body
// uses to pick its scratch), else on the caller as thread 0. Each i must
// write only what is its own.
template <typename Body>
void ParallelFor(pthreadpool_t pool, bool parallel, size_t count, Body& body) {
  if (pool == nullptr || !parallel || count < 2) {
    for (size_t i = 0; i < count; ++i) body(size_t{0}, i);
    return;
  }
  pthreadpool_parallelize_1d_with_thread(
      pool, [](void* context, size_t thread, size_t i) { (*static_cast<Body*>(context))(thread, i); }, &body, count,
      0);
}

// The threads a pool runs tasks on (1 for null): the caller and its workers.
inline size_t PoolThreads(pthreadpool_t pool) { return pool == nullptr ? 1 : pthreadpool_get_threads_count(pool); }

// Creates a pool of `threads` on a helper thread while the caller goes on:
// pthreadpool_create returns only once its workers run, which took 8 ms
// here (a scheduler tick: they start on the creator's core), as long as
// loading a model from a packed cache. Take() waits for it.
class PoolStarter {
 public:
  explicit PoolStarter(size_t threads);
  ~PoolStarter();  // destroys a pool nobody took
  PoolStarter(const PoolStarter&) = delete;
  PoolStarter& operator=(const PoolStarter&) = delete;
  // The pool, or null when it could not be created.
  pthreadpool_t Take();

 private:
  static void* Run(void* self);
  size_t threads_;
  pthreadpool_t pool_ = nullptr;
  bool started_ = false;  // the helper thread runs (else Take creates the pool)
  bool taken_ = false;
  pthread_t thread_;
};

}  // namespace edgemt
