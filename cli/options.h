// Command-line options of edgemt-translate.
#pragma once

#include <string>

#include "edgemt/text_translator.h"

namespace edgemt::cli {

// Chosen from measurements (BENCHMARKS.md, "Translating files").
constexpr int kDefaultBatchSize = 16;
// Lines read ahead, sorted by length and translated before any is written:
// this many batches' worth (standard input that is a terminal: one line).
constexpr int kReadAheadBatches = 16;

struct Options {
  std::string model_path;
  std::string models_dir;      // --models: a folder of model files (a set), with --from and --to
  std::string from, to;        // languages; from may be "auto" (detected per line)
  int memory_budget_mb = 0;    // --models: keep the open models under this (0: no limit)
  bool show_info = false;      // --info: the model's (or set's) facts, no translation
  int threads = 0;
  int batch_size = 0;          // 0: kDefaultBatchSize, or 1 when standard input is a terminal or --stream
  int max_batch_tokens = 0;    // 0: batches bounded by batch_size alone
  int cache_mb = -1;           // the translation cache; -1: 0, or 32 with --document
  int max_length = 0;  // 0: the model's default, else the reference rule, min(2 * source + 10, model positions)
  int min_length = 0;
  int beam_size = 0;          // 1: greedy; 0: the model's default beam size (1 without one, or to sample or stream)
  static constexpr float kUnsetLengthPenalty = -1e9f;  // the model's own (ModelDecodeDefaults), else 1
  float length_penalty = kUnsetLengthPenalty;
  int n_best = 0;             // 0: one line per input line; N: N lines "INDEX ||| TRANSLATION ||| SCORE"
  bool scores = false;        // prefix each line with its score and a tab
  int sampling_topk = 1;      // 1: no sampling
  float sampling_topp = 1.0f;
  float temperature = 1.0f;
  unsigned long long seed = 0;
  int max_source_length = 0;  // 0: the model's positions
  std::string packed_cache_dir;  // empty: no packed-cache file
  bool input_ids = false;
  bool output_ids = false;
  bool stream = false;        // pieces as they come, one line at a time
  bool sentence_per_line = false;  // each line is one sentence: not split (else a line is a paragraph)
  bool document = false;      // input is documents (a blank line between two), split into sentences
  bool html = false;          // and they are HTML (implies document)
  std::string target_prefix_path;  // per input line, the start of its translation (empty line: none)
  std::string score_path;     // per input line, a translation to score instead of translating
  bool alternatives = false;  // --n-best alternatives at the first position after the prefix
  float min_alternative_prob = 0.0f;
  float repetition_penalty = 1.0f;
  int no_repeat_ngram_size = 0;
  bool disable_unk = false;
  bool alignments = false;    // append ' ||| ' and the word alignment (i-j pairs)
  int alignment_layer = -1;   // the decoder layer they come from (negative: from the last)
  bool use_shortlist = true;  // the model's vocabulary shortlist, when it has one
  bool report_memory = false;  // --memory
  bool confidence = false;    // append ' ||| ' the sentence's confidence ' ||| ' each word's
  LongInput long_input = LongInput::kTruncate;
  bool show_help = false;
  bool show_version = false;
};

// Parses argv; on a usage error returns false and sets `error`.
bool ParseOptions(int argc, char** argv, Options* options, std::string* error);
const char* Usage();

}  // namespace edgemt::cli
