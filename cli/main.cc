// edgemt-translate: standard input to standard output, one line per line.
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <poll.h>
#include <unistd.h>

#include "cli/line_translator.h"
#include "cli/model_info.h"
#include "cli/options.h"
#include "cli/output.h"
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
  edgemt::cli::Output out;
  if (options.show_help || options.show_version) {
    const std::string text = options.show_help ? std::string(edgemt::cli::Usage())
                                               : std::string("edgemt-translate ") + edgemt::Version() +
                                                     " (model formats " + edgemt::ModelFormats() + ")\n";
    if (out.Write(text) && out.Close()) return 0;
    std::fprintf(stderr, "edgemt-translate: %s\n", out.Error().c_str());
    return 1;
  }
  if (options.show_info) {
    std::string text;
    if (!options.models_dir.empty()) {
      auto catalog = edgemt::Catalog::Open(options.models_dir);
      if (catalog.ok()) text = edgemt::cli::ModelSetInfo(*catalog.value());
      else error = catalog.status().ToString();
    } else {
      auto model = edgemt::Model::Load(options.model_path);
      if (model.ok()) text = edgemt::cli::ModelInfo(options.model_path, *model.value());
      else error = model.status().ToString();
    }
    if (!error.empty()) {
      std::fprintf(stderr, "edgemt-translate: %s\n", error.c_str());
      return 1;
    }
    if (out.Write(text) && out.Close()) return 0;
    std::fprintf(stderr, "edgemt-translate: %s\n", out.Error().c_str());
    return 1;
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
  // Every run ends here: the memory report, then standard output closed and checked.
  const auto finish = [&options, &translator, &out]() {
    if (options.report_memory)
      std::fprintf(stderr, "edgemt-translate: %s\n", translator.value()->MemoryReport().c_str());
    if (!out.Close()) {
      std::fprintf(stderr, "edgemt-translate: %s\n", out.Error().c_str());
      return 1;
    }
    return 0;
  };
  if (options.stream && !options.document) {
    // Line at a time: each line's pieces go out as the decoder produces them.
    size_t line_number = 1;
    for (std::string line; !out.failed() && std::getline(std::cin, line); ++line_number) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      translator.value()->StreamLine(line, line_number, out);
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
    while (more && !out.failed()) {
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
        translator.value()->StreamDocument(document, first, out);
      else if (!document.empty())
        out.Write(translator.value()->TranslateDocument(document, first));
      if (blank) out.Write(line) && out.Write("\n");
      out.Flush();
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
  while (more && !out.failed()) {
    lines.clear();
    while (lines.size() < window && (lines.empty() || InputWaiting()) &&
           (more = static_cast<bool>(std::getline(std::cin, line)))) {
      // In a file with CRLF line endings the \r belongs to the ending, not the text.
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(line);
    }
    if (lines.empty()) break;
    translator.value()->TranslateLines(lines, line_number, &outputs);
    for (const std::string& output : outputs) out.Write(output) && out.Write("\n");
    out.Flush();  // a window at a time, so that a pipe sees results as they come
    line_number += lines.size();
  }
  return finish();
}
