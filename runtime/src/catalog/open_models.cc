#include "catalog/open_models.h"

#include <algorithm>
#include <climits>
#include <utility>

namespace edgemt {
namespace {

// What an open model costs: its mapped file, the weights packed from it and
// its translator's arena. An upper bound: the packing gives the mapped
// pages of the packed layers back to the OS.
size_t CostOf(const Model& model, const TextTranslator& translator) {
  return model.file_size() + model.packed_bytes() + translator.arena_bytes();
}

}  // namespace

OpenModels::OpenModels(const std::vector<CatalogModel>& models, const CatalogOptions& options)
    : models_(models), options_(options), slots_(models.size()) {}

OpenModels::~OpenModels() = default;

OpenModels::Lease::Lease(Lease&& other) noexcept { *this = std::move(other); }

OpenModels::Lease& OpenModels::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr) owner_->Release(index_);
    owner_ = std::exchange(other.owner_, nullptr);
    index_ = other.index_;
    translator_ = std::exchange(other.translator_, nullptr);
    decode_ = std::exchange(other.decode_, nullptr);
  }
  return *this;
}

OpenModels::Lease::~Lease() {
  if (owner_ != nullptr) owner_->Release(index_);
}

Status OpenModels::OpenSlot(size_t index, Slot* slot) const {
  Result<std::shared_ptr<const Model>> model =
      models_[index].loaded != nullptr ? Result<std::shared_ptr<const Model>>(models_[index].loaded)
                                       : Model::Load(models_[index].path);
  if (!model.ok()) return model.status();
  const ModelConfig& config = model.value()->config();
  TextTranslatorOptions text_options = options_.translator;
  TranslatorOptions& limits = text_options.translator;
  limits.max_beam_size = std::max(ModelMaxBeamSize(config), options_.max_alternatives + 1);
  limits.max_target_length = ModelDecodeDefaults(config, INT_MAX).max_length;
  Result<std::unique_ptr<TextTranslator>> translator = TextTranslator::Create(model.value(), text_options);
  if (!translator.ok()) return translator.status();
  if (!translator.value()->has_tokenizer()) return translator.value()->tokenizer_status();
  slot->decode = ModelDecodeDefaults(config, limits.max_beam_size);
  slot->model = std::move(model.value());
  slot->translator = std::move(translator.value());
  slot->cost = CostOf(*slot->model, *slot->translator);
  return Status::Ok();
}

Result<OpenModels::Lease> OpenModels::Acquire(size_t index) {
  std::unique_lock<std::mutex> lock(mutex_);
  Slot& slot = slots_[index];
  opened_.wait(lock, [&slot] { return !slot.opening; });
  if (slot.translator == nullptr) {
    // An estimate until it is open: the file, and its packed weights about as large.
    MakeRoom(static_cast<size_t>(models_[index].file_size) * 2);
    slot.opening = true;
    lock.unlock();
    Slot opened;
    const Status status = OpenSlot(index, &opened);
    lock.lock();
    slot.opening = false;
    opened_.notify_all();
    if (!status.ok()) return status;
    slot.model = std::move(opened.model);
    slot.translator = std::move(opened.translator);
    slot.decode = opened.decode;
    slot.cost = opened.cost;
    ++stats_.opens;
    CountOpenBytes();
  }
  ++slot.users;
  slot.last_used = ++clock_;
  Lease lease;
  lease.owner_ = this;
  lease.index_ = index;
  lease.translator_ = slot.translator.get();
  lease.decode_ = &slot.decode;
  return lease;
}

void OpenModels::Release(size_t index) {
  std::lock_guard<std::mutex> lock(mutex_);
  Slot& slot = slots_[index];
  --slot.users;
  slot.cost = CostOf(*slot.model, *slot.translator);  // its arena may have grown
  CountOpenBytes();
  MakeRoom(0);
}

void OpenModels::MakeRoom(size_t incoming) {
  if (options_.memory_budget_bytes == 0) return;
  while (stats_.open_bytes + incoming > options_.memory_budget_bytes) {
    Slot* oldest = nullptr;
    for (Slot& slot : slots_) {
      if (slot.translator != nullptr && slot.users == 0 && (oldest == nullptr || slot.last_used < oldest->last_used))
        oldest = &slot;
    }
    if (oldest == nullptr) return;  // every open model is in use
    // The last model used stays when it alone is over the budget and nothing is coming.
    if (incoming == 0 && stats_.open_models == 1) return;
    oldest->translator.reset();
    oldest->model.reset();
    oldest->cost = 0;
    ++stats_.closes;
    CountOpenBytes();
  }
}

void OpenModels::CountOpenBytes() {
  stats_.open_models = 0;
  stats_.open_bytes = 0;
  for (const Slot& slot : slots_) {
    if (slot.translator == nullptr) continue;
    ++stats_.open_models;
    stats_.open_bytes += slot.cost;
  }
  stats_.peak_open_bytes = std::max(stats_.peak_open_bytes, stats_.open_bytes);
}

CatalogStats OpenModels::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace edgemt
