#include "cli/line_translator.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "edgemt/document.h"
#include "edgemt/html.h"

namespace edgemt::cli {
namespace {

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

// A score as the CLI writes it: enough digits to read the float back.
std::string Number(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", static_cast<double>(value));
  return text;
}

void Warn(size_t line_number, const std::string& message) {
  std::fprintf(stderr, "edgemt-translate: line %zu: %s\n", line_number, message.c_str());
}

// Reports a result's warning or failure; true when it has translations.
bool Report(const TextResult& result, size_t line_number) {
  // A truncated source: say how to refuse it instead.
  const bool truncated = result.warning.find("translating its first") != std::string::npos;
  if (!result.warning.empty()) Warn(line_number, result.warning + (truncated ? " (--long-input error refuses it)" : ""));
  if (result.status.ok()) return true;
  Warn(line_number, result.status.message());
  return false;
}

// The options the command line left to the model (ModelDecodeDefaults):
// its own beam size, length limit and length penalty, when it states them.
Result<Options> WithModelDefaults(Options options, const ModelConfig& config) {
  if (options.beam_size == 0) {
    const bool greedy_only = options.sampling_topk != 1 || (options.stream && !options.document);
    options.beam_size = ModelDecodeDefaults(config, INT_MAX, greedy_only).beam_size;
    if (options.n_best > options.beam_size && !options.alternatives)
      return Status(StatusCode::kInvalidArgument, "--n-best " + std::to_string(options.n_best) +
                                                      " is more than the model's beam size " +
                                                      std::to_string(options.beam_size) + " (set --beam-size)");
  }
  if (options.max_length == 0) options.max_length = ModelDecodeDefaults(config, INT_MAX).max_length;
  if (options.length_penalty == Options::kUnsetLengthPenalty)
    options.length_penalty = ModelDecodeDefaults(config, INT_MAX).length_penalty;
  return options;
}

}  // namespace

Result<std::unique_ptr<LineTranslator>> LineTranslator::Create(const Options& options) {
  if (!options.models_dir.empty()) return CreateForSet(options);
  std::unique_ptr<LineTranslator> self(new LineTranslator);
  Result<std::shared_ptr<const Model>> model = Model::Load(options.model_path);
  if (!model.ok()) return model.status();
  auto resolved = WithModelDefaults(options, model.value()->config());
  if (!resolved.ok()) return resolved.status();
  self->options_ = resolved.value();
  TextTranslatorOptions text_options;
  TranslatorOptions& translator_options = text_options.translator;
  // Alternatives are decoded as --n-best sentences each.
  translator_options.max_batch_size = options.batch_size * (options.alternatives ? options.n_best : 1);
  translator_options.num_threads = options.threads;
  translator_options.max_source_length = options.max_source_length;
  translator_options.max_target_length = self->options_.max_length;
  translator_options.max_beam_size = self->options_.beam_size;
  translator_options.packed_cache_dir = options.packed_cache_dir;
  text_options.long_input = options.long_input;
  text_options.max_batch_tokens = static_cast<size_t>(options.max_batch_tokens);
  if (options.cache_mb >= 0) {  // else the text layer's defaults: none for lines, 32 MB for documents
    text_options.cache_bytes = static_cast<size_t>(options.cache_mb) << 20;
    text_options.document_cache_bytes = text_options.cache_bytes;
  }
  auto translator = TextTranslator::Create(model.value(), text_options);
  if (!translator.ok()) return translator.status();
  self->translator_ = std::move(translator.value());
  if ((!options.input_ids || !options.output_ids) && !self->translator_->has_tokenizer()) {
    const Status& why = self->translator_->tokenizer_status();
    return Status(why.code(), why.message() + " (--input-ids, --output-ids)");
  }
  for (auto [path, file] : {std::make_pair(&options.target_prefix_path, &self->prefixes_),
                            std::make_pair(&options.score_path, &self->targets_)}) {
    if (path->empty()) continue;
    file->open(*path, std::ios::binary);
    if (!*file) return Status(StatusCode::kNotFound, "cannot open " + *path);
  }
  // An unusable cache costs time, never the translations.
  const Status& cache = self->translator_->translator()->packed_cache_status();
  if (!cache.ok()) std::fprintf(stderr, "edgemt-translate: warning: %s\n", cache.message().c_str());
  return self;
}

edgemt::Sentences LineTranslator::Sentences() const {
  return options_.sentence_per_line ? edgemt::Sentences::kOnePerText : edgemt::Sentences::kSplit;
}

DecodeOptions LineTranslator::Decoding() const {
  DecodeOptions decode;
  decode.max_length = options_.max_length;
  decode.min_length = options_.min_length;
  decode.beam_size = options_.beam_size;
  decode.length_penalty = options_.length_penalty;
  decode.num_hypotheses = options_.n_best > 0 ? options_.n_best : 1;
  decode.sampling_topk = options_.sampling_topk;
  decode.sampling_topp = options_.sampling_topp;
  decode.sampling_temperature = options_.temperature;
  decode.sampling_seed = options_.seed;
  decode.return_alternatives = options_.alternatives;
  decode.min_alternative_expansion_prob = options_.min_alternative_prob;
  decode.repetition_penalty = options_.repetition_penalty;
  decode.no_repeat_ngram_size = options_.no_repeat_ngram_size;
  decode.disable_unk = options_.disable_unk;
  decode.return_alignments = options_.alignments;
  decode.alignment_layer = options_.alignment_layer;
  decode.use_shortlist = options_.use_shortlist;
  return decode;
}

void LineTranslator::ReadSideLines(std::ifstream& file, const std::string& path, size_t count, size_t first_line,
                                   std::vector<std::string>* lines, std::vector<Status>* missing) {
  lines->assign(count, std::string());
  missing->assign(count, Status::Ok());
  for (size_t i = 0; i < count; ++i) {
    if (std::getline(file, (*lines)[i])) {
      if (!(*lines)[i].empty() && (*lines)[i].back() == '\r') (*lines)[i].pop_back();
      continue;
    }
    (*missing)[i] = Status(StatusCode::kInvalidArgument, path + " has no line " + std::to_string(first_line + i));
  }
}

std::string LineTranslator::Failed(size_t index) const {
  // The fields a translation would have, empty.
  const std::string extras = std::string(options_.alignments ? " ||| " : "") + (options_.confidence ? " ||| 0 ||| " : "");
  if (options_.n_best == 0) return (options_.scores ? "-inf\t" : std::string()) + extras;
  std::string out;
  for (int k = 0; k < options_.n_best; ++k)
    out += (k ? "\n" : "") + std::to_string(index) + " |||  ||| -inf" + extras;
  return out;
}

std::string LineTranslator::ExtrasOf(const TextHypothesis& h) const {
  std::string out;
  if (options_.alignments) {
    out += " |||";
    for (const auto& pair : h.word_alignments) out += " " + std::to_string(pair.first) + "-" + std::to_string(pair.second);
    if (h.word_alignments.empty()) out += " ";
  }
  if (options_.confidence) {
    out += " ||| " + Number(h.confidence) + " |||";
    for (float c : h.word_confidences) out += " " + Number(c);
    if (h.word_confidences.empty()) out += " ";
  }
  return out;
}

std::string LineTranslator::TextOf(const TextHypothesis& h) const {
  if (!options_.output_ids) return h.text;
  std::string text;
  for (size_t i = 0; i < h.ids.size(); ++i) text += (i ? " " : "") + std::to_string(h.ids[i]);
  return text;
}

std::string LineTranslator::Format(size_t index, const TextResult& result) const {
  std::string out;
  for (size_t k = 0; k < result.hypotheses.size(); ++k) {
    const TextHypothesis& h = result.hypotheses[k];
    const std::string text = TextOf(h);
    const std::string score = Number(h.score);
    if (options_.n_best > 0) {
      out += (k ? "\n" : "") + std::to_string(index) + " ||| " + text + " ||| " + score + ExtrasOf(h);
    } else {
      out = (options_.scores ? score + "\t" + text : text) + ExtrasOf(h);
    }
  }
  return out;
}

void LineTranslator::TranslateLines(const std::vector<std::string>& lines, size_t first_line,
                                    std::vector<std::string>* outputs) {
  if (catalog_ != nullptr) return TranslateLinesOfSet(lines, first_line, outputs);
  if (targets_.is_open()) return ScoreLines(lines, first_line, outputs);
  outputs->assign(lines.size(), std::string());
  const DecodeOptions decode = Decoding();
  // Scores cost a pass over the vocabulary per greedy step: only when printed.
  const bool scores = options_.scores || options_.n_best > 0 || options_.confidence;
  std::vector<std::string> prefixes;
  std::vector<Status> failed(lines.size());  // a line that cannot be read or parsed
  if (prefixes_.is_open())
    ReadSideLines(prefixes_, options_.target_prefix_path, lines.size(), first_line, &prefixes, &failed);
  std::vector<TextResult> results;
  if (options_.input_ids) {
    std::vector<std::vector<int32_t>> sources(lines.size());
    std::vector<std::vector<int32_t>> prefix_ids(prefixes.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      if (failed[i].ok()) failed[i] = ParseIds(lines[i], &sources[i]);
      if (failed[i].ok() && !prefixes.empty()) failed[i] = ParseIds(prefixes[i], &prefix_ids[i]);
      if (!failed[i].ok()) sources[i].clear();  // left out: its result is the error
    }
    translator_->TranslateIds(sources.data(), sources.size(), decode, &results, scores,
                              prefix_ids.empty() ? nullptr : prefix_ids.data());
  } else {
    std::vector<std::string> texts = lines;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!failed[i].ok()) texts[i].clear();
    }
    translator_->TranslateTexts(texts.data(), texts.size(), decode, &results, scores,
                                prefixes.empty() ? nullptr : prefixes.data(), Sentences());
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!failed[i].ok()) results[i] = TextResult{failed[i], std::string(), {}};
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t index = first_line + i - 1;
    (*outputs)[i] = Report(results[i], first_line + i) ? Format(index, results[i]) : Failed(index);
  }
}

