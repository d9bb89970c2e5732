// Writes the fuzzer's seed corpus: small valid model files (float32 and
// int8, every norm, activation and position variant; one int4; one with a
// vocabulary shortlist) made with
// tests/support/test_model.cc. Usage: edgemt-fuzz-seeds DIRECTORY
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "test_model.h"

using edgemt::testing::TestModelSpec;

namespace {

TestModelSpec Tiny(bool int8) {
  TestModelSpec spec;
  spec.d_model = 4;
  spec.num_heads = 2;
  spec.d_ff = 8;
  spec.encoder_layers = 1;
  spec.decoder_layers = 1;
  spec.source_vocab = 8;
  spec.target_vocab = 9;
  spec.max_positions = 6;
  spec.int8 = int8;
  return spec;
}

bool Write(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: edgemt-fuzz-seeds DIRECTORY\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::vector<std::pair<std::string, TestModelSpec>> seeds;
  for (bool int8 : {false, true}) {
    const std::string dtype = int8 ? "int8" : "float32";
    TestModelSpec post = Tiny(int8);
    seeds.emplace_back(dtype + "-postln-relu", post);
    TestModelSpec pre = Tiny(int8);
    pre.norm = edgemt::NormPlacement::kPreLN;
    pre.activation = edgemt::Activation::kGELU;
    pre.positions = edgemt::PositionEncoding::kLearned;
    pre.tied_output = true;
    pre.embedding_norm = true;
    seeds.emplace_back(dtype + "-preln-gelu-learned-tied-embnorm", pre);
    TestModelSpec shared = Tiny(int8);
    shared.activation = edgemt::Activation::kSiLU;
    shared.positions = edgemt::PositionEncoding::kSinusoidalHalves;
    shared.target_vocab = shared.source_vocab;
    shared.mutate = [](edgemt::fb::ModelT& model) {
      model.config->shared_embeddings = true;
      model.encoder->token_embedding.reset();
    };
    seeds.emplace_back(dtype + "-silu-halves-shared", shared);
  }
  // A vocabulary shortlist (format 2.5): source id i may produce target ids i
  // and i + 1; with format 2.7's output sums (values the fuzzer may change).
  TestModelSpec listed = Tiny(true);
  listed.mutate = [](edgemt::fb::ModelT& model) {
    auto list = std::make_unique<edgemt::fb::ShortlistT>();
    list->frequent = {4};
    list->offsets.push_back(0);
    for (int32_t i = 0; i < 8; ++i) {
      list->candidates.push_back(i);
      list->candidates.push_back(i + 1);
      list->offsets.push_back(static_cast<uint32_t>(list->candidates.size()));
    }
    list->output_row_sum.assign(static_cast<size_t>(model.config->d_model), 0.25f);
    list->output_bias_sum = -3.0;
    model.shortlist = std::move(list);
    model.format_minor = 7;
  };
  seeds.emplace_back("int8-shortlist", listed);
  // int4 blocks are at least 32 inputs wide: the smallest int4 model.
  TestModelSpec int4 = Tiny(false);
  int4.d_model = 32;
  int4.d_ff = 32;
  int4.int4_block = 32;
  seeds.emplace_back("int4-postln-relu", int4);
  for (const auto& [name, spec] : seeds) {
    const std::string path = dir + "/" + name + ".edgemt";
    if (!Write(path, edgemt::testing::BuildTestModelFile(spec))) {
      std::fprintf(stderr, "edgemt-fuzz-seeds: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
