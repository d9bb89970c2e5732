// edgemt-tokenize-lines: the runtime tokenizer's view of text, for tests
// that compare it with the converter's (tokenizer.TextCodec) and with the
// rule Hugging Face's MarianTokenizer follows.
//
//   edgemt-tokenize-lines MODEL < text
//
// For each input line writes "SOURCE IDS<TAB>TEXT": the source tokenizer's
// ids of the line (without </s>), and the target tokenizer's text of those
// same ids (meaningful when both sides share one vocabulary: the round trip).
// An id outside the target vocabulary gives "!" and the error instead.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/tokenizer.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: edgemt-tokenize-lines MODEL < text\n");
    return 2;
  }
  auto model = edgemt::Model::Load(argv[1]);
  if (!model.ok()) {
    std::fprintf(stderr, "edgemt-tokenize-lines: %s\n", model.status().ToString().c_str());
    return 1;
  }
  auto source = edgemt::Tokenizer::Create(*model.value(), edgemt::Tokenizer::Side::kSource);
  auto target = edgemt::Tokenizer::Create(*model.value(), edgemt::Tokenizer::Side::kTarget);
  if (!source.ok() || !target.ok()) {
    std::fprintf(stderr, "edgemt-tokenize-lines: %s\n",
                 (source.ok() ? target.status() : source.status()).ToString().c_str());
    return 1;
  }
  std::string line;
  std::vector<int32_t> ids;
  std::string text;
  while (std::getline(std::cin, line)) {
    const edgemt::Status encoded = source.value()->Encode(line, &ids);
    if (!encoded.ok()) {
      std::printf("!%s\n", encoded.message().c_str());
      continue;
    }
    for (size_t i = 0; i < ids.size(); ++i) std::printf(i ? " %d" : "%d", ids[i]);
    const edgemt::Status decoded = target.value()->Decode(ids.data(), ids.size(), &text);
    std::printf("\t%s\n", decoded.ok() ? text.c_str() : ("!" + decoded.message()).c_str());
  }
  return 0;
}
