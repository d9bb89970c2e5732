#include "allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <cerrno>
#include <cstring>

// Under AddressSanitizer or ThreadSanitizer the sanitizer owns malloc.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define EDGEMT_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define EDGEMT_UNDER_SANITIZER 1
#endif
#endif

namespace {
std::atomic<bool> counting{false};
std::atomic<size_t> allocations{0};
inline void Note() {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#ifdef EDGEMT_UNDER_SANITIZER
// The sanitizer's allocator calls these hooks for every allocation.
#include <sanitizer/allocator_interface.h>
namespace {
void MallocHook(const volatile void*, size_t) { Note(); }
void FreeHook(const volatile void*) {}
struct InstallHooks {
  InstallHooks() { __sanitizer_install_malloc_and_free_hooks(MallocHook, FreeHook); }
} install_hooks;
}  // namespace
#else
// glibc: this executable's malloc family interposes every library's calls.
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);

void* malloc(size_t size) {
  Note();
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  Note();
  return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) {
  Note();
  return __libc_realloc(p, size);
}
void* memalign(size_t alignment, size_t size) {
  Note();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  Note();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  Note();
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}
#endif

namespace edgemt::testing {

void StartCountingAllocations() {
  allocations.store(0);
  counting.store(true);
}

size_t StopCountingAllocations() {
  counting.store(false);
  return allocations.load();
}

}  // namespace edgemt::testing
