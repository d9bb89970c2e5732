// What EdgeMT adds to pthreadpool.
#pragma once

#include <pthread.h>
#include <pthreadpool.h>

#include <cstddef>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EDGEMT_THREAD_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define EDGEMT_THREAD_SANITIZER 1
#endif
#ifdef EDGEMT_THREAD_SANITIZER
#include <sanitizer/tsan_interface.h>
#endif

namespace edgemt {

// Happens-before edges for ThreadSanitizer (nothing in other builds).
#ifdef EDGEMT_THREAD_SANITIZER
inline void TsanRelease(void* address) { __tsan_release(address); }
inline void TsanAcquire(void* address) { __tsan_acquire(address); }
#else
inline void TsanRelease(void*) {}
inline void TsanAcquire(void*) {}
#endif

// After a parallel call, pthreadpool's workers keep spinning for the next one
// (tens of milliseconds). When the caller goes on alone (decoder steps too
// small to split, or between translations), a spinning worker only takes
// from it: from the same physical core on SMT machines, from the power
// budget on phones. This puts the workers to sleep at once (no-op for null).
void ParkWorkers(pthreadpool_t pool);

// Runs body(thread, i) for every i in [0, count): split across the pool
// when `parallel` (thread is then below the pool's thread count, which a
// body uses to pick its scratch), else on the caller as thread 0. Each i must
// write only what is its own.
template <typename Body>
void ParallelFor(pthreadpool_t pool, bool parallel, size_t count, Body& body) {
  if (pool == nullptr || !parallel || count < 2) {
    for (size_t i = 0; i < count; ++i) body(size_t{0}, i);
    return;
  }
  // pthreadpool orders the caller's writes before every task and every task
  // before its return; ThreadSanitizer cannot see that inside the
  // uninstrumented pthreadpool, so it is told (tasks stay unordered among
  // themselves: a race between two of them is still reported).
  struct Run {
    Body* body;
    char started, finished;  // addresses for the annotations
  } run{&body, 0, 0};
  TsanRelease(&run.started);
  pthreadpool_parallelize_1d_with_thread(
      pool,
      [](void* context, size_t thread, size_t i) {
        Run* r = static_cast<Run*>(context);
        TsanAcquire(&r->started);
        (*r->body)(thread, i);
        TsanRelease(&r->finished);
      },
      &run, count, 0);
  TsanAcquire(&run.finished);
}

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
