// Broken, truncated and inconsistent model files: each must be refused with
// a Status whose code and message say what is wrong, never a crash.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/translator.h"
#include "test_model.h"

using namespace edgemt;
using edgemt::testing::AlignedBytes;
using edgemt::testing::BuildTestModelFile;
using edgemt::testing::TestModelSpec;

namespace {

Status LoadBytes(const std::vector<uint8_t>& bytes) {
  AlignedBytes aligned(bytes);
  auto model = Model::FromBuffer(aligned.data(), aligned.size());
  return model.ok() ? Status::Ok() : model.status();
}

// The status of loading the default test model after `mutate` broke it.
Status LoadMutated(std::function<void(fb::ModelT&)> mutate, bool int8 = false) {
  TestModelSpec spec;
  spec.int8 = int8;
  spec.mutate = std::move(mutate);
  return LoadBytes(BuildTestModelFile(spec));
}

void CheckStatus(const Status& status, StatusCode code, const std::string& message) {
  CHECK_MESSAGE(status.code() == code, status.ToString());
  CHECK(status.message() == message);
}

// A file in a fresh temporary directory, removed with it.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/edgemt-model-file-test-XXXXXX";
    const char* made = mkdtemp(pattern);
    REQUIRE(made != nullptr);
    path_ = made;
  }
  ~TempDir() {
    for (const std::string& file : files_) std::remove(file.c_str());
    rmdir(path_.c_str());
  }
  std::string Write(const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    files_.push_back(file);
    return file;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

fb::TensorT& QueryWeight(fb::ModelT& model) { return *model.encoder->layers[0]->self_attention->query->weight; }

}  // namespace

TEST_CASE("the test models load") {
  CHECK(LoadMutated(nullptr).ok());
  CHECK(LoadMutated(nullptr, /*int8=*/true).ok());
}

TEST_CASE("empty files and buffers") {
  TempDir dir;
  const std::string path = dir.Write("empty.edgemt", {});
  auto loaded = Model::Load(path);
  REQUIRE_FALSE(loaded.ok());
  CheckStatus(loaded.status(), StatusCode::kInvalidModel, path + ": the file is empty");

  CheckStatus(Model::FromBuffer(nullptr, 0).status(), StatusCode::kInvalidModel, "the buffer is empty");
  AlignedBytes one(std::vector<uint8_t>{0});
  CheckStatus(Model::FromBuffer(one.data(), 0).status(), StatusCode::kInvalidModel, "the buffer is empty");
}

TEST_CASE("a missing file, a directory") {
  TempDir dir;
  const std::string missing = dir.path() + "/missing.edgemt";
  CheckStatus(Model::Load(missing).status(), StatusCode::kNotFound,
              "cannot open " + missing + ": No such file or directory");
  CheckStatus(Model::Load(dir.path()).status(), StatusCode::kNotFound, dir.path() + " is not a regular file");
}

TEST_CASE("truncated files") {
  const std::vector<uint8_t> whole = BuildTestModelFile(TestModelSpec{});
  REQUIRE(LoadBytes(whole).ok());
  for (size_t size : {size_t{1}, size_t{7}}) {
    CAPTURE(size);
    CheckStatus(LoadBytes(std::vector<uint8_t>(whole.begin(), whole.begin() + static_cast<long>(size))),
                StatusCode::kInvalidModel,
                "the file is empty or too short to be a model (" + std::to_string(size) + " bytes)");
  }
  // From the header on, every cut loses bytes the root table refers to.
  for (size_t size : {size_t{8}, size_t{16}, size_t{100}, size_t{1000}, whole.size() / 2, whole.size() - 64,
                      whole.size() - 1}) {
    CAPTURE(size);
    const Status status = LoadBytes(std::vector<uint8_t>(whole.begin(), whole.begin() + static_cast<long>(size)));
    CHECK(status.code() == StatusCode::kInvalidModel);
    const bool expected = status.message() == "the file is corrupt or truncated (FlatBuffer verification failed)" ||
                          status.message() == "the file is corrupt or truncated (its root table cannot be read)";
    CHECK_MESSAGE(expected, status.message());
  }
  // Through Model::Load too, with the path in front.
  TempDir dir;
  const std::string path = dir.Write("half.edgemt", std::vector<uint8_t>(whole.begin(), whole.begin() + 1000));
  CheckStatus(Model::Load(path).status(), StatusCode::kInvalidModel,
              path + ": the file is corrupt or truncated (FlatBuffer verification failed)");
}

