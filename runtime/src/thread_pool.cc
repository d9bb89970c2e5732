#include "thread_pool.h"

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

}  // namespace edgemt
