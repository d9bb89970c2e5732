// The native part of the Python package `edgemt` (pybind11 over the C++
// API's TextTranslator). Statuses become exceptions here, at the boundary:
// ValueError for bad arguments, OSError for files that cannot be read,
// RuntimeError otherwise. The GIL is released while translating.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/text_translator.h"

namespace py = pybind11;

namespace {

[[noreturn]] void Raise(const edgemt::Status& status, const std::string& where = "") {
  const std::string message = where.empty() ? status.message() : where + ": " + status.message();
  switch (status.code()) {
    case edgemt::StatusCode::kInvalidArgument: throw py::value_error(message);
    case edgemt::StatusCode::kNotFound: {
      PyErr_SetString(PyExc_OSError, message.c_str());
      throw py::error_already_set();
    }
    default: throw std::runtime_error(message);
  }
}

// One source's translations, as Python sees them.
struct TranslationResult {
  std::vector<std::string> hypotheses;
  std::vector<float> scores;
  std::vector<std::vector<int32_t>> ids;
  std::vector<std::vector<float>> token_log_probs;
  std::vector<bool> ended_with_eos;
  std::string warning;
};

TranslationResult Convert(const edgemt::TextResult& r) {
  TranslationResult out;
  for (const edgemt::TextHypothesis& h : r.hypotheses) {
    out.hypotheses.push_back(h.text);
    out.scores.push_back(h.score);
    out.ids.push_back(h.ids);
    out.token_log_probs.push_back(h.token_log_probs);
    out.ended_with_eos.push_back(h.ended_with_eos);
  }
  out.warning = r.warning;
  return out;
}

edgemt::DecodeOptions Decoding(int beam_size, float length_penalty, int num_hypotheses, int max_length,
                               int min_length, int sampling_topk, float sampling_topp, float sampling_temperature,
                               uint64_t sampling_seed) {
  edgemt::DecodeOptions d;
  d.beam_size = beam_size;
  d.length_penalty = length_penalty;
  d.num_hypotheses = num_hypotheses;
  d.max_length = max_length;
  d.min_length = min_length;
  d.sampling_topk = sampling_topk;
  d.sampling_topp = sampling_topp;
  d.sampling_temperature = sampling_temperature;
  d.sampling_seed = sampling_seed;
  return d;
}

// A loaded model file, which several translators can share (and with it
// the weights packed for XNNPACK: each translator adds only its arena).
struct Model {
  explicit Model(const std::string& path) {
    edgemt::Status status;
    {
      py::gil_scoped_release released;
      auto loaded = edgemt::Model::Load(path);
      if (loaded.ok()) model = loaded.value();
      else status = loaded.status();
    }
    if (!status.ok()) Raise(status);
  }
  std::shared_ptr<const edgemt::Model> model;
};

class Translator {
 public:
  Translator(const std::string& model_path, int threads, int max_batch_size, int max_beam_size, int max_source_length,
             int max_target_length, const std::string& long_input, const std::string& packed_cache_dir)
      : Translator(Model(model_path), threads, max_batch_size, max_beam_size, max_source_length, max_target_length,
                   long_input, packed_cache_dir) {}

  Translator(const Model& model, int threads, int max_batch_size, int max_beam_size, int max_source_length,
             int max_target_length, const std::string& long_input, const std::string& packed_cache_dir) {
    if (long_input != "truncate" && long_input != "error")
      throw py::value_error("long_input is 'truncate' or 'error', not '" + long_input + "'");
    edgemt::TextTranslatorOptions options;
    options.translator.num_threads = threads;
    options.translator.max_batch_size = max_batch_size;
    options.translator.max_beam_size = max_beam_size;
    options.translator.max_source_length = max_source_length;
    options.translator.max_target_length = max_target_length;
    options.translator.packed_cache_dir = packed_cache_dir;
    options.long_input = long_input == "error" ? edgemt::LongInput::kError : edgemt::LongInput::kTruncate;
    edgemt::Status status;
    {
      py::gil_scoped_release released;  // packing the weights takes a while
      auto created = edgemt::TextTranslator::Create(model.model, options);
      if (created.ok()) translator_ = std::move(created.value());
      else status = created.status();
    }
    if (!status.ok()) Raise(status);
  }

