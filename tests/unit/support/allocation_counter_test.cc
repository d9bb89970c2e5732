#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "allocation_counter.h"

TEST_CASE("the allocation counter sees operator new and malloc") {
  edgemt::testing::StartCountingAllocations();
  auto value = std::make_unique<std::string>(100, 'x');
  void* block = std::malloc(64);
  const size_t counted = edgemt::testing::StopCountingAllocations();
  std::free(block);
  CHECK(value->size() == 100);
  CHECK(counted >= 2);
}
