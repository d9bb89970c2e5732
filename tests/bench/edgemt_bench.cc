// edgemt-bench: times loading and translating a set of sources, and reports
// where the time goes, as one JSON object on stdout.
//
//   edgemt-bench --model FILE (--input-ids FILE | --input FILE)
//                [--threads N] [--batch-size N] [--min-length N] [--max-length N]
//                [--repeat N] [--limit N] [--output FILE]
//
// Each repetition translates every source (after one untimed warm-up pass);
// per-sentence figures are for batch size 1. Heap allocations are counted
// during the timed repetitions: the runtime promises zero.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "allocation_counter.h"
#include "edgemt/model.h"
#include "edgemt/translator.h"
#ifdef EDGEMT_WITH_SENTENCEPIECE
#include "edgemt/tokenizer.h"
#endif

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double, std::milli>(end - start).count();
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "edgemt-bench: %s\n", message.c_str());
  return 1;
}

struct Args {
  std::string model, input_ids, input_text, output;
  int threads = 1, batch = 1, min_length = 0, max_length = 0, repeat = 3, limit = 0;
};

bool Parse(int argc, char** argv, Args* args) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (a == "--model") args->model = v;
    else if (a == "--input-ids") args->input_ids = v;
    else if (a == "--input") args->input_text = v;
    else if (a == "--output") args->output = v;
    else if (a == "--threads") args->threads = std::atoi(v);
    else if (a == "--batch-size") args->batch = std::atoi(v);
    else if (a == "--min-length") args->min_length = std::atoi(v);
    else if (a == "--max-length") args->max_length = std::atoi(v);
    else if (a == "--repeat") args->repeat = std::atoi(v);
    else if (a == "--limit") args->limit = std::atoi(v);
    else return false;
  }
  return !args->model.empty() && (args->input_ids.empty() != args->input_text.empty()) && args->threads >= 1 &&
         args->batch >= 1 && args->repeat >= 1;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!Parse(argc, argv, &args))
    return Fail("usage: edgemt-bench --model FILE (--input-ids FILE | --input FILE) [--threads N] [--batch-size N] "
                "[--min-length N] [--max-length N] [--repeat N] [--limit N] [--output FILE]");

  const auto load_start = Clock::now();
  auto model = edgemt::Model::Load(args.model);
  if (!model.ok()) return Fail(model.status().ToString());
  edgemt::TranslatorOptions options;
  options.num_threads = args.threads;
  options.max_batch_size = args.batch;
  options.profile = true;
  if (args.max_length > 0) options.max_target_length = args.max_length;
  auto created = edgemt::Translator::Create(model.value(), options);
  if (!created.ok()) return Fail(created.status().ToString());
  const double load_ms = Ms(load_start, Clock::now());
  edgemt::Translator& translator = *created.value();
  const edgemt::ModelConfig& config = model.value()->config();

  // Sources as ids.
  std::vector<std::vector<int32_t>> sources;
  std::ifstream in(args.input_ids.empty() ? args.input_text : args.input_ids);
  if (!in) return Fail("cannot read the input");
#ifdef EDGEMT_WITH_SENTENCEPIECE
  std::unique_ptr<edgemt::Tokenizer> source_tokenizer, target_tokenizer;
  if (!args.input_text.empty() || !args.output.empty()) {
    auto s = edgemt::Tokenizer::Create(*model.value(), edgemt::Tokenizer::Side::kSource);
    auto t = edgemt::Tokenizer::Create(*model.value(), edgemt::Tokenizer::Side::kTarget);
    if (!args.input_text.empty() && !s.ok()) return Fail(s.status().ToString());
    if (s.ok()) source_tokenizer = std::move(s.value());
    if (t.ok()) target_tokenizer = std::move(t.value());
  }
