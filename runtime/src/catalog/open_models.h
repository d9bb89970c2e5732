// The models of a set that are open: each opened on first use, the least
// recently used idle ones closed to keep their cost within a budget.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "edgemt/catalog.h"
#include "edgemt/model.h"
#include "edgemt/status.h"
#include "edgemt/text_translator.h"

namespace edgemt {

class OpenModels {
 public:
  OpenModels(const std::vector<CatalogModel>& models, const CatalogOptions& options);
  ~OpenModels();
  OpenModels(const OpenModels&) = delete;
  OpenModels& operator=(const OpenModels&) = delete;

  // A model held open while a translation uses it.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    ~Lease();
    TextTranslator& translator() const { return *translator_; }
    // The model's own decoding (beam size, length limit, length penalty).
    const DecodeOptions& decode() const { return *decode_; }

   private:
    friend class OpenModels;
    OpenModels* owner_ = nullptr;
    size_t index_ = 0;
    TextTranslator* translator_ = nullptr;
    const DecodeOptions* decode_ = nullptr;
  };

  // Opens model `index` unless it is open (another thread opening it is
  // waited for); a failure to open is returned and tried again next time.
  Result<Lease> Acquire(size_t index);
  CatalogStats stats() const;

 private:
  struct Slot {
    std::shared_ptr<const Model> model;
    std::unique_ptr<TextTranslator> translator;
    DecodeOptions decode;
    size_t cost = 0;  // as the budget counts it (CostOf)
    int users = 0;
    bool opening = false;
    uint64_t last_used = 0;
  };

  void Release(size_t index);
  Status OpenSlot(size_t index, Slot* slot) const;
  // Closes idle models, least recently used first, until `incoming` more
  // bytes fit in the budget (or no idle model is left). mutex_ held.
  void MakeRoom(size_t incoming);
  void CountOpenBytes();  // mutex_ held

  std::vector<CatalogModel> models_;
  CatalogOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable opened_;
  std::vector<Slot> slots_;
  uint64_t clock_ = 0;
  CatalogStats stats_;
};

}  // namespace edgemt
