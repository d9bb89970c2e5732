// edgemt-dump-tensors: writes the encoder output and the decoder's logits
// for one source and a forced target prefix, as raw little-endian float32,
// so that tests can compare them with a reference implementation.
//
//   edgemt-dump-tensors MODEL "SOURCE IDS" "FED IDS" OUT_PREFIX
//
// Writes OUT_PREFIX.encoder ([source length, d_model]) and OUT_PREFIX.logits
// ([1 + number of fed ids, vocab]): row t comes from the decoder input
// <s> + fed[:t].
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/translator.h"

namespace {

std::vector<int32_t> ParseIds(const char* text) {
  std::vector<int32_t> ids;
  std::istringstream in(text);
  int32_t id;
  while (in >> id) ids.push_back(id);
  return ids;
}

bool Write(const std::string& path, const float* data, size_t count) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return false;
  const bool ok = std::fwrite(data, sizeof(float), count, file) == count;
  return std::fclose(file) == 0 && ok;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "edgemt-dump-tensors: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) return Fail("usage: edgemt-dump-tensors MODEL \"SOURCE IDS\" \"FED IDS\" OUT_PREFIX");
  auto model = edgemt::Model::Load(argv[1]);
  if (!model.ok()) return Fail(model.status().ToString());
  const std::vector<int32_t> source = ParseIds(argv[2]);
  const std::vector<int32_t> fed = ParseIds(argv[3]);
  const std::string prefix = argv[4];
  edgemt::TranslatorOptions options;
  options.num_threads = 1;
  auto translator = edgemt::Translator::Create(model.value(), options);
  if (!translator.ok()) return Fail(translator.status().ToString());
  edgemt::Translator& t = *translator.value();
  const edgemt::ModelConfig& config = model.value()->config();

  const edgemt::TokenIds input{source.data(), source.size()};
  edgemt::Status status = t.Encode(&input, 1);
  if (!status.ok()) return Fail(status.ToString());
  if (!Write(prefix + ".encoder", t.encoder_output(0), source.size() * static_cast<size_t>(config.d_model)))
    return Fail("cannot write " + prefix + ".encoder");

  std::vector<float> logits;
  const size_t vocab = static_cast<size_t>(config.target_vocab_size);
  int32_t token = config.decoder_start_id;
  for (size_t step = 0; step <= fed.size(); ++step) {
    status = t.DecodeStep(&token);
    if (!status.ok()) return Fail(status.ToString());
    logits.insert(logits.end(), t.logits(0), t.logits(0) + vocab);
    if (step < fed.size()) token = fed[step];
  }
  if (!Write(prefix + ".logits", logits.data(), logits.size())) return Fail("cannot write " + prefix + ".logits");
  return 0;
}