TEST_CASE("a file that is not an EdgeMT model") {
  std::vector<uint8_t> bytes = BuildTestModelFile(TestModelSpec{});
  bytes[4] = 'X';
  CheckStatus(LoadBytes(bytes), StatusCode::kInvalidModel, "not an EdgeMT model file (identifier is not \"EDMT\")");
  // A zip archive (a PyTorch checkpoint) given by mistake.
  CheckStatus(LoadBytes({'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0, 0, 0}), StatusCode::kInvalidModel,
              "not an EdgeMT model file (identifier is not \"EDMT\")");
}

TEST_CASE("format versions") {
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.format_major = 3; }), StatusCode::kUnsupported,
              "model format version 3.0 is not supported (this runtime reads 2.x)");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.format_major = 0; }), StatusCode::kUnsupported,
              "model format version 0.0 is not supported (this runtime reads 2.x)");
  // 1.x files had calibrated int8 ranges: they must be converted again.
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.format_major = 1; }), StatusCode::kUnsupported,
              "model format version 1.0 is older than this runtime reads (2.x, whose int8 arithmetic differs): "
              "convert the checkpoint again with this version's edgemt-convert");
  // A newer minor version only adds optional fields.
  CHECK(LoadMutated([](fb::ModelT& m) { m.format_minor = 7; }).ok());
  // A newer major format whose tables do not verify as 2.x (here: cut in
  // half, the root table at the front intact): "unsupported", not "corrupt".
  TestModelSpec newer;
  newer.mutate = [](fb::ModelT& m) {
    m.format_major = 3;
    m.format_minor = 3;
  };
  std::vector<uint8_t> bytes = BuildTestModelFile(newer);
  bytes.resize(bytes.size() / 2);
  CheckStatus(LoadBytes(bytes), StatusCode::kUnsupported,
              "model format version 3.3 is not supported (this runtime reads 2.x)");
}

TEST_CASE("tensor sizes, shapes and types") {
  CheckStatus(LoadMutated([](fb::ModelT& m) { QueryWeight(m).data.resize(100); }), StatusCode::kInvalidModel,
              "tensor encoder.layers[0].self_attention.query.weight has 100 bytes, its shape needs 1024");
  CheckStatus(LoadMutated([](fb::ModelT& m) { QueryWeight(m).shape = {16, 8}; }), StatusCode::kInvalidModel,
              "tensor encoder.layers[0].self_attention.query.weight has shape [16x8], expected [16x16]");
  // (The FlatBuffers object API leaves empty vectors out.)
  CheckStatus(LoadMutated([](fb::ModelT& m) { QueryWeight(m).shape.clear(); }), StatusCode::kInvalidModel,
              "tensor encoder.layers[0].self_attention.query.weight has no shape");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.decoder->token_embedding->data.clear(); }), StatusCode::kInvalidModel,
              "tensor decoder.token_embedding has no data");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.decoder->token_embedding->shape = {48, 16, 1}; }),
              StatusCode::kInvalidModel, "tensor decoder.token_embedding has shape [48x16x1], expected [48x16]");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.decoder->token_embedding.reset(); }), StatusCode::kInvalidModel,
              "tensor decoder.token_embedding is missing");
  // An int8 LayerNorm gamma: LayerNorm parameters are float32 only.
  CheckStatus(LoadMutated([](fb::ModelT& m) {
                fb::TensorT& gamma = *m.encoder->layers[0]->self_attention_norm->gamma;
                gamma.type = fb::TensorType::Int8;
                gamma.data.resize(16);
                gamma.scales.assign(16, 0.01f);
              }),
              StatusCode::kInvalidModel, "tensor encoder.layers[0].self_attention_norm.gamma must be float32");
  // A type this runtime does not know.
  CheckStatus(LoadMutated([](fb::ModelT& m) { QueryWeight(m).type = static_cast<fb::TensorType>(7); }),
              StatusCode::kInvalidModel, "tensor encoder.layers[0].self_attention.query.weight has an unknown type 7");
  CheckStatus(LoadMutated([](fb::ModelT& m) { QueryWeight(m).scales.resize(3); }, /*int8=*/true),
              StatusCode::kInvalidModel, "tensor encoder.layers[0].self_attention.query.weight needs 16 scales, has 3");
}