#endif
  for (std::string line; std::getline(in, line);) {
    if (args.limit > 0 && static_cast<int>(sources.size()) >= args.limit) break;
    std::vector<int32_t> ids;
    if (!args.input_ids.empty()) {
      std::istringstream fields(line);
      for (int32_t id; fields >> id;) ids.push_back(id);
    } else {
#ifdef EDGEMT_WITH_SENTENCEPIECE
      if (!source_tokenizer->Encode(line, &ids).ok()) return Fail("cannot tokenize: " + line);
      ids.push_back(config.eos_id);
#endif
    }
    if (ids.size() > static_cast<size_t>(translator.options().max_source_length))
      ids.resize(static_cast<size_t>(translator.options().max_source_length));
    sources.push_back(ids);
  }
  if (sources.empty()) return Fail("no sources");

  std::vector<edgemt::TokenIds> inputs, outputs(sources.size());
  for (const auto& s : sources) inputs.push_back({s.data(), s.size()});
  edgemt::DecodeOptions decode;
  decode.min_length = args.min_length;
  decode.max_length = args.max_length;

  // One pass: returns output tokens; per-sentence times when batch is 1.
  std::vector<double> sentence_ms;
  auto pass = [&](std::vector<std::vector<int32_t>>* keep) -> long {
    long tokens = 0;
    for (size_t first = 0; first < inputs.size(); first += static_cast<size_t>(args.batch)) {
      const size_t count = std::min(static_cast<size_t>(args.batch), inputs.size() - first);
      const auto start = Clock::now();
      const edgemt::Status status = translator.Translate(&inputs[first], count, &outputs[first], decode);
      sentence_ms.push_back(Ms(start, Clock::now()) / static_cast<double>(count));
      if (!status.ok()) {
        std::fprintf(stderr, "edgemt-bench: %s\n", status.ToString().c_str());
        std::exit(1);
      }
      for (size_t i = 0; i < count; ++i) {
        tokens += static_cast<long>(outputs[first + i].size);
        if (keep) (*keep)[first + i].assign(outputs[first + i].data, outputs[first + i].data + outputs[first + i].size);
      }
    }
    return tokens;
  };

  std::vector<std::vector<int32_t>> results(sources.size());
  pass(&results);  // warm-up, and the outputs to write
  sentence_ms.reserve(inputs.size() * static_cast<size_t>(args.repeat));
  translator.ResetProfile();
  sentence_ms.clear();
  std::vector<double> pass_ms;
  pass_ms.reserve(static_cast<size_t>(args.repeat));
  long tokens = 0;
  edgemt::testing::StartCountingAllocations();
  for (int r = 0; r < args.repeat; ++r) {
    const auto start = Clock::now();
    tokens = pass(nullptr);
    pass_ms.push_back(Ms(start, Clock::now()));
  }
  const size_t allocations = edgemt::testing::StopCountingAllocations();

  if (!args.output.empty()) {
    std::ofstream out(args.output);
    for (const auto& ids : results) {
      std::string line;
#ifdef EDGEMT_WITH_SENTENCEPIECE
      if (target_tokenizer && !args.input_text.empty()) {
        target_tokenizer->Decode(ids.data(), ids.size(), &line);
        out << line << '\n';
        continue;
      }
#endif
      for (size_t i = 0; i < ids.size(); ++i) line += (i ? " " : "") + std::to_string(ids[i]);
      out << line << '\n';
    }
  }

  const edgemt::TranslationProfile& p = translator.profile();
  const double median_pass = Median(pass_ms);
  const double min_pass = *std::min_element(pass_ms.begin(), pass_ms.end());
  const double n = static_cast<double>(sources.size());
  const double steps = static_cast<double>(p.decoder_steps) / args.repeat;
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "{\"model\": \"%s\", \"file_bytes\": %zu, \"int8\": %s, \"threads\": %d, \"batch\": %d, \"sentences\": %zu,\n"
      " \"repeat\": %d, \"load_ms\": %.3f, \"arena_bytes\": %zu, \"output_tokens\": %ld,\n"
      " \"median_ms_per_sentence\": %.4f, \"min_ms_per_sentence\": %.4f, \"tokens_per_s\": %.1f, \"best_tokens_per_s\": %.1f,\n"
      " \"encoder_ms_per_sentence\": %.4f, \"decoder_ms_per_step\": %.5f, \"decoder_steps_per_pass\": %.0f,\n"
      " \"xnnpack_share\": %.4f, \"attention_share\": %.4f, \"layer_norm_share\": %.4f, \"embedding_share\": %.4f, "
      "\"other_share\": %.4f,\n"
      " \"allocations_while_translating\": %zu, \"self_peak_rss_kb\": %ld}\n",
      args.model.c_str(), model.value()->file_size(), model.value()->is_int8() ? "true" : "false", args.threads,
      args.batch, sources.size(), args.repeat, load_ms, translator.arena_bytes(), tokens, median_pass / n, min_pass / n,
      static_cast<double>(tokens) / (median_pass / 1000.0), static_cast<double>(tokens) / (min_pass / 1000.0),
      p.encoder_ms / args.repeat / n, steps > 0 ? p.decoder_ms / args.repeat / steps : 0.0, steps,
      p.xnnpack_ms / (p.encoder_ms + p.decoder_ms), p.attention_ms / (p.encoder_ms + p.decoder_ms),
      p.layer_norm_ms / (p.encoder_ms + p.decoder_ms), p.embedding_ms / (p.encoder_ms + p.decoder_ms),
      p.other_ms / (p.encoder_ms + p.decoder_ms), allocations, usage.ru_maxrss);
  return 0;
}
