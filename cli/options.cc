#include "cli/options.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace edgemt::cli {
namespace {

bool ParseNumber(const char* text, double min, double max, float* out) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !(value >= min && value <= max)) return false;
  *out = static_cast<float>(value);
  return true;
}

bool ParseCount(const char* text, int min, int max, int* out) {
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < min || value > max) return false;
  *out = static_cast<int>(value);
  return true;
}

}  // namespace

const char* Usage() {
  return "usage: edgemt-translate --model FILE [options] < input > output\n"
         "       edgemt-translate --models DIR --from LANG --to LANG [options] < input > output\n"
         "Translates standard input line by line: exactly one output line per input line.\n"
         "Each line is a paragraph: its sentences are translated and joined with the line's\n"
         "own whitespace (--n-best, --alternatives, --target-prefix, --score and --input-ids\n"
         "take each line as one sentence, with a warning for a line that holds more).\n"
         "  --model FILE            model file written by edgemt-convert\n"
         "  --models DIR            a folder of model files, each a language pair: --from LANG\n"
         "                          --to LANG pick the model, or two through English when no\n"
         "                          model has the pair (with --document, --html, --threads,\n"
         "                          --batch-size, --cache-mb and --memory-budget-mb only)\n"
         "  --from LANG, --to LANG  the languages (ISO 639-1 codes); --from auto detects each\n"
         "                          line's language (CLD2)\n"
         "  --memory-budget-mb N    with --models: close the least recently used models to keep\n"
         "                          the open ones under N MB (default: no limit)\n"
         "  --info                  print the model's facts (or every model of --models) and exit\n"
         "  --threads N             threads for large matrix products (default: all cores)\n"
         "  --batch-size N          sentences translated together (default 16; 1 when standard\n"
         "                          input is a terminal). Up to 16 x N lines that are already\n"
         "                          there are read ahead, sorted by length into batches, and\n"
         "                          written back in input order\n"
         "  --max-batch-tokens N    also end a batch before its sentences x its longest source\n"
         "                          would pass N tokens (default: no such bound)\n"
         "  --max-length N          at most N output tokens (default: the model's own limit, if\n"
         "                          it has one, else 2 * source length + 10)\n"
         "  --min-length N          no </s> before N output tokens (default 0)\n"
         "  --beam-size N           beam search with N hypotheses (default: the model's own beam\n"
         "                          size, if it has one, else 1: greedy)\n"
         "  --length-penalty A      rank finished hypotheses by score / length^A (default: the\n"
         "                          model's own, if it has one, else 1)\n"
         "  --n-best N              N lines per input line, 'INDEX ||| TRANSLATION ||| SCORE'\n"
         "                          (INDEX counts input lines from 0; N at most --beam-size)\n"
         "  --scores                prefix each output line with its score and a tab\n"
         "  --sampling-topk K       sample each token from the K most likely (0: all; default 1:\n"
         "                          no sampling, the most likely)\n"
         "  --sampling-topp P       sample from the most likely ids adding up to P (default 1)\n"
         "  --temperature T         divide the logits by T before sampling (default 1)\n"
         "  --seed S                the sampling seed: the same seed gives the same output (default 0)\n"
         "  --max-source-length N   longest source in tokens, </s> included (default: the model's)\n"
         "  --long-input MODE       truncate (default, with a warning), error, or split (into parts\n"
         "                          that fit, at semicolons, commas, then spaces, translated and\n"
         "                          joined, with a warning): what to do with a source longer than\n"
         "                          --max-source-length (--document splits unless error)\n"
         "  --packed-cache DIR      keep the weights packed for this CPU in DIR: the first run\n"
         "                          writes a cache file, later runs map it instead of packing\n"
         "  --target-prefix FILE    line N of FILE starts the translation of input line N\n"
         "                          (forced tokens; an empty line: none; ids with --input-ids)\n"
         "  --alternatives          the --n-best lines are alternatives: the N most likely tokens\n"
         "                          after the prefix (or first), each completed by the search\n"
         "                          (N may exceed --beam-size); CTranslate2's return_alternatives\n"
         "  --min-alternative-prob P  leave out alternatives less likely than P (default 0)\n"
         "  --repetition-penalty X  penalize tokens already output by X (default 1: none)\n"
         "  --no-repeat-ngram-size N  never repeat an N-gram of the output (default 0: off)\n"
         "  --disable-unk           never output <unk>\n"
         "  --score FILE            score line N of FILE as the translation of input line N\n"
         "                          instead of translating: 'SUM ||| TRANSLATION ||| LOGPROBS',\n"
         "                          a log-probability per token and then </s>'s\n"
         "  --alignments            append ' ||| ' and the word alignment: 'i-j' pairs, source word\n"
         "                          i (0-based, what spaces separate) to translated word j, from\n"
         "                          the cross-attention of one decoder layer averaged over heads\n"
         "  --alignment-layer N     that layer (default -1: the last; negative counts from the last)\n"
         "  --no-shortlist          decode over the whole target vocabulary even when the model\n"
         "                          has a vocabulary shortlist (docs/shortlist.md)\n"
         "  --memory                at the end, say on standard error how large an arena the\n"
         "                          input needed (the memory plan grows with the longest line\n"
         "                          and batch seen) and how large the limits' would be\n"
         "  --confidence            append ' ||| ' the translation's confidence (0..1: exp of its\n"
         "                          tokens' mean log-probability) and ' ||| ' each word's\n"
         "  --cache-mb N            keep the translations of sentences seen before, up to N MB\n"
         "                          (default 0, and 32 with --document): a repeated sentence\n"
         "                          costs nothing and gives exactly its translation again\n"
         "  --document              the input is documents, a blank line after each: every line\n"
         "                          is split into sentences, translated, and put back with its\n"
         "                          own whitespace (output: the same lines; a sentence that fails\n"
         "                          keeps its source text, with a message)\n"
         "  --html                  as --document, each document HTML: text translated, tags put\n"
         "                          back around the translated words (word alignments), script,\n"
         "                          style, code and translate=\"no\" kept as they are\n"
         "  --stream                write each translation piece by piece as it is produced\n"
         "                          (greedy or sampling, text in and out; one line at a time);\n"
         "                          with --document, each document sentence by sentence\n"
         "  --sentence-per-line     each line is one sentence: translated as it is, not split\n"
         "  --input-ids             input lines are space-separated source ids, </s> included\n"
         "  --output-ids            write output ids (without <s> and </s>) instead of text\n"
         "  --version               EdgeMT's version and the model formats it reads\n"
         "  --help                  this text\n";
}

