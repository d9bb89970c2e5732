// Packed weights: one copy per Model however many translators use it, and
// the packed-cache file (docs/packed-cache.md): used only when whole and
// made for this model file, build and CPU; otherwise reported, replaced,
// never trusted, never fatal. A cache gives bit-identical results.
#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/translator.h"
#include "model/model_state.h"
#include "packing/packed_file.h"
#include "packing/packed_weights.h"
#include "test_model.h"

using namespace edgemt;
using edgemt::testing::BuildTestModelFile;
using edgemt::testing::LoadTestModel;
using edgemt::testing::SyntheticSources;
using edgemt::testing::TestModelSpec;
using edgemt::testing::Views;

namespace {

using Outputs = std::vector<std::vector<int32_t>>;

// A fresh directory, removed with its files at the end of the test.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/edgemt-packed-test-XXXXXX";
    REQUIRE(mkdtemp(pattern) != nullptr);
    path_ = pattern;
  }
  ~TempDir() { Remove(path_); }
  const std::string& path() const { return path_; }

 private:
  static void Remove(const std::string& path) {
    if (DIR* dir = opendir(path.c_str())) {
      while (dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") Remove(path + "/" + name);
      }
      closedir(dir);
      rmdir(path.c_str());
    } else {
      unlink(path.c_str());
    }
  }
  std::string path_;
};

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* handle = opendir(dir.c_str())) {
    while (dirent* entry = readdir(handle)) {
      if (entry->d_name[0] != '.') names.push_back(entry->d_name);
    }
    closedir(handle);
  }
  return names;
}

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::shared_ptr<const Model> Load(const std::string& path) {
  auto model = Model::Load(path);
  REQUIRE_MESSAGE(model.ok(), model.status().ToString());
  return model.value();
}

std::unique_ptr<Translator> Create(const std::shared_ptr<const Model>& model, const std::string& cache_dir = "",
                                   int threads = 1) {
  TranslatorOptions options;
  options.num_threads = threads;
  options.max_batch_size = 2;
  options.packed_cache_dir = cache_dir;
  auto translator = Translator::Create(model, options);
  REQUIRE_MESSAGE(translator.ok(), translator.status().ToString());
  return std::move(translator.value());
}

std::vector<std::vector<int32_t>> Sources(int vocab) { return SyntheticSources(4, vocab, 4, 3, 13, 7); }

// Every source's output ids and the logits of its first two decoder steps.
struct Results {
  Outputs outputs;
  std::vector<float> logits;
};

Results Run(Translator& translator) {
  const ModelConfig& config = translator.model().config();
  Results results;
  for (const auto& source : Sources(config.source_vocab_size)) {
    TokenIds in{source.data(), source.size()}, out;
    Status status = translator.Translate(&in, 1, &out);
    REQUIRE_MESSAGE(status.ok(), status.ToString());
    results.outputs.emplace_back(out.data, out.data + out.size);
    REQUIRE(translator.Encode(&in, 1).ok());
    int32_t token = config.decoder_start_id;
    for (int step = 0; step < 2; ++step) {
      REQUIRE(translator.DecodeStep(&token).ok());
      const float* logits = translator.logits(0);
      results.logits.insert(results.logits.end(), logits, logits + config.target_vocab_size);
      token = 4 + step;
    }
  }
  return results;
}

// Bit for bit: the same packed bytes must give the same floats.
void CheckIdentical(const Results& a, const Results& b) {
  CHECK(a.outputs == b.outputs);
  REQUIRE(a.logits.size() == b.logits.size());
  CHECK(std::memcmp(a.logits.data(), b.logits.data(), a.logits.size() * sizeof(float)) == 0);
}

std::string CachePath(const Model& model, const std::string& dir) {
  return PackedFilePath(dir, PackedFileKey(StateOf(model).bytes.Identity()));
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// float32, int8 and int4 test models (int4 blocks need 32 inputs or more).
enum class Kind { kFloat32, kInt8, kInt4 };
const Kind kKinds[] = {Kind::kFloat32, Kind::kInt8, Kind::kInt4};

TestModelSpec SpecOf(Kind kind) {
  TestModelSpec spec;
  spec.int8 = kind == Kind::kInt8;
  if (kind == Kind::kInt4) {
    spec.int4_block = 32;
    spec.d_model = 32;
    spec.d_ff = 64;
  }
  return spec;
}

}  // namespace

