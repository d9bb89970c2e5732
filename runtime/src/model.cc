#include "edgemt/model.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "edgemt_generated.h"
#include "mapped_file.h"
#include "model_reader.h"
#include "model_weights.h"
#include "packed_weights.h"

namespace edgemt {

// The model file's bytes: a read-only memory map, or a caller's buffer.
struct Model::Storage {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const uint8_t> mapping;  // a mapped file; null for a caller's buffer
  // A mapped file's identity, for packed-cache keys: device, inode, size,
  // modification and change times (any write to the file changes them).
  std::string file_identity;
};

Model::Model(std::unique_ptr<Storage> storage, std::unique_ptr<ModelWeights> weights,
             std::unique_ptr<PackedWeights> packed)
    : storage_(std::move(storage)), weights_(std::move(weights)), packed_(std::move(packed)) {}

Model::~Model() = default;

Result<std::shared_ptr<const Model>> Model::Load(const std::string& path) {
  MappedFile file = MapReadOnly(path);
  switch (file.failure) {
    case MappedFile::Failure::kNone:
      break;
    case MappedFile::Failure::kOpen:
      return Status(StatusCode::kNotFound, "cannot open " + path + ": " + std::strerror(file.error));
    case MappedFile::Failure::kNotRegular:
      return Status(StatusCode::kNotFound, path + " is not a regular file");
    case MappedFile::Failure::kEmpty:
      return Status(StatusCode::kInvalidModel, path + ": the file is empty");
    case MappedFile::Failure::kMap:
      return Status(StatusCode::kResourceExhausted, "cannot map " + path + ": " + std::strerror(file.error));
  }
  auto storage = std::unique_ptr<Storage>(new (std::nothrow) Storage);
  if (!storage) return Status(StatusCode::kResourceExhausted, "out of memory");
  const struct stat& info = file.info;
  storage->data = file.data.get();
  storage->size = file.size;
  storage->mapping = std::move(file.data);
  storage->file_identity = "file " + std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino) + " " +
                           std::to_string(info.st_size) + " " + std::to_string(info.st_mtim.tv_sec) + "." +
                           std::to_string(info.st_mtim.tv_nsec) + " " + std::to_string(info.st_ctim.tv_sec) + "." +
                           std::to_string(info.st_ctim.tv_nsec);
  Result<std::shared_ptr<const Model>> model = FromStorage(std::move(storage));
  if (!model.ok()) return Status(model.status().code(), path + ": " + model.status().message());
  return model;
}

Result<std::shared_ptr<const Model>> Model::FromBuffer(const void* data, size_t size) {
  if (data == nullptr || size == 0) return Status(StatusCode::kInvalidModel, "the buffer is empty");
  if (reinterpret_cast<uintptr_t>(data) % 64 != 0)
    return Status(StatusCode::kInvalidArgument, "the model buffer must be 64-byte aligned");
  auto storage = std::unique_ptr<Storage>(new (std::nothrow) Storage);
  if (!storage) return Status(StatusCode::kResourceExhausted, "out of memory");
  storage->data = static_cast<const uint8_t*>(data);
  storage->size = size;
  return FromStorage(std::move(storage));
}

Result<std::shared_ptr<const Model>> Model::FromStorage(std::unique_ptr<Storage> storage) {
  auto weights = std::unique_ptr<ModelWeights>(new (std::nothrow) ModelWeights);
  if (!weights) return Status(StatusCode::kResourceExhausted, "out of memory");
  EDGEMT_RETURN_IF_ERROR(ReadModel(storage->data, storage->size, weights.get()));
  // One operator per Linear layer, fused ones counting once: per encoder
  // layer 4, per decoder layer 7, and the output projection.
  const size_t layers = weights->encoder_layers.size() + weights->decoder_layers.size();
  auto packed = std::unique_ptr<PackedWeights>(new (std::nothrow) PackedWeights(storage->data, 8 * layers + 8));
  if (!packed) return Status(StatusCode::kResourceExhausted, "out of memory");
  std::shared_ptr<const Model> model(new (std::nothrow)
                                         Model(std::move(storage), std::move(weights), std::move(packed)));
  if (!model) return Status(StatusCode::kResourceExhausted, "out of memory");
  return model;
}

