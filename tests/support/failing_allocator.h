// Makes one heap allocation of the process fail (malloc and friends return
// null, operator new throws or returns null), to test what EdgeMT does when
// memory runs out: docs/robustness.md promises a status, no crash, no leak.
#pragma once

namespace edgemt::testing {

// False under a sanitizer, which owns malloc: nothing can be made to fail.
bool CanFailAllocations();
// The next `successes` allocations succeed, the one after fails, later ones
// succeed again.
void FailAllocationAfter(long successes);
// Stops the failing; returns whether an allocation failed since FailAllocationAfter.
bool StopFailingAllocations();
// Heap blocks allocated and not yet freed (0 under a sanitizer, whose leak
// checker does this job there): a leak
// check for code that should leave the heap as it found it.
long LiveHeapBlocks();

}  // namespace edgemt::testing
