// edgemt-split-sentences: the document layer's sentence splitter
// (runtime/src/text/sentence_splitter.h) on each input line, for the tests that
// measure it on the Multi30k dev paragraphs.
//
//   edgemt-split-sentences LANGUAGE < text
//
// For each input line writes the byte offsets where its sentences end,
// space-separated (an empty line: none).
#include <cstdio>
#include <iostream>
#include <string>

#include "text/sentence_splitter.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: edgemt-split-sentences LANGUAGE < text\n");
    return 2;
  }
  for (std::string line; std::getline(std::cin, line);) {
    std::string out;
    for (const edgemt::TextSpan& s : edgemt::SplitSentences(line, argv[1]))
      out += (out.empty() ? "" : " ") + std::to_string(s.end);
    std::printf("%s\n", out.c_str());
  }
  return 0;
}