  std::vector<TranslationResult> TranslateBatch(const std::vector<std::string>& texts,
                                                const edgemt::DecodeOptions& decode, bool return_scores) {
    std::vector<edgemt::TextResult> results;
    edgemt::Status status;
    {
      py::gil_scoped_release released;
      std::lock_guard<std::mutex> lock(busy_);
      status = translator_->TranslateTexts(texts.data(), texts.size(), decode, &results, return_scores);
    }
    return Collect(status, results);
  }

  std::vector<TranslationResult> TranslateIdsBatch(const std::vector<std::vector<int32_t>>& sources,
                                                   const edgemt::DecodeOptions& decode, bool return_scores) {
    // Python callers give sources without </s>, as translate() gives texts.
    std::vector<std::vector<int32_t>> with_eos = sources;
    const int32_t eos = translator_->model().config().eos_id;
    for (auto& ids : with_eos) {
      if (!ids.empty()) ids.push_back(eos);
    }
    std::vector<edgemt::TextResult> results;
    edgemt::Status status;
    {
      py::gil_scoped_release released;
      std::lock_guard<std::mutex> lock(busy_);
      status = translator_->TranslateIds(with_eos.data(), with_eos.size(), decode, &results, return_scores);
    }
    return Collect(status, results);
  }

  // Calls on_piece(piece) (with the GIL) for each piece; on_piece returns
  // whether to go on. Returns the whole translation.
  std::string TranslateStream(const std::string& text, const edgemt::DecodeOptions& decode,
                              const std::function<bool(const std::string&)>& on_piece) {
    edgemt::TextResult result;
    edgemt::Status status;
    std::unique_ptr<py::error_already_set> raised;
    {
      py::gil_scoped_release released;
      std::lock_guard<std::mutex> lock(busy_);
      status = translator_->TranslateStreaming(text, decode, [&](std::string_view piece) {
        py::gil_scoped_acquire acquired;
        try {
          return on_piece(std::string(piece));
        } catch (py::error_already_set& e) {  // the callback raised: stop, and raise it afterwards
          raised = std::make_unique<py::error_already_set>(std::move(e));
          return false;
        }
      }, &result);
    }
    if (raised) throw std::move(*raised);
    if (!status.ok()) Raise(status);
    return result.hypotheses.empty() ? std::string() : result.hypotheses[0].text;
  }

  bool has_tokenizer() const { return translator_->has_tokenizer(); }
  int max_batch_size() const { return translator_->options().translator.max_batch_size; }
  int max_beam_size() const { return translator_->options().translator.max_beam_size; }
  int num_threads() const { return translator_->options().translator.num_threads; }

 private:
  static std::vector<TranslationResult> Collect(const edgemt::Status& status,
                                                const std::vector<edgemt::TextResult>& results) {
    if (!status.ok()) Raise(status);
    std::vector<TranslationResult> out;
    out.reserve(results.size());
    for (size_t i = 0; i < results.size(); ++i) {
      if (!results[i].status.ok()) Raise(results[i].status, "source " + std::to_string(i));
      out.push_back(Convert(results[i]));
    }
    return out;
  }

  std::unique_ptr<edgemt::TextTranslator> translator_;
  std::mutex busy_;  // one translation at a time (another thread waits, without the GIL)
};

}  // namespace

