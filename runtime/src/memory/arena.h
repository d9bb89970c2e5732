// Activation memory planned once: named buffers get offsets in one block.
// Buffers added after BeginPhase() share memory with the buffers of other
// phases (the encoder's scratch is dead once decoding starts), persistent
// buffers added before the first phase never overlap anything.
//
// A plan runs twice: once to measure (slots are set to null), then, after
// Bind(base), again to point every slot into the block. The layout keeps no
// list of slots, so planning allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgemt {

class ArenaLayout {
 public:
  static constexpr size_t kAlignment = 64;

  template <typename T>
  void Add(T** slot, size_t count) {
    AddBytes(reinterpret_cast<void**>(slot), count * sizeof(T));
  }

  // Starts a phase: its buffers begin where the persistent ones end.
  void BeginPhase() {
    if (!in_phase_) persistent_end_ = cursor_;
    in_phase_ = true;
    cursor_ = persistent_end_;
  }

  size_t total_bytes() const { return total_; }

  // The slots of the plan run next point into `base` (kAlignment-aligned,
  // total_bytes() long); the plan must add the same buffers as the last run.
  void Bind(uint8_t* base) {
    base_ = base;
    cursor_ = 0;
    persistent_end_ = 0;
    in_phase_ = false;
  }
  bool bound() const { return base_ != nullptr; }

 private:
  void AddBytes(void** slot, size_t bytes) {
    *slot = base_ == nullptr ? nullptr : base_ + cursor_;
    cursor_ += (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (cursor_ > total_) total_ = cursor_;
  }

  uint8_t* base_ = nullptr;
  size_t cursor_ = 0;
  size_t persistent_end_ = 0;
  size_t total_ = 0;
  bool in_phase_ = false;
};

}  // namespace edgemt