const ModelConfig& Model::config() const { return weights_->config; }
bool Model::is_int8() const { return weights_->is_int8; }
size_t Model::file_size() const { return storage_->size; }
const ModelWeights& Model::weights() const { return *weights_; }
PackedWeights& Model::packed_weights() const { return *packed_; }

std::string Model::identity() const {
  if (!storage_->file_identity.empty()) {
    // Timestamps have the file system's granularity (a few ms): a file
    // rewritten in place at the same size within it also changes these
    // bytes (the first 64 KB, with every table of the file, and 64 samples).
    const size_t size = storage_->size;
    uint64_t sampled = Fingerprint64(storage_->data, std::min<size_t>(size, size_t{64} << 10));
    for (size_t i = 0; i < 64; ++i) {
      const size_t offset = size / 64 * i;
      sampled = Fingerprint64(storage_->data + offset, std::min<size_t>(256, size - offset), sampled);
    }
    return storage_->file_identity + " " + std::to_string(sampled);
  }
  // A caller's buffer has no file to ask: its bytes are the identity.
  return "buffer " + std::to_string(storage_->size) + " " +
         std::to_string(Fingerprint64(storage_->data, storage_->size));
}

namespace {

std::string_view Bytes(const flatbuffers::Vector<uint8_t>* bytes) {
  if (bytes == nullptr) return {};
  return std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

std::string_view Text(const flatbuffers::String* text) {
  return text == nullptr ? std::string_view() : std::string_view(text->c_str(), text->size());
}

}  // namespace

std::string_view Model::source_tokenizer() const {
  const fb::Tokenizer* tokenizer = fb::GetModel(storage_->data)->tokenizer();
  return tokenizer == nullptr ? std::string_view() : Bytes(tokenizer->source_model());
}

std::string_view Model::target_tokenizer() const {
  const fb::Tokenizer* tokenizer = fb::GetModel(storage_->data)->tokenizer();
  if (tokenizer == nullptr) return {};
  std::string_view target = Bytes(tokenizer->target_model());
  return target.empty() ? Bytes(tokenizer->source_model()) : target;
}

bool Model::has_vocabularies() const {
  const fb::Tokenizer* tokenizer = fb::GetModel(storage_->data)->tokenizer();
  return tokenizer != nullptr && tokenizer->source_vocabulary() != nullptr;
}

// The model reader checked that a vocabulary holds a piece for every id of its side.
std::string_view Model::source_piece(int id) const {
  if (!has_vocabularies()) return {};
  return Text(fb::GetModel(storage_->data)->tokenizer()->source_vocabulary()->Get(static_cast<flatbuffers::uoffset_t>(id)));
}

std::string_view Model::target_piece(int id) const {
  if (!has_vocabularies()) return {};
  const fb::Tokenizer* tokenizer = fb::GetModel(storage_->data)->tokenizer();
  const auto* pieces = tokenizer->target_vocabulary() != nullptr ? tokenizer->target_vocabulary()
                                                                   : tokenizer->source_vocabulary();
  return Text(pieces->Get(static_cast<flatbuffers::uoffset_t>(id)));
}

#define EDGEMT_METADATA_ACCESSOR(name)                                   \
  std::string_view Model::name() const {                                 \
    const fb::Metadata* metadata = fb::GetModel(storage_->data)->metadata(); \
    return metadata == nullptr ? std::string_view() : Text(metadata->name()); \
  }
EDGEMT_METADATA_ACCESSOR(source_language)
EDGEMT_METADATA_ACCESSOR(target_language)
EDGEMT_METADATA_ACCESSOR(converter_version)
EDGEMT_METADATA_ACCESSOR(quantization_summary)
#undef EDGEMT_METADATA_ACCESSOR

void Model::ReleasePages(const void* data, size_t size) const {
  if (storage_->mapping == nullptr || size == 0) return;
  // Only whole pages inside [data, data + size): neighbours may still be used in place.
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(data) + size) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace edgemt
