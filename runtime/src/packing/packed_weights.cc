#include "packing/packed_weights.h"

#include <cstdint>
#include <cstring>
#include <new>

namespace edgemt {
namespace {

constexpr size_t kNotFound = SIZE_MAX;  // what xnnpack.h says a miss returns

// The Packing scope of this thread: XNNPACK calls the provider on the
// thread that creates the operator, so this says which layer it packs.
thread_local PackedWeights::Packing* current_packing = nullptr;

uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

uint64_t Fingerprint64(const void* data, size_t size, uint64_t seed) {
  // Four independent lanes, so that the loop runs at memory speed.
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint64_t lane[4] = {seed ^ 0x9e3779b97f4a7c15ULL, seed + 0x632be59bd9b4e019ULL, ~seed, seed * 3 + 1};
  size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    for (int k = 0; k < 4; ++k) {
      uint64_t word;
      std::memcpy(&word, p + i + 8 * k, 8);
      lane[k] = (lane[k] ^ word) * 0x100000001b3ULL;
      lane[k] = (lane[k] << 29) | (lane[k] >> 35);
    }
  }
  uint64_t h = Mix(size ^ seed);
  for (int k = 0; k < 4; ++k) h = Mix(h ^ lane[k]);
  for (; i < size; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return Mix(h);
}

PackedWeights::PackedWeights(const void* model_base, size_t capacity)
    : model_base_(static_cast<const uint8_t*>(model_base)),
      entries_(new (std::nothrow) Entry[capacity]) {
  // Without memory for its lists the store holds nothing: each translator
  // then packs its own copy.
  capacity_ = entries_ ? capacity : 0;
  provider_.context = this;
  provider_.look_up = LookUp;
  provider_.reserve_space = ReserveSpace;
  provider_.look_up_or_insert = LookUpOrInsert;
  provider_.is_finalized = IsFinalized;
  provider_.offset_to_addr = OffsetToAddr;
  provider_.delete_cache = DeleteCache;
}

PackedWeights::~PackedWeights() = default;

uint64_t PackedWeights::LayerId(const LinearParts& parts, WeightType runs_in) const {
  uint64_t id = Mix(runs_in == WeightType::kInt8 ? 0x1A7 : runs_in == WeightType::kInt4 ? 0x1A4 : 0xF32);
  for (const LinearView& part : parts) {
    const uint8_t* weight = static_cast<const uint8_t*>(part.weight.data);
    const uint8_t* bias = reinterpret_cast<const uint8_t*>(part.bias);
    // Offsets in the file: the same in every process that maps it.
    const uint64_t fields[] = {static_cast<uint64_t>(weight - model_base_),
                               bias == nullptr ? ~uint64_t{0} : static_cast<uint64_t>(bias - model_base_),
                               static_cast<uint64_t>(part.weight.rows), static_cast<uint64_t>(part.weight.cols),
                               static_cast<uint64_t>(part.weight.type),
                               static_cast<uint64_t>(part.weight.block_size)};
    for (uint64_t field : fields) id = Mix(id ^ field) + 0x9e3779b97f4a7c15ULL;
  }
  return id;
}

size_t PackedWeights::FindLocked(uint64_t layer, uint32_t seed) const {
  const size_t count = count_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < count; ++i) {
    if (entries_[i].layer == layer && entries_[i].seed == seed) return i;
  }
  return kNotFound;
}

bool PackedWeights::Contains(uint64_t layer) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t count = count_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < count; ++i) {
    if (entries_[i].layer == layer) return true;
  }
  return false;
}

PackedWeights::Packing::Packing(PackedWeights* store, uint64_t layer, bool probe)
    : store_(store), layer_(layer), probe_(probe), previous_(current_packing) {
  if (store_ != nullptr) {
    std::lock_guard<std::mutex> lock(store_->mutex_);
    // A slot for what this create may insert, so that an insert never fails.
    if (store_->count_.load(std::memory_order_relaxed) + store_->pending_ < store_->capacity_) {
      ++store_->pending_;
      active_ = true;
    }
  }
  current_packing = this;
}

