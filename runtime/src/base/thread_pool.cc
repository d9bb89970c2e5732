#include "base/thread_pool.h"

namespace edgemt {
namespace {

void Nothing(void*, size_t) {}

}  // namespace

void ParkWorkers(pthreadpool_t pool) {
  if (pool == nullptr) return;
  // One item per thread, so that every worker takes the command and then,
  // as the flag says, waits in the kernel instead of spinning.
  pthreadpool_parallelize_1d(pool, Nothing, nullptr, pthreadpool_get_threads_count(pool),
                             PTHREADPOOL_FLAG_YIELD_WORKERS);
}

PoolStarter::PoolStarter(size_t threads) : threads_(threads) {
  started_ = pthread_create(&thread_, nullptr, Run, this) == 0;
}

void* PoolStarter::Run(void* self) {
  auto* starter = static_cast<PoolStarter*>(self);
  starter->pool_ = pthreadpool_create(starter->threads_);
  return nullptr;
}

pthreadpool_t PoolStarter::Take() {
  if (taken_) return nullptr;
  taken_ = true;
  if (started_) {
    pthread_join(thread_, nullptr);  // orders the helper's write of pool_ before this read
    started_ = false;
  } else {
    pool_ = pthreadpool_create(threads_);
  }
  return pool_;
}

PoolStarter::~PoolStarter() {
  if (!taken_) {
    pthreadpool_t pool = Take();
    if (pool != nullptr) pthreadpool_destroy(pool);
  }
}

}  // namespace edgemt
