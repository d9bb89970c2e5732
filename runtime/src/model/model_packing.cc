#include "model/model_packing.h"

#include "ops/linear.h"
#include "packing/packed_file.h"

namespace edgemt {

ModelPacking::ModelPacking(const ModelBytes& bytes, size_t capacity)
    : bytes_(bytes), store_(bytes.data, capacity) {}

void ModelPacking::ReadCacheFile(const std::string& path, const std::string& key, Outcome* outcome) {
  std::lock_guard<std::mutex> lock(file_mutex_);
  if (store_.entry_count() == 0) {
    Status loaded = LoadPackedCache(path, key, &store_);
    if (loaded.ok()) saved_entries_ = store_.entry_count();
    if (loaded.code() != StatusCode::kNotFound) outcome->cache_status = loaded;
  }
  outcome->cache_loaded = store_.has_mapping();
}

// Written when the file lacks layers this process packed (no file, a stale
// or corrupt one, or one from before a layer was added).
void ModelPacking::WriteCacheFile(const std::string& path, const std::string& key, Outcome* outcome) {
  std::lock_guard<std::mutex> lock(file_mutex_);
  if (saved_entries_ == store_.entry_count()) return;
  const Status written = WritePackedCache(path, key, store_);
  Status& reported = outcome->cache_status;  // why the file was not used, if it was not
  if (written.ok()) {
    saved_entries_ = store_.entry_count();
    if (!reported.ok()) reported = Status(reported.code(), reported.message() + "; packed the weights and replaced it");
  } else {
    reported = reported.ok() ? written : Status(written.code(), reported.message() + "; " + written.message());
  }
}

Status ModelPacking::Pack(const LinearOpList& linears, const std::string& cache_dir,
                          const std::function<Status(pthreadpool_t*)>& take_pool, Outcome* outcome) {
  std::string key, path;
  if (!cache_dir.empty()) {
    key = PackedFileKey(bytes_.Identity());
    path = PackedFilePath(cache_dir, key);
    ReadCacheFile(path, key, outcome);
  }
  pthreadpool_t pool = nullptr;
  EDGEMT_RETURN_IF_ERROR(take_pool(&pool));
  // Finding a packed layer takes microseconds: the pool only pays for
  // packing (waking a worker can cost the caller a scheduler tick).
  bool all_packed = true;
  for (const LinearOp* linear : linears)
    all_packed = all_packed && store_.Contains(store_.LayerId(linear->parts(), linear->kind()));
  // The file and the packed copies are never resident together. Weights
  // also read in place (the embeddings, which a tied projection shares)
  // come back page by page, only where they are used.
  EDGEMT_RETURN_IF_ERROR(PackLinears(linears, &store_, all_packed ? nullptr : pool, [this](const LinearOp& linear) {
    for (const LinearView& part : linear.parts()) bytes_.ReleasePages(part.weight.data, part.weight.bytes());
  }));
  if (!cache_dir.empty()) WriteCacheFile(path, key, outcome);
  return Status::Ok();
}

}  // namespace edgemt
