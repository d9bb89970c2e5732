#include "cli/line_translator.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace edgemt::cli {
namespace {

bool IsBlank(const std::string& line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

// Space-separated integers; anything else is an error naming the token.
Status ParseIds(const std::string& line, std::vector<int32_t>* ids) {
  ids->clear();
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i == line.size()) break;
    size_t end = i;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r') ++end;
    const std::string token = line.substr(i, end - i);
    errno = 0;
    char* stop = nullptr;
    const long long value = std::strtoll(token.c_str(), &stop, 10);
    if (token.size() > 20 || stop != token.c_str() + token.size() || errno != 0 || value < INT32_MIN ||
        value > INT32_MAX) {
      std::string shown = token.size() > 20 ? token.substr(0, 20) + "..." : token;
      for (char& c : shown) {
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
      }
      return Status(StatusCode::kInvalidArgument, "'" + shown + "' is not a token id");
    }
    ids->push_back(static_cast<int32_t>(value));
    i = end;
  }
  return Status::Ok();
}

void Warn(size_t line_number, const std::string& message) {
  std::fprintf(stderr, "edgemt-translate: line %zu: %s\n", line_number, message.c_str());
}

}  // namespace

Result<std::unique_ptr<LineTranslator>> LineTranslator::Create(const Options& options) {
  std::unique_ptr<LineTranslator> self(new LineTranslator);
  self->options_ = options;
  Result<std::shared_ptr<const Model>> model = Model::Load(options.model_path);
  if (!model.ok()) return model.status();
  self->model_ = model.value();
#ifdef EDGEMT_WITH_SENTENCEPIECE
  if (!options.input_ids) {
    auto tokenizer = Tokenizer::Create(*self->model_, Tokenizer::Side::kSource);
    if (!tokenizer.ok()) return tokenizer.status();
    self->source_tokenizer_ = std::move(tokenizer.value());
  }
  if (!options.output_ids) {
    auto tokenizer = Tokenizer::Create(*self->model_, Tokenizer::Side::kTarget, self->source_tokenizer_.get());
    if (!tokenizer.ok()) return tokenizer.status();
    self->target_tokenizer_ = std::move(tokenizer.value());
  }
#else
  if (!options.input_ids || !options.output_ids)
    return Status(StatusCode::kUnsupported, "this build has no SentencePiece: use --input-ids and --output-ids");
#endif
  TranslatorOptions translator_options;
  translator_options.max_batch_size = options.batch_size;
  translator_options.num_threads = options.threads;
  translator_options.max_source_length = options.max_source_length;
  translator_options.max_target_length = options.max_length;
  translator_options.max_beam_size = options.beam_size;
  translator_options.packed_cache_dir = options.packed_cache_dir;
  auto translator = Translator::Create(self->model_, translator_options);
  if (!translator.ok()) return translator.status();
  // An unusable cache costs time, never the translations.
  const Status& cache = translator.value()->packed_cache_status();
  if (!cache.ok()) std::fprintf(stderr, "edgemt-translate: warning: %s\n", cache.message().c_str());
  self->translator_ = std::move(translator.value());
  self->options_.max_source_length = self->translator_->options().max_source_length;
  return self;
}

Status LineTranslator::SourceIds(const std::string& line, size_t line_number, std::vector<int32_t>* ids) const {
  const ModelConfig& config = model_->config();
  if (options_.input_ids) {
    EDGEMT_RETURN_IF_ERROR(ParseIds(line, ids));
    for (int32_t id : *ids) {
      if (id < 0 || id >= config.source_vocab_size)
        return Status(StatusCode::kInvalidArgument, "id " + std::to_string(id) + " is outside the source vocabulary (0.." +
                                                        std::to_string(config.source_vocab_size - 1) + ")");
    }
  } else {
#ifdef EDGEMT_WITH_SENTENCEPIECE
    EDGEMT_RETURN_IF_ERROR(source_tokenizer_->Encode(line, ids));
    ids->push_back(config.eos_id);
#endif
  }
  const size_t limit = static_cast<size_t>(options_.max_source_length);
  if (ids->size() > limit) {
    const std::string message = "the source has " + std::to_string(ids->size()) + " tokens, more than the limit of " +
                                std::to_string(limit);
    if (options_.long_input == LongInput::kError) return Status(StatusCode::kInvalidArgument, message);
    Warn(line_number, message + ": translating its first " + std::to_string(limit) + " (--long-input error refuses it)");
    ids->resize(limit - 1);
    ids->push_back(config.eos_id);
  }
  return Status::Ok();
}

