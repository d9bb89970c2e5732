// edgemt-make-test-model: writes a small random model file (weights from
// tests/support/test_model.cc), so that CLI tests need neither PyTorch nor
// a converted model. Optionally embeds a SentencePiece model as tokenizer.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "test_model.h"

namespace {

const char kUsage[] =
    "usage: edgemt-make-test-model -o FILE [options]\n"
    "  --int8                   int8 weights (default float32)\n"
    "  --d-model N --heads N --d-ff N --layers N\n"
    "  --source-vocab N --target-vocab N --max-positions N --seed N\n"
    "  --tokenizer FILE         a SentencePiece model for both sides (its piece\n"
    "                           count must equal the vocabulary sizes)\n"
    "  --languages XX-YY        the source and target language (for model sets)\n";

bool ParseInt(const char* text, int* out) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 0 || value > (1 << 24)) return false;
  *out = static_cast<int>(value);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  edgemt::testing::TestModelSpec spec;
  std::string output, tokenizer, languages;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    int* number = arg == "--d-model"         ? &spec.d_model
                  : arg == "--heads"         ? &spec.num_heads
                  : arg == "--d-ff"          ? &spec.d_ff
                  : arg == "--source-vocab"  ? &spec.source_vocab
                  : arg == "--target-vocab"  ? &spec.target_vocab
                  : arg == "--max-positions" ? &spec.max_positions
                                             : nullptr;
    int layers = 0, seed = 0;
    if (number != nullptr && has_value && ParseInt(argv[i + 1], number)) {
      ++i;
    } else if (arg == "--layers" && has_value && ParseInt(argv[i + 1], &layers)) {
      spec.encoder_layers = spec.decoder_layers = layers;
      ++i;
    } else if (arg == "--seed" && has_value && ParseInt(argv[i + 1], &seed)) {
      spec.seed = static_cast<uint32_t>(seed);
      ++i;
    } else if (arg == "--int8") {
      spec.int8 = true;
    } else if (arg == "-o" && has_value) {
      output = argv[++i];
    } else if (arg == "--tokenizer" && has_value) {
      tokenizer = argv[++i];
    } else if (arg == "--languages" && has_value && std::string(argv[i + 1]).find('-') != std::string::npos) {
      languages = argv[++i];
    } else {
      std::fprintf(stderr, "edgemt-make-test-model: bad argument %s\n%s", arg.c_str(), kUsage);
      return 2;
    }
  }
  if (output.empty()) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  std::vector<uint8_t> bytes;
  if (!tokenizer.empty()) {
    std::ifstream in(tokenizer, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "edgemt-make-test-model: cannot read %s\n", tokenizer.c_str());
      return 1;
    }
  }
  const size_t dash = languages.find('-');
  spec.mutate = [&](edgemt::fb::ModelT& model) {
    if (!bytes.empty()) {
      model.tokenizer = std::make_unique<edgemt::fb::TokenizerT>();
      model.tokenizer->source_model = bytes;
    }
    if (!languages.empty()) {
      model.metadata->source_language = languages.substr(0, dash);
      model.metadata->target_language = languages.substr(dash + 1);
    }
  };
  const std::vector<uint8_t> file = edgemt::testing::BuildTestModelFile(spec);
  std::ofstream out(output, std::ios::binary);
  out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  if (!out.good()) {
    std::fprintf(stderr, "edgemt-make-test-model: cannot write %s\n", output.c_str());
    return 1;
  }
  return 0;
}