TEST_CASE("weight scales must be positive, finite and normal") {
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 0.0f, -0.5f};
  for (float scale : bad) {
    CAPTURE(scale);
    CheckStatus(LoadMutated([scale](fb::ModelT& m) { QueryWeight(m).scales[5] = scale; }, true),
                StatusCode::kInvalidModel,
                "tensor encoder.layers[0].self_attention.query.weight has a scale that is not a positive finite "
                "number (row 5)");
    CheckStatus(LoadMutated([scale](fb::ModelT& m) { m.decoder->token_embedding->scales[0] = scale; }, true),
                StatusCode::kInvalidModel,
                "tensor decoder.token_embedding has a scale that is not a positive finite number (row 0)");
  }
  // XNNPACK refuses subnormal scales: the reader says so first.
  CheckStatus(LoadMutated([](fb::ModelT& m) { QueryWeight(m).scales[1] = 1e-40f; }, true), StatusCode::kInvalidModel,
              "tensor encoder.layers[0].self_attention.query.weight has a scale that is subnormal (row 1)");
}

TEST_CASE("hyperparameters") {
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.config->num_heads = 0; }), StatusCode::kInvalidModel,
              "num_heads is 0, expected 1..1024");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.config->num_heads = 3; }), StatusCode::kInvalidModel,
              "d_model 16 is not divisible by num_heads 3");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.config->d_model = 0; }), StatusCode::kInvalidModel,
              "d_model is 0, expected 1..65536");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.config->target_vocab_size = 1u << 30; }), StatusCode::kInvalidModel,
              "target_vocab_size is 1073741824, expected 1..16777216");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.config->layer_norm_epsilon = std::nanf(""); }),
              StatusCode::kInvalidModel, "layer_norm_epsilon must be positive and finite");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.config->eos_id = 48; }), StatusCode::kInvalidModel,
              "eos_id 48 is outside the target vocabulary (0..47)");
  // The source vocabulary (40) is smaller than the target's (48): sources end with </s> too.
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.config->eos_id = 45; }), StatusCode::kInvalidModel,
              "eos_id 45 is outside the source vocabulary (0..39)");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.config->decoder_start_id = -1; }), StatusCode::kInvalidModel,
              "decoder_start_id -1 is outside the target vocabulary (0..47)");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.config.reset(); }), StatusCode::kInvalidModel, "the config is missing");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.config->norm = static_cast<fb::NormPlacement>(9); }),
              StatusCode::kInvalidModel, "unknown norm placement 9");
}

