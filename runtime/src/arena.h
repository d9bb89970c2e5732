// Activation memory planned once: named buffers get offsets in one block.
// Buffers added after BeginPhase() share memory with the buffers of other
// phases (the encoder's scratch is dead once decoding starts), persistent
// buffers added before the first phase never overlap anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

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

  // Points every slot into `base` (kAlignment-aligned, total_bytes() long).
  void Bind(uint8_t* base) const {
    for (const Entry& entry : entries_) *entry.slot = base + entry.offset;
  }

 private:
  struct Entry {
    void** slot;
    size_t offset;
  };

  void AddBytes(void** slot, size_t bytes) {
    entries_.push_back({slot, cursor_});
    cursor_ += (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (cursor_ > total_) total_ = cursor_;
  }

  std::vector<Entry> entries_;
  size_t cursor_ = 0;
  size_t persistent_end_ = 0;
  size_t total_ = 0;
  bool in_phase_ = false;
};

}  // namespace edgemt
