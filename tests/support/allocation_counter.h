// Counts heap allocations (malloc and friends, which operator new uses) made
// by any code in the process between Start and Stop.
#pragma once

#include <cstddef>

namespace edgemt::testing {

void StartCountingAllocations();
// The number of allocations since StartCountingAllocations.
size_t StopCountingAllocations();

}  // namespace edgemt::testing