TEST_CASE("embedding norms (format 2.4) are declared by the norm placement") {
  auto copy_norm = [](const fb::LayerNormT& n) {
    auto norm = std::make_unique<fb::LayerNormT>();
    norm->gamma = std::make_unique<fb::TensorT>(*n.gamma);
    norm->beta = std::make_unique<fb::TensorT>(*n.beta);
    return norm;
  };
  // A 2.3 reader ignores the tables; this one refuses them unless the config declares them.
  CheckStatus(LoadMutated([&](fb::ModelT& m) {
                m.encoder->embedding_norm = copy_norm(*m.encoder->layers[0]->self_attention_norm);
              }),
              StatusCode::kInvalidModel,
              "encoder.embedding_norm is present but the norm placement declares no embedding norm");
  auto declared = [](fb::ModelT& m) { m.config->norm = fb::NormPlacement::PostLNEmbeddingNorm; };
  CHECK(LoadMutated(declared).ok());                                   // declared, none present
  CHECK(LoadMutated([&](fb::ModelT& m) {
          declared(m);
          m.decoder->embedding_norm = copy_norm(*m.decoder->layers[0]->self_attention_norm);
        }).ok());
  CheckStatus(LoadMutated([&](fb::ModelT& m) {
                declared(m);
                m.decoder->embedding_norm = copy_norm(*m.decoder->layers[0]->self_attention_norm);
                m.decoder->embedding_norm->beta->shape[0] = 15;
              }),
              StatusCode::kInvalidModel, "tensor decoder.embedding_norm.beta has shape [15], expected [16]");
}

TEST_CASE("layers declared and present") {
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.config->encoder_layers = 3; }), StatusCode::kInvalidModel,
              "the config declares 3 encoder layers, the file has 2");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.decoder->layers.pop_back(); }), StatusCode::kInvalidModel,
              "the config declares 2 decoder layers, the file has 1");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.decoder->layers[1]->cross_attention->key.reset(); }),
              StatusCode::kInvalidModel, "linear layer decoder.layers[1].cross_attention.key is missing");
  CheckStatus(LoadMutated([](fb::ModelT& m) { m.encoder.reset(); }), StatusCode::kInvalidModel,
              "the encoder is missing");
}

TEST_CASE("an int8 layer anywhere gets the int8 scratch memory") {
  // A float file with one int8 Linear (the decoder's cross-attention key):
  // the translator must plan int8 buffers for it.
  TestModelSpec int8_spec;
  int8_spec.int8 = true;
  fb::ModelT int8_model;
  {
    std::vector<uint8_t> bytes = BuildTestModelFile(int8_spec);
    fb::GetModel(bytes.data())->UnPackTo(&int8_model);
  }
  TestModelSpec spec;
  spec.mutate = [&int8_model](fb::ModelT& m) {
    m.decoder->layers[1]->cross_attention->key = std::move(int8_model.decoder->layers[1]->cross_attention->key);
    m.encoder->layers[0]->feed_forward->down = std::move(int8_model.encoder->layers[0]->feed_forward->down);
  };
  AlignedBytes bytes(BuildTestModelFile(spec));
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  REQUIRE_MESSAGE(model.ok(), model.status().ToString());
  CHECK(model.value()->is_int8());
  TranslatorOptions options;
  options.num_threads = 1;
  auto translator = Translator::Create(model.value(), options);
  REQUIRE_MESSAGE(translator.ok(), translator.status().ToString());
  std::vector<int32_t> ids = {5, 6, 7, 3};
  TokenIds source{ids.data(), ids.size()}, output;
  CHECK(translator.value()->Translate(&source, 1, &output).ok());

  // The int8 layers must compute what their weights say: against the same
  // file with those two weights dequantized to float (q * scale), the only
  // difference left is the per-row 8-bit quantization of the two layers'
  // inputs (a step of 1/255 of each row's range: at most 0.2% of it per
  // element), which moves these logits by 0.04% (RMS, relative; bound 0.5%).
  // A weight scale off by 5% in one of the layers moves them by more.
  auto dequantized = [](std::unique_ptr<fb::TensorT>& tensor) {
    const size_t rows = tensor->shape[0], cols = tensor->shape[1];
    std::vector<float> values(rows * cols);
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c)
        values[r * cols + c] = static_cast<float>(static_cast<int8_t>(tensor->data[r * cols + c])) * tensor->scales[r];
    tensor->type = fb::TensorType::Float32;
    tensor->scales.clear();
    tensor->data.resize(values.size() * sizeof(float));
    std::memcpy(tensor->data.data(), values.data(), tensor->data.size());
  };
  TestModelSpec float_spec;
  float_spec.mutate = [&](fb::ModelT& m) {
    spec.mutate(m);
    dequantized(m.decoder->layers[1]->cross_attention->key->weight);
    dequantized(m.encoder->layers[0]->feed_forward->down->weight);
  };
  fb::GetModel(BuildTestModelFile(int8_spec).data())->UnPackTo(&int8_model);  // the layers again
  AlignedBytes float_bytes(BuildTestModelFile(float_spec));
  auto float_model = Model::FromBuffer(float_bytes.data(), float_bytes.size());
  REQUIRE_MESSAGE(float_model.ok(), float_model.status().ToString());
  CHECK_FALSE(float_model.value()->is_int8());
  auto float_translator = Translator::Create(float_model.value(), options);
  REQUIRE_MESSAGE(float_translator.ok(), float_translator.status().ToString());
  REQUIRE(translator.value()->Encode(&source, 1).ok());
  REQUIRE(float_translator.value()->Encode(&source, 1).ok());
  const int32_t start = model.value()->config().decoder_start_id;
  REQUIRE(translator.value()->DecodeStep(&start).ok());
  REQUIRE(float_translator.value()->DecodeStep(&start).ok());
  const float* mixed = translator.value()->logits(0);
  const float* reference = float_translator.value()->logits(0);
  double difference = 0, norm = 0;
  for (int i = 0; i < model.value()->config().target_vocab_size; ++i) {
    difference += (mixed[i] - reference[i]) * double(mixed[i] - reference[i]);
    norm += reference[i] * double(reference[i]);
  }
  const double relative = std::sqrt(difference / norm);
  CAPTURE(relative);
  CHECK(relative > 0);  // the int8 arithmetic did run
  CHECK(relative < 0.005);
}

