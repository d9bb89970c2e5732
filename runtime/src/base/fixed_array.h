// Arrays allocated once with nothrow new: what the runtime uses instead of
// std::vector where memory may run out. Without exceptions a std::vector
// that cannot grow ends the process; Allocate returns false instead.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace edgemt {

template <typename T>
class FixedArray {
 public:
  // `count` value-initialized elements, replacing any held before; false
  // (and empty) when memory runs out.
  bool Allocate(size_t count) {
    items_.reset(count == 0 ? nullptr : new (std::nothrow) T[count]());
    size_ = items_ ? count : 0;
    return count == 0 || items_ != nullptr;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return items_[i]; }
  const T& operator[](size_t i) const { return items_[i]; }
  T* data() { return items_.get(); }
  const T* data() const { return items_.get(); }
  T* begin() { return items_.get(); }
  T* end() { return items_.get() + size_; }
  const T* begin() const { return items_.get(); }
  const T* end() const { return items_.get() + size_; }

 private:
  std::unique_ptr<T[]> items_;
  size_t size_ = 0;
};

// Elements appended in order up to a capacity allocated once: a
// std::vector's push_back where memory may run out.
template <typename T>
class BoundedList {
 public:
  // Room for `capacity` elements, emptying the list; false when memory runs out.
  bool Allocate(size_t capacity) {
    size_ = 0;
    return items_.Allocate(capacity);
  }
  // False, appending nothing, when the list is full.
  bool push_back(const T& item) {
    if (size_ == items_.size()) return false;
    items_[size_++] = item;
    return true;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return items_[i]; }
  const T& operator[](size_t i) const { return items_[i]; }
  T* begin() { return items_.begin(); }
  T* end() { return items_.begin() + size_; }
  const T* begin() const { return items_.begin(); }
  const T* end() const { return items_.begin() + size_; }

 private:
  FixedArray<T> items_;
  size_t size_ = 0;
};

}  // namespace edgemt