TEST_CASE("the translators of one model share one packed copy of its weights") {
  for (Kind kind : kKinds) {
    CAPTURE(static_cast<int>(kind));
    TestModelSpec spec = SpecOf(kind);
    spec.tied_output = kind != Kind::kFloat32;
    auto test = LoadTestModel(spec);
    PackedWeights& packed = StateOf(*test.model).packing->store();
    auto first = Create(test.model);
    const size_t layers = packed.packed_here();
    const size_t bytes = packed.packed_bytes();
    // Per encoder layer 4 operators, per decoder layer 7, and the projection.
    CHECK(layers == 4 * 2 + 7 * 2 + 1);
    CHECK(bytes > 0);
    const Results expected = Run(*first);
    std::vector<std::unique_ptr<Translator>> more;
    more.push_back(Create(test.model, "", 2));
    more.push_back(Create(test.model));
    more.push_back(Create(test.model));
    CHECK(packed.packed_here() == layers);
    CHECK(packed.packed_bytes() == bytes);
    for (auto& translator : more) CheckIdentical(Run(*translator), expected);
    // Nothing is packed again once the first translator is gone.
    first.reset();
    more.push_back(Create(test.model));
    CHECK(packed.packed_here() == layers);
    CheckIdentical(Run(*more.back()), expected);
  }
}