TEST_CASE("SSRU decoders (format 2.8): every layer has one, without self-attention, its transform without a bias") {
  auto load = [](std::function<void(fb::ModelT&)> mutate) {
    TestModelSpec spec;
    spec.marian = true;
    spec.mutate = std::move(mutate);
    return LoadBytes(BuildTestModelFile(spec));
  };
  CHECK(load(nullptr).ok());
  fb::ModelT attention_model;
  {
    std::vector<uint8_t> bytes = BuildTestModelFile(TestModelSpec());
    fb::GetModel(bytes.data())->UnPackTo(&attention_model);
  }
  CheckStatus(load([&](fb::ModelT& m) {
                m.decoder->layers[1]->self_attention = std::move(attention_model.decoder->layers[1]->self_attention);
              }),
              StatusCode::kInvalidModel,
              "decoder.layers[1] has an SSRU and self-attention: every decoder layer needs the first layer's one of "
              "them (an SSRU)");
  CheckStatus(load([](fb::ModelT& m) { m.decoder->layers[1]->ssru.reset(); }), StatusCode::kInvalidModel,
              "decoder.layers[1] has no SSRU and no self-attention: every decoder layer needs the first layer's one "
              "of them (an SSRU)");
  CheckStatus(load([&](fb::ModelT& m) {
                m.decoder->layers[0]->ssru->transform->bias = std::move(attention_model.decoder->layers[0]->self_attention->query->bias);
              }),
              StatusCode::kInvalidModel, "decoder.layers[0].ssru.transform has a bias; an SSRU's has none");
  CheckStatus(load([](fb::ModelT& m) { m.decoder->layers[0]->ssru->forget_gate.reset(); }), StatusCode::kInvalidModel,
              "linear layer decoder.layers[0].ssru.forget_gate is missing");
  CheckStatus(load([](fb::ModelT& m) { m.config->default_max_length_factor = -1.0f; }), StatusCode::kInvalidModel,
              "default_max_length_factor -1.000000 is outside 0..64");
}
