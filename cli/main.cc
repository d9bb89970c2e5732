// edgemt-translate: standard input to standard output, one line per line.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <poll.h>
#include <unistd.h>

#include "cli/line_translator.h"
#include "cli/options.h"
#include "edgemt/version.h"

namespace {

// Whether more input can be read without waiting: buffered bytes, or a
// readable (or closed) standard input. A file always can; a program that
// writes a line and waits for its translation cannot, and gets it now.
bool InputWaiting() {
  if (std::cin.rdbuf()->in_avail() != 0) return true;  // buffered bytes, or -1: the end is known
  pollfd input{STDIN_FILENO, POLLIN, 0};
  return poll(&input, 1, 0) > 0;
}

}  // namespace

int main(int argc, char** argv) {
  edgemt::cli::Options options;
  std::string error;
  if (!edgemt::cli::ParseOptions(argc, argv, &options, &error)) {
    std::fprintf(stderr, "edgemt-translate: %s\n%s", error.c_str(), edgemt::cli::Usage());
    return 2;
  }
  if (options.show_help) {
    std::fputs(edgemt::cli::Usage(), stdout);
    return 0;
  }
  if (options.show_version) {
    std::printf("edgemt-translate %s (model formats %s)\n", edgemt::Version(), edgemt::ModelFormats());
    return 0;
  }
  // A person typing gets each line's translation as soon as it is typed.
  const bool interactive = isatty(STDIN_FILENO) != 0;
  if (options.batch_size == 0)
    options.batch_size = interactive || (options.stream && !options.document) ? 1 : edgemt::cli::kDefaultBatchSize;
  auto translator = edgemt::cli::LineTranslator::Create(options);
  if (!translator.ok()) {
    std::fprintf(stderr, "edgemt-translate: %s\n", translator.status().ToString().c_str());
    return 1;
  }
  const auto finish = [&options, &translator]() {
    if (options.report_memory)
      std::fprintf(stderr, "edgemt-translate: %s\n", translator.value()->MemoryReport().c_str());
    return 0;
  };
  if (options.stream && !options.document) {
    // Line at a time: each line's pieces go out as the decoder produces them.
    size_t line_number = 1;
    for (std::string line; std::getline(std::cin, line); ++line_number) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      translator.value()->StreamLine(line, line_number);
    }
    return finish();
  }
  std::ios::sync_with_stdio(false);
  if (options.document) {
    // A document at a time: its lines up to a blank line (or the input's
    // end, or, typed, the lines there are), line breaks kept; the blank
    // line is copied.
    size_t line_number = 1;
    std::string document, line;
    bool more = true;
    while (more) {
      document.clear();
      const size_t first = line_number;
      bool blank = false;
      while ((more = static_cast<bool>(std::getline(std::cin, line)))) {
        ++line_number;
        blank = line.find_first_not_of(" \t\r") == std::string::npos;
        if (blank) break;
        document.append(line).push_back('\n');
        if (interactive && !InputWaiting()) break;
      }
      if (!document.empty() && options.stream)
        translator.value()->StreamDocument(document, first);
      else if (!document.empty())
        std::cout << translator.value()->TranslateDocument(document, first);
      if (blank) std::cout << line << '\n';
      std::cout.flush();
    }
    return finish();
  }
  // A window of lines at a time: the translator sorts it by length into
  // batches and gives the results back in input order. The window takes
  // the lines already there, up to its size: it never waits for more.
  const size_t window = interactive ? 1 : static_cast<size_t>(options.batch_size) * edgemt::cli::kReadAheadBatches;
  std::vector<std::string> lines, outputs;
  size_t line_number = 1;
  std::string line;
  bool more = true;
  while (more) {
    lines.clear();
    while (lines.size() < window && (lines.empty() || InputWaiting()) &&
           (more = static_cast<bool>(std::getline(std::cin, line)))) {
      // In a file with CRLF line endings the \r belongs to the ending, not the text.
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(line);
    }
    if (lines.empty()) break;
    translator.value()->TranslateLines(lines, line_number, &outputs);
    for (const std::string& output : outputs) {
      std::cout.write(output.data(), static_cast<std::streamsize>(output.size()));
      std::cout.put('\n');
    }
    std::cout.flush();  // a window at a time, so that a pipe sees results as they come
    line_number += lines.size();
  }
  return finish();
}
