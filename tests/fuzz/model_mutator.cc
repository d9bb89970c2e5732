// A structure-aware libFuzzer mutator for model files. Byte-level mutations
// rarely get past FlatBuffer verification, so half the time a valid input is
// unpacked (FlatBuffers object API), one meaningful thing in it is changed
// (model_edits.h) and it is packed again: the reader's semantic checks and
// the translator then see files that are well-formed but wrong.
#include <cstring>
#include <random>

#include "edgemt_generated.h"
#include "model_edits.h"
#include "test_model.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::mt19937 random(seed);
  if (std::uniform_int_distribution<int>(0, 1)(random) == 0) return LLVMFuzzerMutate(data, size, max_size);
  // Unpack from an aligned copy: FlatBuffers reads floats in place.
  const edgemt::testing::AlignedBytes bytes(data, size);
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (size < 8 || !edgemt::fb::VerifyModelBuffer(verifier)) return LLVMFuzzerMutate(data, size, max_size);
  edgemt::fb::ModelT model;
  edgemt::fb::GetModel(bytes.data())->UnPackTo(&model);
  edgemt::testing::EditModel(model, random);
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(edgemt::fb::Model::Pack(builder, &model), edgemt::fb::ModelIdentifier());
  if (builder.GetSize() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, builder.GetBufferPointer(), builder.GetSize());
  return builder.GetSize();
}
