#include "edgemt/model.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <new>

#include "edgemt_generated.h"
#include "memory/mapped_file.h"
#include "model_file/model_reader.h"
#include "model/model_state.h"
#include "base/shared_nothrow.h"

namespace edgemt {

const ModelState& StateOf(const Model& model) { return *model.state_; }

Model::Model(std::unique_ptr<ModelState> state) : state_(std::move(state)) {}

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
  auto state = std::unique_ptr<ModelState>(new (std::nothrow) ModelState);
  if (!state) return Status(StatusCode::kResourceExhausted, "out of memory");
  const struct stat& info = file.info;
  ModelBytes& bytes = state->bytes;
  bytes.data = file.data.get();
  bytes.size = file.size;
  bytes.mapping = std::move(file.data);
  std::snprintf(bytes.file_identity, sizeof(bytes.file_identity), "file %llu:%llu %lld %lld.%ld %lld.%ld",
                static_cast<unsigned long long>(info.st_dev), static_cast<unsigned long long>(info.st_ino),
                static_cast<long long>(info.st_size), static_cast<long long>(info.st_mtim.tv_sec),
                static_cast<long>(info.st_mtim.tv_nsec), static_cast<long long>(info.st_ctim.tv_sec),
                static_cast<long>(info.st_ctim.tv_nsec));
  Result<std::shared_ptr<const Model>> model = FromState(std::move(state));
  if (!model.ok()) return Status(model.status().code(), path + ": " + model.status().message());
  return model;
}

Result<std::shared_ptr<const Model>> Model::FromBuffer(const void* data, size_t size) {
  if (data == nullptr || size == 0) return Status(StatusCode::kInvalidModel, "the buffer is empty");
  if (reinterpret_cast<uintptr_t>(data) % 64 != 0)
    return Status(StatusCode::kInvalidArgument, "the model buffer must be 64-byte aligned");
  auto state = std::unique_ptr<ModelState>(new (std::nothrow) ModelState);
  if (!state) return Status(StatusCode::kResourceExhausted, "out of memory");
  state->bytes.data = static_cast<const uint8_t*>(data);
  state->bytes.size = size;
  return FromState(std::move(state));
}

Result<std::shared_ptr<const Model>> Model::FromState(std::unique_ptr<ModelState> state) {
  EDGEMT_RETURN_IF_ERROR(ReadModel(state->bytes.data, state->bytes.size, &state->weights));
  // One operator per Linear layer, fused ones counting once: per encoder
  // layer 4, per decoder layer 7, and the output projection.
  const size_t layers = state->weights.encoder_layers.size() + state->weights.decoder_layers.size();
  state->packing.reset(new (std::nothrow) ModelPacking(state->bytes, 8 * layers + 8));
  if (!state->packing) return Status(StatusCode::kResourceExhausted, "out of memory");
  std::shared_ptr<const Model> model = ShareNothrow(std::unique_ptr<const Model>(new (std::nothrow) Model(std::move(state))));
  if (!model) return Status(StatusCode::kResourceExhausted, "out of memory");
  return model;
}

const ModelConfig& Model::config() const { return state_->weights.config; }
bool Model::is_int8() const { return state_->weights.is_int8; }
size_t Model::file_size() const { return state_->bytes.size; }
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
  const fb::Tokenizer* tokenizer = fb::GetModel(state_->bytes.data)->tokenizer();
  return tokenizer == nullptr ? std::string_view() : Bytes(tokenizer->source_model());
}

std::string_view Model::target_tokenizer() const {
  const fb::Tokenizer* tokenizer = fb::GetModel(state_->bytes.data)->tokenizer();
  if (tokenizer == nullptr) return {};
  std::string_view target = Bytes(tokenizer->target_model());
  return target.empty() ? Bytes(tokenizer->source_model()) : target;
}

bool Model::has_shortlist() const { return state_->weights.shortlist.present(); }

bool Model::has_vocabularies() const {
  const fb::Tokenizer* tokenizer = fb::GetModel(state_->bytes.data)->tokenizer();
  return tokenizer != nullptr && tokenizer->source_vocabulary() != nullptr;
}

// The model reader checked that a vocabulary holds a piece for every id of its side.
std::string_view Model::source_piece(int id) const {
  if (!has_vocabularies()) return {};
  return Text(fb::GetModel(state_->bytes.data)->tokenizer()->source_vocabulary()->Get(static_cast<flatbuffers::uoffset_t>(id)));
}

std::string_view Model::target_piece(int id) const {
  if (!has_vocabularies()) return {};
  const fb::Tokenizer* tokenizer = fb::GetModel(state_->bytes.data)->tokenizer();
  const auto* pieces = tokenizer->target_vocabulary() != nullptr ? tokenizer->target_vocabulary()
                                                                   : tokenizer->source_vocabulary();
  return Text(pieces->Get(static_cast<flatbuffers::uoffset_t>(id)));
}

size_t Model::packed_bytes() const {
  return state_->packing == nullptr ? 0 : state_->packing->store().packed_bytes();
}

#define EDGEMT_METADATA_ACCESSOR(name)                                   \
  std::string_view Model::name() const {                                 \
    const fb::Metadata* metadata = fb::GetModel(state_->bytes.data)->metadata(); \
    return metadata == nullptr ? std::string_view() : Text(metadata->name()); \
  }
EDGEMT_METADATA_ACCESSOR(source_language)
EDGEMT_METADATA_ACCESSOR(target_language)
EDGEMT_METADATA_ACCESSOR(converter_version)
EDGEMT_METADATA_ACCESSOR(quantization_summary)
#undef EDGEMT_METADATA_ACCESSOR

}  // namespace edgemt
