// libFuzzer target of the packed-cache loader: a small int8 model's cache
// file replaced by the input, or damaged by it. Whatever the file holds,
// Translator::Create must succeed (an unusable file is reported, never
// fatal) and translate exactly what a translator without a cache does.
// Built and run by tests/fuzz/run.sh.
//
// Input: first byte even: the bytes are the whole cache file. Odd: they edit
// the good file: a 16-bit length to cut it to (0xFFFF: no cut), then
// (24-bit offset, byte to XOR) triples.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/translator.h"
#include "model/model_state.h"
#include "packing/packed_file.h"
#include "test_model.h"

namespace {

using namespace edgemt;

struct Fixture {
  testing::AlignedBytes model_bytes;
  std::string dir, cache_path;
  std::vector<uint8_t> good_cache;
  std::vector<int32_t> expected;
};

const int32_t kSource[] = {5, 9, 12, 7, 3};

std::vector<int32_t> Translate(Translator& translator) {
  TokenIds in{kSource, sizeof(kSource) / sizeof(kSource[0])}, out;
  if (!translator.Translate(&in, 1, &out).ok()) return {-1};
  return std::vector<int32_t>(out.data, out.data + out.size);
}

[[noreturn]] void Broken(const std::string& what) {
  // Not a crash, but a broken promise: make libFuzzer keep the input.
  std::fprintf(stderr, "fuzz_packed_cache: %s\n", what.c_str());
  std::abort();
}

std::unique_ptr<Translator> Create(const std::shared_ptr<const Model>& model, const std::string& dir) {
  TranslatorOptions options;
  options.num_threads = 1;
  options.packed_cache_dir = dir;
  auto created = Translator::Create(model, options);
  if (!created.ok()) Broken("Translator::Create failed: " + created.status().ToString());
  return std::move(created.value());
}

std::shared_ptr<const Model> Load(const Fixture& fixture) {
  auto model = Model::FromBuffer(fixture.model_bytes.data(), fixture.model_bytes.size());
  if (!model.ok()) Broken("the fixture model does not load: " + model.status().ToString());
  return model.value();
}

Fixture& GetFixture() {
  static Fixture* fixture = [] {
    auto* f = new Fixture;
    testing::TestModelSpec spec;
    spec.int8 = true;
    f->model_bytes = testing::AlignedBytes(testing::BuildTestModelFile(spec));
    char pattern[] = "/tmp/edgemt-fuzz-packed-XXXXXX";
    if (mkdtemp(pattern) == nullptr) Broken("mkdtemp failed");
    f->dir = pattern;
    auto model = Load(*f);
    f->cache_path = PackedFilePath(f->dir, PackedFileKey(StateOf(*model).bytes.Identity()));
    f->expected = Translate(*Create(model, f->dir));
    std::ifstream in(f->cache_path, std::ios::binary);
    f->good_cache.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (f->good_cache.empty()) Broken("no cache file was written");
    return f;
  }();
  return *fixture;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Fixture& fixture = GetFixture();
  std::vector<uint8_t> file;
  if (size > 0 && (data[0] & 1) == 0) {
    file.assign(data + 1, data + size);
  } else {
    file = fixture.good_cache;
    if (size >= 3) {
      const size_t cut = static_cast<size_t>(data[1]) | static_cast<size_t>(data[2]) << 8;
      if (cut != 0xFFFF && cut < file.size()) file.resize(cut);
    }
    for (size_t i = 3; i + 4 <= size && !file.empty(); i += 4) {
      const size_t offset = (data[i] | data[i + 1] << 8 | data[i + 2] << 16) % file.size();
      file[offset] ^= data[i + 3];
    }
  }
  {
    std::ofstream out(fixture.cache_path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  }
  auto model = Load(fixture);
  auto translator = Create(model, fixture.dir);
  // Loaded only when the file is the good one, byte for byte, in what is read.
  if (translator->packed_cache_loaded() && file.size() != fixture.good_cache.size())
    Broken("a cache file of another length was used");
  if (Translate(*translator) != fixture.expected) Broken("the translation differs from packing's");
  return 0;
}