void LineTranslator::ScoreLines(const std::vector<std::string>& lines, size_t first_line,
                                std::vector<std::string>* outputs) {
  outputs->assign(lines.size(), std::string());
  std::vector<std::string> targets;
  std::vector<Status> failed;
  ReadSideLines(targets_, options_.score_path, lines.size(), first_line, &targets, &failed);
  std::vector<TextResult> results;
  if (options_.input_ids) {
    std::vector<std::vector<int32_t>> sources(lines.size()), target_ids(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      if (failed[i].ok()) failed[i] = ParseIds(lines[i], &sources[i]);
      if (failed[i].ok()) failed[i] = ParseIds(targets[i], &target_ids[i]);
      if (!failed[i].ok()) sources[i].clear(), target_ids[i].clear();
    }
    translator_->ScoreIds(sources.data(), target_ids.data(), lines.size(), &results);
  } else {
    translator_->ScoreTexts(lines.data(), targets.data(), lines.size(), &results);
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!failed[i].ok()) results[i] = TextResult{failed[i], std::string(), {}};
    if (!Report(results[i], first_line + i)) {
      (*outputs)[i] = "-inf |||  ||| ";
      continue;
    }
    const TextHypothesis& h = results[i].hypotheses[0];
    std::string out = Number(h.score) + " ||| " + TextOf(h) + " |||";
    for (float log_prob : h.token_log_probs) out += " " + Number(log_prob);
    (*outputs)[i] = out;
  }
}

