// The smallest use of the EdgeMT API: load a model, translate one sentence.
//   edgemt-minimal MODEL.edgemt "A man is riding a bicycle."
#include <cstdio>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/tokenizer.h"
#include "edgemt/translator.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL SENTENCE\n", argv[0]);
    return 2;
  }
  auto model = edgemt::Model::Load(argv[1]);
  if (!model.ok()) return std::fprintf(stderr, "%s\n", model.status().ToString().c_str()), 1;
  auto source = edgemt::Tokenizer::Create(*model.value(), edgemt::Tokenizer::Side::kSource);
  auto target = edgemt::Tokenizer::Create(*model.value(), edgemt::Tokenizer::Side::kTarget,
                                          source.ok() ? source.value().get() : nullptr);  // one copy of a joint vocabulary
  auto translator = edgemt::Translator::Create(model.value());
  if (!source.ok() || !target.ok() || !translator.ok()) {
    std::fprintf(stderr, "%s\n", (!source.ok() ? source.status() : !target.ok() ? target.status() : translator.status()).ToString().c_str());
    return 1;
  }

  std::vector<int32_t> ids;
  edgemt::Status status = source.value()->Encode(argv[2], &ids);
  ids.push_back(model.value()->config().eos_id);  // sources end with </s>
  edgemt::TokenIds input{ids.data(), ids.size()}, output;
  if (status.ok()) status = translator.value()->Translate(&input, 1, &output);
  std::string text;
  if (status.ok()) status = target.value()->Decode(output.data, output.size, &text);
  if (!status.ok()) return std::fprintf(stderr, "%s\n", status.ToString().c_str()), 1;
  std::printf("%s\n", text.c_str());
  return 0;
}
