// edgemt-bench: times loading and translating a set of sources, and reports
// where the time goes, as one JSON object on stdout.
//
//   edgemt-bench --model FILE (--input-ids FILE | --input FILE)
//                [--threads N] [--batch-size N] [--min-length N] [--max-length N]
//                [--repeat N] [--limit N] [--output FILE] [--profile-passes N]
//                [--packed-cache DIR] [--translators N] [--beam-size N] [--no-shortlist]
//                [--sort-by-length]
//
// Each repetition translates every source (after one untimed warm-up pass),
// in batches of --batch-size; per-sentence figures are a pass's time divided
// by the number of sources (so for batch 1, the mean latency of one
// sentence). "median_ms_per_sentence" / "min_ms_per_sentence" come from the
// median / fastest of the --repeat passes, "tokens_per_s" /
// "best_tokens_per_s" likewise; "median_sentence_ms" is the median of the
// individual call times (batch 1: of every sentence in every repetition).
// --sort-by-length batches the sources in order of length, as the text
// layer and the CLI do (--output still follows the input's order).
// Heap allocations are counted during the timed repetitions: the runtime
// promises zero.
//
// Timing and profiling are separate: the timed translator runs without
// TranslatorOptions::profile (which costs two clock reads per operation).
// "encoder_ms_per_sentence" times encoding alone (Translator::Encode over the
// same batches, --repeat passes, median); "decoder_ms_per_step" is the rest
// of a translation pass divided by the decoder steps (a step of a batch counts
// once; the token choice is part of the step). Then, unless
// --profile-passes is 0, that translator is destroyed and a profiling one is
// created which, after translating the first batch as a warm-up, runs N
// passes in which each batch is first encoded alone (Translator::Encode) and
// then translated: the decoder's categories are the translations' minus the
// encodings' (differences below zero count as zero). The *_share keys are fractions of the profiled
// encoder + decoder time; "profile" holds the same categories in ms, for the
// encoder per sentence and for one decoder step, with their shares.
// "load_ms" is Model::Load plus Translator::Create (packing the weights,
// allocating the arena): the time until the first translation can start;
// "model_load_ms" is Model::Load alone (mapping and verifying the file).
// With --packed-cache, "packed_cache" says whether the packed weights were
// "loaded" from the cache file or "packed" (and written), or why not.
// --translators N creates N translators from the one Model (the first is
// timed); "rss_after_create_kb" is the resident memory once all exist,
// before anything is translated (their arenas are allocated, not touched).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  std::string model, input_ids, input_text, output, packed_cache;
  int translators = 1;
  int beam = 1;
  bool use_shortlist = true;  // the model's vocabulary shortlist, when it has one
  bool sort_by_length = false;
  int threads = 1, batch = 1, min_length = 0, max_length = 0, repeat = 3, limit = 0, profile_passes = 1;
};

bool Parse(int argc, char** argv, Args* args) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-shortlist") {
      args->use_shortlist = false;
      continue;
    }
    if (a == "--sort-by-length") {
      args->sort_by_length = true;
      continue;
    }
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
    else if (a == "--profile-passes") args->profile_passes = std::atoi(v);
    else if (a == "--packed-cache") args->packed_cache = v;
    else if (a == "--translators") args->translators = std::atoi(v);
    else if (a == "--beam-size") args->beam = std::atoi(v);
    else return false;
  }
  return !args->model.empty() && (args->input_ids.empty() != args->input_text.empty()) && args->threads >= 1 &&
         args->batch >= 1 && args->repeat >= 1 && args->profile_passes >= 0 && args->translators >= 1 && args->beam >= 1;
}

// Peak resident memory of this process image. VmHWM, not getrusage's
// ru_maxrss: the latter keeps the high-water mark of the process image that
// exec replaced (the benchmark driver, ~20 MB), which would hide small figures.
long StatusKb(const char* key);

long PeakRssKb() { return StatusKb("VmHWM:"); }
long RssKb() { return StatusKb("VmRSS:"); }

long StatusKb(const char* key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, std::strlen(key), key) == 0) return std::atol(line.c_str() + std::strlen(key));
  }
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Profile categories as an array, for differences.
struct Categories {
  double xnnpack = 0, attention = 0, layer_norm = 0, embedding = 0, other = 0;
  static Categories Of(const edgemt::TranslationProfile& p) {
    return Categories{p.xnnpack_ms, p.attention_ms, p.layer_norm_ms, p.embedding_ms, p.other_ms};
  }
  // Differences of noisy timings, never below zero.
  Categories Minus(const Categories& o) const {
    auto d = [](double a, double b) { return std::max(0.0, a - b); };
    return Categories{d(xnnpack, o.xnnpack), d(attention, o.attention), d(layer_norm, o.layer_norm),
                      d(embedding, o.embedding), d(other, o.other)};
  }
  Categories Scaled(double f) const {
    return Categories{xnnpack * f, attention * f, layer_norm * f, embedding * f, other * f};
  }
};