void LineTranslator::StreamLine(const std::string& line, size_t line_number, Output& out) {
  TextResult result;
  // A terminal or a pipe sees each piece as it comes.
  translator_->TranslateStreaming(line, Decoding(), [&out](std::string_view piece) {
    return out.Write(piece) && out.Flush();
  }, &result, Sentences());
  if (out.failed()) return;
  Report(result, line_number);
  out.Write("\n") && out.Flush();
}

void LineTranslator::StreamDocument(const std::string& document, size_t first_line, Output& out) {
  DocumentResult result;
  const Status status = edgemt::TranslateDocumentStreaming(*translator_, document, Decoding(), [&out](std::string_view piece) {
    return out.Write(piece) && out.Flush();
  }, &result);
  if (out.failed()) return;
  if (!status.ok()) {
    Warn(first_line, "the document starting here is not translated: " + status.message());
    out.Write(document);  // nothing is lost: the source stands in
  } else if (result.failed > 0) {
    Warn(first_line, "in the document starting here, " + std::to_string(result.failed) + " of " +
                         std::to_string(result.sentences) + " sentences are not translated (their source stands " +
                         "in): " + result.first_failure.message());
  }
}

std::string LineTranslator::TranslateDocument(const std::string& document, size_t first_line) {
  if (catalog_ != nullptr) return TranslateDocumentOfSet(document, first_line);
  DocumentResult result;
  const Status status = options_.html ? edgemt::TranslateHtml(*translator_, document, Decoding(), &result)
                                      : edgemt::TranslateDocument(*translator_, document, Decoding(), &result);
  if (!status.ok()) {
    Warn(first_line, "the document starting here is not translated: " + status.message());
    return document;  // nothing is lost: the source stands in
  }
  if (result.failed > 0)
    Warn(first_line, "in the document starting here, " + std::to_string(result.failed) + " of " +
                         std::to_string(result.sentences) + " sentences are not translated (their source stands " +
                         "in): " + result.first_failure.message());
  return result.text;
}

std::string LineTranslator::MemoryReport() const {
  if (catalog_ != nullptr) return SetMemoryReport();
  const TranslatorOptions& limits = translator_->options().translator;
  const auto at_limits = Translator::ArenaBytes(translator_->model(), limits);
  return "arena " + std::to_string(translator_->arena_bytes()) + " bytes for the work translated; " +
         (at_limits.ok() ? std::to_string(at_limits.value()) : std::string("?")) + " bytes at the limits (batch " +
         std::to_string(limits.max_batch_size) + ", " + std::to_string(limits.max_source_length) + " source and " +
         std::to_string(limits.max_target_length) + " output ids, beam " + std::to_string(limits.max_beam_size) + ")";
}

}  // namespace edgemt::cli
