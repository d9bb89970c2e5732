// std::shared_ptr without std::bad_alloc. A shared_ptr allocates its
// reference counts with operator new, which throws when memory runs out; the
// runtime compiles without exceptions, so that would end the process. Here
// the counts' memory is allocated first with nothrow new and handed to the
// shared_ptr through an allocator: running out gives a null pointer instead.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <utility>

namespace edgemt {
namespace shared_nothrow {

// Room for a shared_ptr's counts, the deleter and this allocator
// (libstdc++: 32 bytes for a stateless deleter, 40 with a captured size).
constexpr size_t kCountBlockBytes = 64;

// Hands out the one block it was given: shared_ptr asks for a single object.
template <typename U>
struct CountBlockAllocator {
  using value_type = U;
  void* block;
  explicit CountBlockAllocator(void* allocated) : block(allocated) {}
  template <typename V>
  CountBlockAllocator(const CountBlockAllocator<V>& other) : block(other.block) {}  // NOLINT: rebinding
  U* allocate(size_t) {
    static_assert(sizeof(U) <= kCountBlockBytes && alignof(U) <= alignof(std::max_align_t),
                  "shared_ptr's counts do not fit kCountBlockBytes");
    return static_cast<U*>(block);
  }
  void deallocate(U* p, size_t) { ::operator delete(static_cast<void*>(p)); }
  template <typename V>
  bool operator==(const CountBlockAllocator<V>& other) const { return block == other.block; }
  template <typename V>
  bool operator!=(const CountBlockAllocator<V>& other) const { return block != other.block; }
};

}  // namespace shared_nothrow

// Shares `pointer` (released with `deleter`); null, with `pointer` already
// released, when there is no memory for the counts. A null `pointer` gives null.
template <typename T, typename Deleter>
std::shared_ptr<T> ShareNothrow(T* pointer, Deleter deleter) {
  if (pointer == nullptr) return nullptr;
  void* block = ::operator new(shared_nothrow::kCountBlockBytes, std::nothrow);
  if (block == nullptr) {
    deleter(pointer);
    return nullptr;
  }
  return std::shared_ptr<T>(pointer, std::move(deleter), shared_nothrow::CountBlockAllocator<T>(block));
}

template <typename T, typename Deleter>
std::shared_ptr<T> ShareNothrow(std::unique_ptr<T, Deleter> owned) {
  Deleter deleter = owned.get_deleter();
  return ShareNothrow(owned.release(), std::move(deleter));
}

}  // namespace edgemt