PackedWeights::Packing::~Packing() {
  current_packing = previous_;
  if (reserved_ != nullptr) store_->regions_.GiveBack(reserved_, reserved_bytes_);  // the create failed after packing
  if (active_) {
    std::lock_guard<std::mutex> lock(store_->mutex_);
    --store_->pending_;
  }
}

size_t PackedWeights::LookUp(void* context, const xnn_weights_cache_look_up_key* key) {
  auto* store = static_cast<PackedWeights*>(context);
  Packing* packing = current_packing;
  if (packing == nullptr || packing->store_ != store || !packing->active_) return kNotFound;
  std::lock_guard<std::mutex> lock(store->mutex_);
  return store->FindLocked(packing->layer_, key->seed);
}

void* PackedWeights::ReserveSpace(void* context, size_t bytes) {
  Packing* packing = current_packing;
  if (packing == nullptr || packing->store_ != context || !packing->active_) return nullptr;
  if (packing->probe_) {
    packing->refused_ = true;
    return nullptr;
  }
  auto* store = static_cast<PackedWeights*>(context);
  if (packing->reserved_ != nullptr) store->regions_.GiveBack(packing->reserved_, packing->reserved_bytes_);
  packing->reserved_ = store->regions_.Allocate(bytes);
  packing->reserved_bytes_ = packing->reserved_ != nullptr ? bytes : 0;
  return packing->reserved_;
}

size_t PackedWeights::LookUpOrInsert(void* context, const xnn_weights_cache_look_up_key* key, void* ptr,
                                     size_t size) {
  auto* store = static_cast<PackedWeights*>(context);
  Packing* packing = current_packing;
  // XNNPACK does not check this call's result: it must always succeed. It
  // can, because only a Packing with a slot reserves space to insert from.
  std::lock_guard<std::mutex> lock(store->mutex_);
  packing->reserved_ = nullptr;
  const size_t found = store->FindLocked(packing->layer_, key->seed);
  if (found != kNotFound) {  // another translator packed it meanwhile
    store->regions_.GiveBack(ptr, packing->reserved_bytes_);
    return found;
  }
  const size_t index = store->count_.load(std::memory_order_relaxed);
  store->entries_[index] = Entry{packing->layer_, key->seed, ptr, size};
  ++store->packed_here_;
  store->count_.store(index + 1, std::memory_order_release);
  return index;
}

// XNNPACK runs an operator only once its cache is "finalized", i.e. its
// packed weights will not move. Ours never move: an entry stays where it
// was packed or mapped until the Model is destroyed.
bool PackedWeights::IsFinalized(void*) { return true; }

void* PackedWeights::OffsetToAddr(void* context, size_t offset) {
  auto* store = static_cast<PackedWeights*>(context);
  if (offset >= store->count_.load(std::memory_order_acquire)) return nullptr;
  return const_cast<void*>(store->entries_[offset].data);
}

xnn_status PackedWeights::DeleteCache(void*) { return xnn_status_success; }  // the Model owns the store

bool PackedWeights::AdoptMapped(std::shared_ptr<const void> mapping, const std::vector<Entry>& entries) {
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t count = count_.load(std::memory_order_relaxed);
  if (count != 0 || mapping_ != nullptr || pending_ + entries.size() > capacity_) return false;
  for (size_t i = 0; i < entries.size(); ++i) entries_[count + i] = entries[i];
  mapping_ = std::move(mapping);
  count_.store(count + entries.size(), std::memory_order_release);
  return true;
}

bool PackedWeights::has_mapping() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return mapping_ != nullptr;
}

std::vector<PackedWeights::Entry> PackedWeights::Snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t count = count_.load(std::memory_order_relaxed);
  return std::vector<Entry>(entries_.get(), entries_.get() + count);
}

size_t PackedWeights::packed_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t bytes = 0;
  const size_t count = count_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < count; ++i) bytes += entries_[i].size;
  return bytes;
}

size_t PackedWeights::packed_here() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return packed_here_;
}

}  // namespace edgemt