Status LineTranslator::OutputLine(const TokenIds& ids, std::string* line) const {
  line->clear();
  if (options_.output_ids) {
    for (size_t i = 0; i < ids.size; ++i) {
      if (i > 0) line->push_back(' ');
      *line += std::to_string(ids.data[i]);
    }
    return Status::Ok();
  }
#ifdef EDGEMT_WITH_SENTENCEPIECE
  EDGEMT_RETURN_IF_ERROR(target_tokenizer_->Decode(ids.data, ids.size, line));
  // One output line per input line, whatever pieces the vocabulary has.
  for (char& c : *line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return Status::Ok();
#else
  return Status(StatusCode::kUnsupported, "no tokenizer in this build");
#endif
}

std::string LineTranslator::Empty(size_t index, bool failed) const {
  const std::string score = failed ? "-inf" : "0";
  if (options_.n_best == 0) return options_.scores ? score + "\t" : std::string();
  std::string out;
  for (int k = 0; k < options_.n_best; ++k) out += (k ? "\n" : "") + std::to_string(index) + " |||  ||| " + score;
  return out;
}

std::string LineTranslator::Format(size_t index, const Hypothesis* hypotheses, size_t count,
                                   size_t line_number) const {
  std::string out;
  for (size_t k = 0; k < count; ++k) {
    std::string text;
    const Status status = OutputLine(hypotheses[k].ids, &text);
    if (!status.ok()) {
      Warn(line_number, status.message());
      text.clear();
    }
    char score[32];
    std::snprintf(score, sizeof(score), "%.9g", static_cast<double>(hypotheses[k].score));
    if (options_.n_best > 0) {
      out += (k ? "\n" : "") + std::to_string(index) + " ||| " + text + " ||| " + score;
    } else {
      out = options_.scores ? std::string(score) + "\t" + text : text;
    }
  }
  return out;
}

void LineTranslator::TranslateLines(const std::vector<std::string>& lines, size_t first_line,
                                    std::vector<std::string>* outputs) {
  outputs->assign(lines.size(), std::string());
  std::vector<std::vector<int32_t>> sources;
  std::vector<size_t> line_of_source;
  for (size_t i = 0; i < lines.size(); ++i) {
    (*outputs)[i] = Empty(first_line + i - 1, /*failed=*/false);
    if (IsBlank(lines[i])) continue;
    std::vector<int32_t> ids;
    const Status status = SourceIds(lines[i], first_line + i, &ids);
    if (!status.ok()) {
      Warn(first_line + i, status.message());
      (*outputs)[i] = Empty(first_line + i - 1, /*failed=*/true);
      continue;
    }
    if (ids.empty()) continue;
    sources.push_back(std::move(ids));
    line_of_source.push_back(i);
  }
  if (sources.empty()) return;

  const size_t per_source = options_.n_best > 0 ? static_cast<size_t>(options_.n_best) : 1;
  std::vector<TokenIds> inputs(sources.size());
  std::vector<Hypothesis> results(sources.size() * per_source);
  for (size_t s = 0; s < sources.size(); ++s) inputs[s] = TokenIds{sources[s].data(), sources[s].size()};
  DecodeOptions decode;
  decode.max_length = options_.max_length;
  decode.min_length = options_.min_length;
  decode.beam_size = options_.beam_size;
  decode.length_penalty = options_.length_penalty;
  decode.num_hypotheses = static_cast<int>(per_source);
  decode.sampling_topk = options_.sampling_topk;
  decode.sampling_topp = options_.sampling_topp;
  decode.sampling_temperature = options_.temperature;
  decode.sampling_seed = options_.seed;
  auto emit = [&](size_t s, const Hypothesis* hypotheses) {
    const size_t line = line_of_source[s];
    (*outputs)[line] = Format(first_line + line - 1, hypotheses, per_source, first_line + line);
  };
  // Scores cost a pass over the vocabulary per greedy step: only when printed.
  const bool want_scores = options_.scores || options_.n_best > 0;
  auto translate = [&](const TokenIds* in, size_t n, Hypothesis* out) -> Status {
    if (want_scores) return translator_->Translate(in, n, out, decode);
    std::vector<TokenIds> ids(n);
    const Status result = translator_->Translate(in, n, ids.data(), decode);
    for (size_t i = 0; i < n; ++i) out[i].ids = ids[i];
    return result;
  };
  Status status = translate(inputs.data(), inputs.size(), results.data());
  if (status.ok()) {
    for (size_t s = 0; s < sources.size(); ++s) emit(s, &results[s * per_source]);
    return;
  }
  // One sentence spoiled the batch: translate them one by one so that only it is lost.
  for (size_t s = 0; s < sources.size(); ++s) {
    status = translate(&inputs[s], 1, results.data());
    if (status.ok()) {
      emit(s, results.data());
    } else {
      Warn(first_line + line_of_source[s], status.message());
      (*outputs)[line_of_source[s]] = Empty(first_line + line_of_source[s] - 1, /*failed=*/true);
    }
  }
}

}  // namespace edgemt::cli
