// edgemt-bench-model: writes a random model file (tests/support/test_model.cc,
// no Python, no ../shared) for benchmark smoke tests and quick measurements.
//
//   edgemt-bench-model OUT_FILE [--preset micro|tiny|base] [--int8] [--seed N]
//
// The presets have the shapes of ../shared/bench/make_random_checkpoint.py's
// (micro: d64, 2+2 layers, vocabularies 500/600; tiny: d256, 4 heads, d_ff
// 1024, 6+2 layers, 16k; base: d512, 8 heads, 2048, 6+6, 32k), 512
// positions. The weights are random (int8: quantized per row, as the
// converter does), so a model from here measures speed only, never accuracy.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "test_model.h"

namespace {

int Usage() {
  std::fprintf(stderr, "usage: edgemt-bench-model OUT_FILE [--preset micro|tiny|base] [--int8] [--seed N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string out = argv[1];
  std::string preset = "micro";
  edgemt::testing::TestModelSpec spec;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--int8") {
      spec.int8 = true;
    } else if (arg == "--preset" && i + 1 < argc) {
      preset = argv[++i];
    } else if (arg == "--seed" && i + 1 < argc) {
      spec.seed = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      return Usage();
    }
  }
  spec.max_positions = 512;
  if (preset == "micro") {
    spec.d_model = 64, spec.num_heads = 4, spec.d_ff = 128, spec.encoder_layers = 2, spec.decoder_layers = 2;
    spec.source_vocab = 500, spec.target_vocab = 600;
  } else if (preset == "tiny") {
    spec.d_model = 256, spec.num_heads = 4, spec.d_ff = 1024, spec.encoder_layers = 6, spec.decoder_layers = 2;
    spec.source_vocab = 16000, spec.target_vocab = 16000;
  } else if (preset == "base") {
    spec.d_model = 512, spec.num_heads = 8, spec.d_ff = 2048, spec.encoder_layers = 6, spec.decoder_layers = 6;
    spec.source_vocab = 32000, spec.target_vocab = 32000;
  } else {
    return Usage();
  }
  const std::vector<uint8_t> bytes = edgemt::testing::BuildTestModelFile(spec);
  FILE* file = std::fopen(out.c_str(), "wb");
  if (file == nullptr) {
    std::fprintf(stderr, "edgemt-bench-model: cannot write %s\n", out.c_str());
    return 1;
  }
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  if (std::fclose(file) != 0 || !ok) {
    std::fprintf(stderr, "edgemt-bench-model: cannot write %s\n", out.c_str());
    return 1;
  }
  std::printf("wrote %s: %s preset, %s, %zu bytes\n", out.c_str(), preset.c_str(), spec.int8 ? "int8" : "float32",
              bytes.size());
  return 0;
}