TEST_CASE("translators created on several threads at once pack each layer once") {
  TestModelSpec spec;
  spec.int8 = true;
  auto test = LoadTestModel(spec);
  std::vector<std::unique_ptr<Translator>> translators(4);
  std::vector<std::string> errors(translators.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < translators.size(); ++i) {
    threads.emplace_back([&, i] {
      TranslatorOptions options;
      options.num_threads = i % 2 == 0 ? 1 : 2;  // packing on a pool too
      auto created = Translator::Create(test.model, options);
      if (created.ok()) translators[i] = std::move(created.value());
      else errors[i] = created.status().ToString();
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& error : errors) CHECK_MESSAGE(error.empty(), error);
  // Racing creators may each pack a layer; the store keeps one copy.
  CHECK(StateOf(*test.model).packing->store().entry_count() == 4 * 2 + 7 * 2 + 1);
  const Results expected = Run(*translators[0]);
  for (size_t i = 1; i < translators.size(); ++i) CheckIdentical(Run(*translators[i]), expected);
}

TEST_CASE("a packed-cache file gives bit-identical results and skips packing") {
  for (Kind kind : kKinds) {
    CAPTURE(static_cast<int>(kind));
    TempDir temp;
    const TestModelSpec spec = SpecOf(kind);
    const std::string model_path = temp.path() + "/model.edgemt";
    WriteFile(model_path, BuildTestModelFile(spec));
    const std::string cache_dir = temp.path() + "/cache";  // created by the first translator

    const Results expected = Run(*Create(Load(model_path)));

    auto writer_model = Load(model_path);
    auto writer = Create(writer_model, cache_dir);
    CHECK_MESSAGE(writer->packed_cache_status().ok(), writer->packed_cache_status().ToString());
    CHECK_FALSE(writer->packed_cache_loaded());
    CHECK(Files(cache_dir) == std::vector<std::string>{CachePath(*writer_model, cache_dir).substr(cache_dir.size() + 1)});
    CheckIdentical(Run(*writer), expected);

    // A new Model stands for a new process: it maps the file, packs nothing.
    auto reader_model = Load(model_path);
    auto reader = Create(reader_model, cache_dir, 2);
    CHECK_MESSAGE(reader->packed_cache_status().ok(), reader->packed_cache_status().ToString());
    CHECK(reader->packed_cache_loaded());
    CHECK(StateOf(*reader_model).packing->store().packed_here() == 0);
    CHECK(StateOf(*reader_model).packing->store().entry_count() == StateOf(*writer_model).packing->store().entry_count());
    CheckIdentical(Run(*reader), expected);
    // A second translator of that model shares the mapped copy.
    auto second = Create(reader_model, cache_dir);
    CHECK(second->packed_cache_loaded());
    CHECK(StateOf(*reader_model).packing->store().packed_here() == 0);
    CheckIdentical(Run(*second), expected);
  }
}

TEST_CASE("an unusable packed-cache file is reported, replaced and never trusted") {
  TempDir temp;
  TestModelSpec spec;
  spec.int8 = true;
  const std::string model_path = temp.path() + "/model.edgemt";
  WriteFile(model_path, BuildTestModelFile(spec));
  // Another model's good cache file, for the wrong-key case.
  TestModelSpec other_spec = spec;
  other_spec.seed = 9;
  const std::string other_path = temp.path() + "/other.edgemt";
  WriteFile(other_path, BuildTestModelFile(other_spec));
  const std::string cache_dir = temp.path() + "/cache";
  auto other_model = Load(other_path);
  Create(other_model, cache_dir);
  const std::vector<uint8_t> other_cache = ReadFile(CachePath(*other_model, cache_dir));

  const Results expected = Run(*Create(Load(model_path)));
  auto first_model = Load(model_path);
  const std::string cache_path = CachePath(*first_model, cache_dir);
  Create(first_model, cache_dir);
  const std::vector<uint8_t> good = ReadFile(cache_path);
  REQUIRE(good.size() > 8192);

  struct Case {
    const char* name;
    std::function<std::vector<uint8_t>(std::vector<uint8_t>)> damage;
    const char* reason;
  };
  auto flip = [](size_t offset) {
    return [offset](std::vector<uint8_t> bytes) {
      bytes[offset] ^= 0x5A;
      return bytes;
    };
  };
  const Case cases[] = {
      {"empty", [](std::vector<uint8_t>) { return std::vector<uint8_t>(); }, "truncated"},
      {"ten bytes", [](std::vector<uint8_t> b) { return std::vector<uint8_t>(b.begin(), b.begin() + 10); }, "truncated"},
      {"half", [](std::vector<uint8_t> b) { return std::vector<uint8_t>(b.begin(), b.begin() + b.size() / 2); },
       "truncated"},
      {"one byte more", [](std::vector<uint8_t> b) { b.push_back(0); return b; }, "truncated or extended"},
      {"magic", flip(0), "not a packed cache file"},
      {"header", flip(20), "header is corrupt"},
      {"key text", flip(90), "entry table is corrupt"},
      {"packed data", flip(good.size() - 200), "are corrupt"},
      {"another model's file", [&](std::vector<uint8_t>) { return other_cache; }, "another model file"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    WriteFile(cache_path, c.damage(good));
    auto model = Load(model_path);
    auto translator = Create(model, cache_dir);
    const Status& status = translator->packed_cache_status();
    CHECK_FALSE(status.ok());
    CHECK_MESSAGE(Contains(status.message(), c.reason), status.message());
    CHECK_MESSAGE(Contains(status.message(), "replaced it"), status.message());
    CHECK_FALSE(translator->packed_cache_loaded());
    CHECK(StateOf(*model).packing->store().packed_here() > 0);
    CheckIdentical(Run(*translator), expected);
    // Replaced by a good file: the next load maps it.
    CHECK(ReadFile(cache_path) == good);
    auto next = Create(Load(model_path), cache_dir);
    CHECK_MESSAGE(next->packed_cache_status().ok(), next->packed_cache_status().ToString());
    CHECK(next->packed_cache_loaded());
  }
}

TEST_CASE("a rewritten model file never reuses the old packed cache") {
  TempDir temp;
  TestModelSpec spec;
  spec.int8 = true;
  const std::string model_path = temp.path() + "/model.edgemt";
  const std::string cache_dir = temp.path() + "/cache";
  WriteFile(model_path, BuildTestModelFile(spec));
  Create(Load(model_path), cache_dir);
  REQUIRE(Files(cache_dir).size() == 1);

  // The same path and size, other weights: a new key, so a new file.
  spec.seed = 5;
  WriteFile(model_path, BuildTestModelFile(spec));
  const Results expected = Run(*Create(Load(model_path)));
  auto model = Load(model_path);
  auto translator = Create(model, cache_dir);
  CHECK_MESSAGE(translator->packed_cache_status().ok(), translator->packed_cache_status().ToString());
  CHECK_FALSE(translator->packed_cache_loaded());
  CHECK(Files(cache_dir).size() == 2);
  CheckIdentical(Run(*translator), expected);
}

TEST_CASE("a model in a caller's buffer is keyed by its bytes") {
  TempDir temp;
  TestModelSpec spec;
  spec.int8 = true;
  auto a = LoadTestModel(spec);
  auto same = LoadTestModel(spec);
  spec.seed = 3;
  auto other = LoadTestModel(spec);
  CHECK(PackedFileKey(StateOf(*a.model).bytes.Identity()) == PackedFileKey(StateOf(*same.model).bytes.Identity()));
  CHECK(PackedFileKey(StateOf(*a.model).bytes.Identity()) != PackedFileKey(StateOf(*other.model).bytes.Identity()));
  const Results expected = Run(*Create(a.model));
  Create(a.model, temp.path());
  auto reader = Create(same.model, temp.path());
  CHECK(reader->packed_cache_loaded());
  CheckIdentical(Run(*reader), expected);
}

TEST_CASE("a packed-cache directory that cannot be made is reported, and the translator works") {
  TempDir temp;
  TestModelSpec spec;
  auto test = LoadTestModel(spec);
  const Results expected = Run(*Create(test.model));
  const std::string file = temp.path() + "/a-file";
  WriteFile(file, {1, 2, 3});
  auto fresh = LoadTestModel(spec);
  auto translator = Create(fresh.model, file + "/cache");
  CHECK_FALSE(translator->packed_cache_status().ok());
  CHECK_MESSAGE(Contains(translator->packed_cache_status().message(), "cannot write packed cache"),
                translator->packed_cache_status().message());
  CHECK_FALSE(translator->packed_cache_loaded());
  CheckIdentical(Run(*translator), expected);
}

TEST_CASE("without a cache directory no file is read or written") {
  TempDir temp;
  TestModelSpec spec;
  const std::string model_path = temp.path() + "/model.edgemt";
  WriteFile(model_path, BuildTestModelFile(spec));
  auto translator = Create(Load(model_path));
  CHECK(translator->packed_cache_status().ok());
  CHECK_FALSE(translator->packed_cache_loaded());
  CHECK(Files(temp.path()) == std::vector<std::string>{"model.edgemt"});
}
