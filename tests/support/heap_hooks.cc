// The test programs' hooks into the heap: the allocation counter
// (allocation_counter.h) and the failing allocator (failing_allocator.h).
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include <sys/syscall.h>
#include <unistd.h>

#include "allocation_counter.h"
#include "failing_allocator.h"

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
// The allocations still to succeed before one fails; negative: none fails.
std::atomic<long> failing_in{-1};
std::atomic<long> live_blocks{0};

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
// glibc: this executable's malloc family interposes every library's calls,
// operator new's included.
namespace {
// Whether this allocation is the one to fail.
inline bool FailThis() {
  if (failing_in.load(std::memory_order_relaxed) < 0) return false;
  return failing_in.fetch_sub(1) == 0;
}
inline void* Born(void* p) {
  if (p != nullptr) live_blocks.fetch_add(1, std::memory_order_relaxed);
  return p;
}
}  // namespace

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);

void* malloc(size_t size) {
  Note();
  if (FailThis()) return nullptr;
  return Born(__libc_malloc(size));
}
void* calloc(size_t count, size_t size) {
  Note();
  if (FailThis()) return nullptr;
  return Born(__libc_calloc(count, size));
}
void* realloc(void* p, size_t size) {
  Note();
  if (FailThis()) return nullptr;
  void* moved = __libc_realloc(p, size);
  if (p == nullptr) return Born(moved);
  if (size == 0 && moved == nullptr) live_blocks.fetch_sub(1, std::memory_order_relaxed);
  return moved;
}
void* memalign(size_t alignment, size_t size) {
  Note();
  if (FailThis()) return nullptr;
  return Born(__libc_memalign(alignment, size));
}
void* aligned_alloc(size_t alignment, size_t size) {
  Note();
  if (FailThis()) return nullptr;
  return Born(__libc_memalign(alignment, size));
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  Note();
  if (FailThis()) return ENOMEM;
  void* p = Born(__libc_memalign(alignment, size));
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
void free(void* p) {
  if (p != nullptr) live_blocks.fetch_sub(1, std::memory_order_relaxed);
  __libc_free(p);
}

#if defined(__x86_64__) || defined(__aarch64__)
// Anonymous mappings are memory too: EdgeMT maps the packed weights' huge
// pages itself (runtime/src/memory/page_memory.h). glibc's own mmap calls (malloc's,
// thread stacks') do not come here. Where off_t is 64 bits only, so that this
// signature is mmap's, and mmap64 the same function.
void* mmap(void* address, size_t length, int protection, int flags, int fd, long offset) {
  if ((flags & 0x20) != 0) {  // MAP_ANONYMOUS on both
    Note();
    if (FailThis()) {
      errno = ENOMEM;
      return reinterpret_cast<void*>(-1);  // MAP_FAILED
    }
  }
  return reinterpret_cast<void*>(syscall(SYS_mmap, address, length, protection, flags, fd, offset));
}
void* mmap64(void* address, size_t length, int protection, int flags, int fd, long offset) {
  return mmap(address, length, protection, flags, fd, offset);
}
#endif
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

bool CanFailAllocations() {
#ifdef EDGEMT_UNDER_SANITIZER
  return false;
#else
  return true;
#endif
}

void FailAllocationAfter(long successes) { failing_in.store(successes); }

bool StopFailingAllocations() {
  const bool failed = failing_in.load() < 0;
  failing_in.store(-1);
  return failed;
}

long LiveHeapBlocks() { return live_blocks.load(); }

}  // namespace edgemt::testing