void Accumulate(const edgemt::TranslationProfile& p, edgemt::TranslationProfile* sum) {
  sum->encoder_ms += p.encoder_ms;
  sum->decoder_ms += p.decoder_ms;
  sum->decoder_steps += p.decoder_steps;
  sum->xnnpack_ms += p.xnnpack_ms;
  sum->attention_ms += p.attention_ms;
  sum->layer_norm_ms += p.layer_norm_ms;
  sum->embedding_ms += p.embedding_ms;
  sum->other_ms += p.other_ms;
  sum->cache_reorder_ms += p.cache_reorder_ms;
}

std::string Json(const Categories& c, double wall_ms) {
  char buffer[512];
  const double t = wall_ms > 0 ? wall_ms : 1.0;
  std::snprintf(buffer, sizeof(buffer),
                "{\"ms\": %.5f, \"xnnpack_ms\": %.5f, \"attention_ms\": %.5f, \"layer_norm_ms\": %.5f, "
                "\"embedding_ms\": %.5f, \"other_ms\": %.5f, \"xnnpack_share\": %.4f, \"attention_share\": %.4f, "
                "\"layer_norm_share\": %.4f, \"embedding_share\": %.4f, \"other_share\": %.4f}",
                wall_ms, c.xnnpack, c.attention, c.layer_norm, c.embedding, c.other, c.xnnpack / t, c.attention / t,
                c.layer_norm / t, c.embedding / t, c.other / t);
  return buffer;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!Parse(argc, argv, &args))
    return Fail("usage: edgemt-bench --model FILE (--input-ids FILE | --input FILE) [--threads N] [--batch-size N] "
                "[--min-length N] [--max-length N] [--repeat N] [--limit N] [--output FILE] [--profile-passes N] "
                "[--packed-cache DIR] [--translators N] [--beam-size N] [--no-shortlist]");

  edgemt::TranslatorOptions options;
  options.num_threads = args.threads;
  options.max_batch_size = args.batch;
  options.max_beam_size = args.beam;
  if (args.max_length > 0) options.max_target_length = args.max_length;
  options.packed_cache_dir = args.packed_cache;

  const auto load_start = Clock::now();
  auto model = edgemt::Model::Load(args.model);
  if (!model.ok()) return Fail(model.status().ToString());
  const auto create_start = Clock::now();
  auto created = edgemt::Translator::Create(model.value(), options);
  if (!created.ok()) return Fail(created.status().ToString());
  const auto load_end = Clock::now();
  const double load_ms = Ms(load_start, load_end), model_load_ms = Ms(load_start, create_start);
  std::unique_ptr<edgemt::Translator> translator = std::move(created.value());
  const edgemt::ModelConfig& config = model.value()->config();
  const size_t arena_bytes = translator->arena_bytes();
  std::string packed_cache = "none";
  if (!args.packed_cache.empty()) {
    packed_cache = translator->packed_cache_loaded() ? "loaded" : "packed";
    if (!translator->packed_cache_status().ok()) packed_cache = translator->packed_cache_status().message();
    for (char& c : packed_cache) if (c == '"' || c == '\\') c = '\'';
  }
  std::vector<std::unique_ptr<edgemt::Translator>> more_translators;
  for (int i = 1; i < args.translators; ++i) {
    auto more = edgemt::Translator::Create(model.value(), options);
    if (!more.ok()) return Fail(more.status().ToString());
    more_translators.push_back(std::move(more.value()));
  }
  const long rss_after_create_kb = RssKb();

  // Sources as ids.
  std::vector<std::vector<int32_t>> sources;
  std::ifstream in(args.input_ids.empty() ? args.input_text : args.input_ids);
  if (!in) return Fail("cannot read the input");
#ifdef EDGEMT_WITH_SENTENCEPIECE
  std::unique_ptr<edgemt::Tokenizer> source_tokenizer, target_tokenizer;
  if (!args.input_text.empty() || !args.output.empty()) {
    auto s = edgemt::Tokenizer::Create(*model.value(), edgemt::Tokenizer::Side::kSource);
    auto t = edgemt::Tokenizer::Create(*model.value(), edgemt::Tokenizer::Side::kTarget, s.ok() ? s.value().get() : nullptr);
    if (!args.input_text.empty() && !s.ok()) return Fail(s.status().ToString());
    if (s.ok()) source_tokenizer = std::move(s.value());
    if (t.ok()) target_tokenizer = std::move(t.value());
  }