PYBIND11_MODULE(_edgemt, m) {
  m.doc() = "EdgeMT's native module; use the package `edgemt`.";
  py::class_<TranslationResult>(m, "TranslationResult",
                                "One source's translations, best first (num_hypotheses of them).")
      .def_readonly("hypotheses", &TranslationResult::hypotheses, "Texts of the hypotheses, best first.")
      .def_readonly("scores", &TranslationResult::scores,
                    "Their scores: sum of log-probabilities / length^length_penalty "
                    "(0 for greedy decoding unless return_scores).")
      .def_readonly("ids", &TranslationResult::ids, "Their target ids, without </s>.")
      .def_readonly("token_log_probs", &TranslationResult::token_log_probs,
                    "Per id, its log-probability, then </s>'s when the hypothesis ended with </s> "
                    "(empty for greedy decoding unless return_scores).")
      .def_readonly("ended_with_eos", &TranslationResult::ended_with_eos,
                    "Whether each hypothesis ended with </s> (else it stopped at the length limit).")
      .def_readonly("warning", &TranslationResult::warning, "A warning about the source (e.g. truncated), or ''.")
      .def("__repr__", [](const TranslationResult& r) {
        return "TranslationResult(hypotheses=" + py::repr(py::cast(r.hypotheses)).cast<std::string>() + ")";
      });

  py::class_<Model>(m, "Model",
                    "A model file, memory-mapped and verified: Model(path). Translators made from one Model "
                    "share its packed weights.")
      .def(py::init<const std::string&>(), py::arg("path"))
      .def_property_readonly("source_vocab_size", [](const Model& m) { return m.model->config().source_vocab_size; })
      .def_property_readonly("target_vocab_size", [](const Model& m) { return m.model->config().target_vocab_size; })
      .def_property_readonly("file_size", [](const Model& m) { return m.model->file_size(); });
  py::class_<Translator>(m, "_Translator")
      .def(py::init<const Model&, int, int, int, int, int, const std::string&, const std::string&>(),
           py::arg("model"), py::arg("threads") = 1, py::arg("max_batch_size") = 32,
           py::arg("max_beam_size") = 1, py::arg("max_source_length") = 0, py::arg("max_target_length") = 0,
           py::arg("long_input") = "truncate", py::arg("packed_cache_dir") = "")
      .def(py::init<const std::string&, int, int, int, int, int, const std::string&, const std::string&>(),
           py::arg("model"), py::arg("threads") = 1, py::arg("max_batch_size") = 32,
           py::arg("max_beam_size") = 1, py::arg("max_source_length") = 0, py::arg("max_target_length") = 0,
           py::arg("long_input") = "truncate", py::arg("packed_cache_dir") = "")
      .def(
          "_translate_batch",
          [](Translator& t, const std::vector<std::string>& texts, int beam_size, float length_penalty,
             int num_hypotheses, int max_length, int min_length, int sampling_topk, float sampling_topp,
             float sampling_temperature, uint64_t sampling_seed, bool return_scores) {
            return t.TranslateBatch(texts,
                                    Decoding(beam_size, length_penalty, num_hypotheses, max_length, min_length,
                                             sampling_topk, sampling_topp, sampling_temperature, sampling_seed),
                                    return_scores);
          },
          py::arg("texts"), py::arg("beam_size"), py::arg("length_penalty"), py::arg("num_hypotheses"),
          py::arg("max_length"), py::arg("min_length"), py::arg("sampling_topk"), py::arg("sampling_topp"),
          py::arg("sampling_temperature"), py::arg("sampling_seed"), py::arg("return_scores"))
      .def(
          "_translate_ids",
          [](Translator& t, const std::vector<std::vector<int32_t>>& sources, int beam_size, float length_penalty,
             int num_hypotheses, int max_length, int min_length, int sampling_topk, float sampling_topp,
             float sampling_temperature, uint64_t sampling_seed, bool return_scores) {
            return t.TranslateIdsBatch(sources,
                                       Decoding(beam_size, length_penalty, num_hypotheses, max_length, min_length,
                                                sampling_topk, sampling_topp, sampling_temperature, sampling_seed),
                                       return_scores);
          },
          py::arg("sources"), py::arg("beam_size"), py::arg("length_penalty"), py::arg("num_hypotheses"),
          py::arg("max_length"), py::arg("min_length"), py::arg("sampling_topk"), py::arg("sampling_topp"),
          py::arg("sampling_temperature"), py::arg("sampling_seed"), py::arg("return_scores"))
      .def(
          "_translate_stream",
          [](Translator& t, const std::string& text, const std::function<bool(const std::string&)>& on_piece,
             int max_length, int min_length, int sampling_topk, float sampling_topp, float sampling_temperature,
             uint64_t sampling_seed) {
            return t.TranslateStream(text,
                                     Decoding(1, 1.0f, 1, max_length, min_length, sampling_topk, sampling_topp,
                                              sampling_temperature, sampling_seed),
                                     on_piece);
          },
          py::arg("text"), py::arg("on_piece"), py::arg("max_length"), py::arg("min_length"),
          py::arg("sampling_topk"), py::arg("sampling_topp"), py::arg("sampling_temperature"),
          py::arg("sampling_seed"))
      .def_property_readonly("has_tokenizer", &Translator::has_tokenizer,
                             "Whether the model carries a tokenizer (texts in and out need it).")
      .def_property_readonly("max_batch_size", &Translator::max_batch_size)
      .def_property_readonly("max_beam_size", &Translator::max_beam_size)
      .def_property_readonly("threads", &Translator::num_threads);
}