bool ParseOptions(int argc, char** argv, Options* options, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char** out) {
      if (i + 1 >= argc) {
        *error = arg + " needs a value";
        return false;
      }
      *out = argv[++i];
      return true;
    };
    auto count = [&](int min, int max, int* out) {
      const char* text = nullptr;
      if (!value(&text)) return false;
      if (!ParseCount(text, min, max, out)) {
        *error = arg + " needs a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                 ", not '" + text + "'";
        return false;
      }
      return true;
    };
    const char* text = nullptr;
    if (arg == "--model") {
      if (!value(&text)) return false;
      options->model_path = text;
    } else if (arg == "--models" || arg == "--from" || arg == "--to") {
      if (!value(&text)) return false;
      (arg == "--models" ? options->models_dir : arg == "--from" ? options->from : options->to) = text;
    } else if (arg == "--memory-budget-mb") {
      if (!count(1, 1 << 24, &options->memory_budget_mb)) return false;
    } else if (arg == "--info") {
      options->show_info = true;
    } else if (arg == "--threads") {
      if (!count(1, 256, &options->threads)) return false;
    } else if (arg == "--batch-size") {
      if (!count(1, 4096, &options->batch_size)) return false;
    } else if (arg == "--max-batch-tokens") {
      if (!count(1, 1 << 24, &options->max_batch_tokens)) return false;
    } else if (arg == "--cache-mb") {
      if (!count(0, 1 << 20, &options->cache_mb)) return false;
    } else if (arg == "--max-length") {
      if (!count(1, 65536, &options->max_length)) return false;
    } else if (arg == "--min-length") {
      if (!count(0, 65536, &options->min_length)) return false;
    } else if (arg == "--beam-size") {
      if (!count(1, 256, &options->beam_size)) return false;
    } else if (arg == "--n-best") {
      if (!count(1, 256, &options->n_best)) return false;
    } else if (arg == "--length-penalty" || arg == "--sampling-topp" || arg == "--temperature") {
      if (!value(&text)) return false;
      const bool penalty = arg == "--length-penalty";
      const double min = penalty ? -100.0 : 1e-6, max = penalty ? 100.0 : arg == "--temperature" ? 1e6 : 1.0;
      float* out = penalty ? &options->length_penalty
                           : arg == "--temperature" ? &options->temperature : &options->sampling_topp;
      if (!ParseNumber(text, min, max, out)) {
        *error = arg + " needs a number from " + (penalty ? "-100 to 100" : arg == "--temperature" ? "1e-6 to 1e6" : "1e-6 to 1") +
                 ", not '" + std::string(text) + "'";
        return false;
      }
    } else if (arg == "--sampling-topk") {
      if (!count(0, 1 << 24, &options->sampling_topk)) return false;
    } else if (arg == "--seed") {
      if (!value(&text)) return false;
      errno = 0;
      char* end = nullptr;
      const unsigned long long seed = std::strtoull(text, &end, 10);
      if (errno != 0 || end == text || *end != '\0' || *text == '-') {
        *error = "--seed needs a whole number from 0 to 2^64 - 1, not '" + std::string(text) + "'";
        return false;
      }
      options->seed = seed;
    } else if (arg == "--scores") {
      options->scores = true;
    } else if (arg == "--max-source-length") {
      if (!count(1, 65536, &options->max_source_length)) return false;
    } else if (arg == "--long-input") {
      if (!value(&text)) return false;
      if (std::strcmp(text, "truncate") == 0) {
        options->long_input = LongInput::kTruncate;
      } else if (std::strcmp(text, "error") == 0) {
        options->long_input = LongInput::kError;
      } else if (std::strcmp(text, "split") == 0) {
        options->long_input = LongInput::kSplit;
      } else {
        *error = "--long-input is truncate, error or split, not '" + std::string(text) + "'";
        return false;
      }
    } else if (arg == "--packed-cache") {
      if (!value(&text)) return false;
      if (*text == '\0') {
        *error = "--packed-cache needs a directory";
        return false;
      }
      options->packed_cache_dir = text;
    } else if (arg == "--target-prefix" || arg == "--score") {
      if (!value(&text)) return false;
      (arg == "--score" ? options->score_path : options->target_prefix_path) = text;
    } else if (arg == "--alternatives") {
      options->alternatives = true;
    } else if (arg == "--min-alternative-prob" || arg == "--repetition-penalty") {
      if (!value(&text)) return false;
      const bool probability = arg == "--min-alternative-prob";
      if (!ParseNumber(text, probability ? 0.0 : 1e-6, probability ? 1.0 : 1e6,
                       probability ? &options->min_alternative_prob : &options->repetition_penalty)) {
        *error = arg + " needs a number from " + (probability ? "0 to 1" : "1e-6 to 1e6") + ", not '" + text + "'";
        return false;
      }
    } else if (arg == "--no-repeat-ngram-size") {
      if (!count(0, 1 << 20, &options->no_repeat_ngram_size)) return false;
    } else if (arg == "--disable-unk") {
      options->disable_unk = true;
    } else if (arg == "--alignments") {
      options->alignments = true;
    } else if (arg == "--alignment-layer") {
      if (!count(-64, 63, &options->alignment_layer)) return false;
    } else if (arg == "--no-shortlist") {
      options->use_shortlist = false;
    } else if (arg == "--memory") {
      options->report_memory = true;
    } else if (arg == "--confidence") {
      options->confidence = true;
    } else if (arg == "--stream") {
      options->stream = true;
    } else if (arg == "--document") {
      options->document = true;
    } else if (arg == "--html") {
      options->document = options->html = true;
    } else if (arg == "--sentence-per-line") {
      options->sentence_per_line = true;
    } else if (arg == "--input-ids") {
      options->input_ids = true;
    } else if (arg == "--output-ids") {
      options->output_ids = true;
    } else if (arg == "--help" || arg == "-h") {
      options->show_help = true;
    } else if (arg == "--version") {
      options->show_version = true;
    } else {
      *error = "unknown option " + arg;
      return false;
    }
  }
  if (!options->show_help && !options->show_version && options->model_path.empty() == options->models_dir.empty()) {
    *error = "one of --model FILE or --models DIR is required";
    return false;
  }
  if (!options->models_dir.empty() && !options->show_info &&
      (options->from.empty() || options->to.empty())) {
    *error = "--models needs --from LANG and --to LANG";
    return false;
  }
  if (options->models_dir.empty() && (!options->from.empty() || !options->to.empty() || options->memory_budget_mb)) {
    *error = "--from, --to and --memory-budget-mb go with --models";
    return false;
  }
  if (!options->models_dir.empty() &&
      (options->n_best > 0 || options->scores || options->input_ids || options->output_ids || options->stream ||
       !options->target_prefix_path.empty() || !options->score_path.empty() || options->alignments ||
       options->confidence || options->beam_size > 0 || options->sampling_topk != 1 || options->sentence_per_line ||
       options->max_length > 0 || options->length_penalty != Options::kUnsetLengthPenalty)) {
    *error = "--models translates with each model's own decoding: it takes --document, --html, --threads, "
             "--batch-size, --cache-mb and --memory-budget-mb, not the decoding and output options";
    return false;
  }
  if (options->sampling_topk != 1 && options->beam_size > 1) {
    *error = "sampling (--sampling-topk other than 1) needs --beam-size 1";
    return false;
  }
  if (options->stream && !options->document && (options->beam_size > 1 || options->n_best > 0 || options->scores ||
                          options->input_ids || options->output_ids || options->alignments || options->confidence)) {
    *error = "--stream is for text in and text out with --beam-size 1, without --n-best, --scores, --alignments "
             "or --confidence";
    return false;
  }
  if (options->stream && (!options->target_prefix_path.empty() || !options->score_path.empty())) {
    *error = "--stream does not take --target-prefix or --score";
    return false;
  }
  if (options->html && options->stream) {
    *error = "--html does not stream (--document --stream does)";
    return false;
  }
  if (options->document && (options->n_best > 0 || options->scores || options->input_ids ||
                            options->output_ids || !options->target_prefix_path.empty() ||
                            !options->score_path.empty() || options->alignments || options->confidence)) {
    *error = "--document is for text in and text out, without --n-best, --scores, --target-prefix, "
             "--score, --alignments or --confidence";
    return false;
  }
  if (options->document && options->sentence_per_line) {
    *error = "--sentence-per-line is for line mode: --document splits every line into sentences";
    return false;
  }
  if (options->alternatives && options->alignments) {
    *error = "--alternatives does not give --alignments";
    return false;
  }
  if (!options->score_path.empty() && (options->alignments || options->confidence)) {
    *error = "--score does not take --alignments or --confidence";
    return false;
  }
  if (options->alternatives && options->n_best == 0) {
    *error = "--alternatives needs --n-best N (how many)";
    return false;
  }
  if (!options->alternatives && options->beam_size > 0 && options->n_best > options->beam_size) {
    *error = "--n-best " + std::to_string(options->n_best) + " is more than --beam-size " +
             std::to_string(options->beam_size);
    return false;
  }
  return true;
}

}  // namespace edgemt::cli