#else
  if (!args.input_text.empty()) return Fail("--input needs SentencePiece (EDGEMT_WITH_SENTENCEPIECE); use --input-ids");
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
    if (ids.size() > static_cast<size_t>(translator->options().max_source_length))
      ids.resize(static_cast<size_t>(translator->options().max_source_length));
    sources.push_back(ids);
  }
  if (sources.empty()) return Fail("no sources");
  // order[i]: the input line of sources[i].
  std::vector<size_t> order(sources.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (args.sort_by_length) {
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return sources[a].size() < sources[b].size(); });
    std::vector<std::vector<int32_t>> sorted;
    sorted.reserve(sources.size());
    for (size_t i : order) sorted.push_back(std::move(sources[i]));
    sources = std::move(sorted);
  }

  std::vector<edgemt::TokenIds> inputs, outputs(sources.size());
  for (const auto& s : sources) inputs.push_back({s.data(), s.size()});
  edgemt::DecodeOptions decode;
  decode.min_length = args.min_length;
  decode.max_length = args.max_length;
  decode.beam_size = args.beam;
  decode.use_shortlist = args.use_shortlist;
  const size_t batch = static_cast<size_t>(args.batch);

  auto check = [](const edgemt::Status& status) {
    if (!status.ok()) {
      std::fprintf(stderr, "edgemt-bench: %s\n", status.ToString().c_str());
      std::exit(1);
    }
  };
  // One translation pass: returns output tokens; appends each call's time per
  // sentence to `call_ms` if given.
  auto pass = [&](edgemt::Translator& t, std::vector<double>* call_ms,
                  std::vector<std::vector<int32_t>>* keep) -> long {
    long tokens = 0;
    for (size_t first = 0; first < inputs.size(); first += batch) {
      const size_t count = std::min(batch, inputs.size() - first);
      const auto start = Clock::now();
      check(t.Translate(&inputs[first], count, &outputs[first], decode));
      if (call_ms) call_ms->push_back(Ms(start, Clock::now()) / static_cast<double>(count));
      for (size_t i = 0; i < count; ++i) {
        tokens += static_cast<long>(outputs[first + i].size);
        if (keep) (*keep)[first + i].assign(outputs[first + i].data, outputs[first + i].data + outputs[first + i].size);
      }
    }
    return tokens;
  };
  // One pass of encoding alone, over the same batches.
  auto encode_pass = [&](edgemt::Translator& t) {
    for (size_t first = 0; first < inputs.size(); first += batch)
      check(t.Encode(&inputs[first], std::min(batch, inputs.size() - first)));
  };

  std::vector<std::vector<int32_t>> results(sources.size());
  pass(*translator, nullptr, &results);  // warm-up, and the outputs to write
  std::vector<double> sentence_ms, pass_ms, encode_ms;
  sentence_ms.reserve(inputs.size() * static_cast<size_t>(args.repeat));
  pass_ms.reserve(static_cast<size_t>(args.repeat));
  encode_ms.reserve(static_cast<size_t>(args.repeat));
  long tokens = 0;
  edgemt::testing::StartCountingAllocations();
  for (int r = 0; r < args.repeat; ++r) {
    const auto start = Clock::now();
    tokens = pass(*translator, &sentence_ms, nullptr);
    pass_ms.push_back(Ms(start, Clock::now()));
  }
  for (int r = 0; r < args.repeat; ++r) {
    const auto start = Clock::now();
    encode_pass(*translator);
    encode_ms.push_back(Ms(start, Clock::now()));
  }
  const size_t allocations = edgemt::testing::StopCountingAllocations();
  const int threads = translator->options().num_threads;
  translator.reset();

  // Profiled passes on a fresh translator.
  Categories all, encoder_part;
  double profiled_encoder_ms = 0, profiled_decoder_ms = 0, profiled_wall_ms = 0, profiled_reorder_ms = 0;
  long steps_per_pass = 0;
  if (args.profile_passes > 0) {
    options.profile = true;
    auto profiled = edgemt::Translator::Create(model.value(), options);
    if (!profiled.ok()) return Fail(profiled.status().ToString());
    edgemt::Translator& t = *profiled.value();
    check(t.Translate(&inputs[0], std::min(batch, inputs.size()), &outputs[0], decode));  // warm-up
    t.ResetProfile();
    // For each batch: encode it alone, then translate it; the decoder's
    // categories are the translation's minus the encoding's.
    edgemt::TranslationProfile encoding, translating;
    for (int r = 0; r < args.profile_passes; ++r) {
      for (size_t first = 0; first < inputs.size(); first += batch) {
        const size_t count = std::min(batch, inputs.size() - first);
        t.ResetProfile();
        check(t.Encode(&inputs[first], count));
        Accumulate(t.profile(), &encoding);
        t.ResetProfile();
        check(t.Translate(&inputs[first], count, &outputs[first], decode));
        Accumulate(t.profile(), &translating);
      }
    }
    all = Categories::Of(translating);
    encoder_part = Categories::Of(encoding);
    profiled_encoder_ms = encoding.encoder_ms;
    profiled_decoder_ms = translating.decoder_ms;
    profiled_wall_ms = translating.encoder_ms + translating.decoder_ms;
    profiled_reorder_ms = translating.cache_reorder_ms;
    steps_per_pass = translating.decoder_steps / args.profile_passes;
  }

  if (!args.output.empty()) {
    std::ofstream out(args.output);
    std::vector<size_t> position(order.size());  // where input line i's result is
    for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
    for (size_t line_index = 0; line_index < results.size(); ++line_index) {
      const std::vector<int32_t>& ids = results[position[line_index]];
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

  const double n = static_cast<double>(sources.size());
  const double median_pass = Median(pass_ms);
  const double min_pass = *std::min_element(pass_ms.begin(), pass_ms.end());
  const double median_encode = Median(encode_ms);
  const double steps = static_cast<double>(steps_per_pass);
  const double passes = static_cast<double>(std::max(1, args.profile_passes));
  const Categories decoder_part = all.Minus(encoder_part);
  const double profiled_total = profiled_wall_ms > 0 ? profiled_wall_ms : 1.0;
  const std::string encoder_json = Json(encoder_part.Scaled(1.0 / passes / n), profiled_encoder_ms / passes / n);
  const std::string decoder_json =
      Json(decoder_part.Scaled(steps > 0 ? 1.0 / passes / steps : 0.0), steps > 0 ? profiled_decoder_ms / passes / steps : 0.0);
  std::printf(
      "{\"model\": \"%s\", \"file_bytes\": %zu, \"int8\": %s, \"threads\": %d, \"batch\": %d, \"sentences\": %zu,\n"
      " \"repeat\": %d, \"load_ms\": %.3f, \"model_load_ms\": %.3f, \"packed_cache\": \"%s\", \"arena_bytes\": %zu,\n"
      " \"output_tokens\": %ld,\n"
      " \"median_ms_per_sentence\": %.4f, \"min_ms_per_sentence\": %.4f, \"median_sentence_ms\": %.4f,\n"
      " \"tokens_per_s\": %.1f, \"best_tokens_per_s\": %.1f,\n"
      " \"encoder_ms_per_sentence\": %.4f, \"decoder_ms_per_step\": %.5f, \"decoder_steps_per_pass\": %ld,\n"
      " \"xnnpack_share\": %.4f, \"attention_share\": %.4f, \"layer_norm_share\": %.4f, \"embedding_share\": %.4f, "
      "\"other_share\": %.4f, \"cache_reorder_share\": %.4f,\n"
      " \"profile\": {\"passes\": %d, \"encoder_per_sentence\": %s,\n"
      "   \"decoder_per_step\": %s},\n"
      " \"allocations_while_translating\": %zu, \"self_peak_rss_kb\": %ld, \"translators\": %d,\n"
      " \"rss_after_create_kb\": %ld, \"beam_size\": %d}\n",
      args.model.c_str(), model.value()->file_size(), model.value()->is_int8() ? "true" : "false", threads, args.batch,
      sources.size(), args.repeat, load_ms, model_load_ms, packed_cache.c_str(), arena_bytes, tokens, median_pass / n, min_pass / n, Median(sentence_ms),
      static_cast<double>(tokens) / (median_pass / 1000.0), static_cast<double>(tokens) / (min_pass / 1000.0),
      median_encode / n, steps > 0 ? (median_pass - median_encode) / steps : 0.0, steps_per_pass,
      all.xnnpack / profiled_total, all.attention / profiled_total, all.layer_norm / profiled_total,
      all.embedding / profiled_total, all.other / profiled_total, profiled_reorder_ms / profiled_total,
      args.profile_passes, encoder_json.c_str(),
      decoder_json.c_str(), allocations, PeakRssKb(), args.translators, rss_after_create_kb, args.beam);
  return 0;
}
