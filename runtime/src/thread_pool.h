// What EdgeMT adds to pthreadpool.
#pragma once

#include <pthreadpool.h>

namespace edgemt {

// After a parallel call, pthreadpool's workers keep spinning for the next one
// (tens of milliseconds). When the caller goes on alone (decoder steps too
// small to split, or between translations), a spinning worker only takes
// from it: from the same physical core on SMT machines, from the power
// budget on phones. This puts the workers to sleep at once (no-op for null).
void ParkWorkers(pthreadpool_t pool);

}  // namespace edgemt
