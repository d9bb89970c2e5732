// The native module `edgemt._edgemt`: the classes the package `edgemt`
// (python/edgemt/__init__.py) builds its API on. Only bindings here; the
// work is in translator_py.cc, catalog_py.cc and piece_stream.cc.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "edgemt/text_translator.h"
#include "edgemt/translator.h"
#include "edgemt/version.h"
#include "catalog_py.h"
#include "piece_stream.h"
#include "status_exception.h"
#include "translator_py.h"

namespace py = pybind11;
using edgemt_python::Model;
using edgemt_python::PieceStream;
using edgemt_python::TranslationResult;
using edgemt_python::Translator;

namespace {

edgemt::TextTranslatorOptions TextTranslatorOptions(int threads, int max_batch_size, int max_beam_size,
                                                     int max_source_length, int max_target_length,
                                                     const std::string& long_input,
                                                     const std::string& packed_cache_dir, long long max_batch_tokens,
                                                     double cache_mb, double document_cache_mb) {
  if (long_input != "truncate" && long_input != "error" && long_input != "split")
    throw py::value_error("long_input is 'truncate', 'error' or 'split', not '" + long_input + "'");
  if (max_batch_tokens < 0) throw py::value_error("max_batch_tokens must not be negative");
  if (!(cache_mb >= 0) || !(document_cache_mb >= 0)) throw py::value_error("cache sizes must not be negative");
  edgemt::TextTranslatorOptions options;
  options.cache_bytes = static_cast<size_t>(cache_mb * (1 << 20));
  options.document_cache_bytes = static_cast<size_t>(document_cache_mb * (1 << 20));
  options.max_batch_tokens = static_cast<size_t>(max_batch_tokens);
  options.translator.num_threads = threads;
  options.translator.max_batch_size = max_batch_size;
  options.translator.max_beam_size = max_beam_size;
  options.translator.max_source_length = max_source_length;
  options.translator.max_target_length = max_target_length;
  options.translator.packed_cache_dir = packed_cache_dir;
  options.long_input = long_input == "error"   ? edgemt::LongInput::kError
                       : long_input == "split" ? edgemt::LongInput::kSplit
                                               : edgemt::LongInput::kTruncate;
  return options;
}

// The next piece, None at the end; raises what the translation failed with.
py::object NextPiece(PieceStream& stream) {
  std::string piece;
  bool got;
  {
    py::gil_scoped_release released;
    got = stream.Next(&piece);
  }
  if (got) return py::str(piece);
  const edgemt::Status status = stream.status();
  if (!status.ok()) edgemt_python::RaiseStatus(status);
  return py::none();
}

}  // namespace

PYBIND11_MODULE(_edgemt, m) {
  m.doc() = "EdgeMT's native module; use the package `edgemt`.";
  m.attr("__version__") = edgemt::Version();
  m.attr("MODEL_FORMATS") = edgemt::ModelFormats();
  edgemt_python::BindCatalog(m);

  py::class_<TranslationResult>(m, "TranslationResult",
                                "One source's translations, best first (num_hypotheses of them).")
      .def_readonly("hypotheses", &TranslationResult::hypotheses,
                    "Texts of the hypotheses, best first ('' for each when the model has no tokenizer).")
      .def_readonly("scores", &TranslationResult::scores,
                    "Their scores: sum of token log-probabilities / length**length_penalty "
                    "(0.0 for greedy decoding unless return_scores=True).")
      .def_readonly("ids", &TranslationResult::ids, "Their target ids, without </s>.")
      .def_readonly("token_log_probs", &TranslationResult::token_log_probs,
                    "Per hypothesis, each id's log-probability, then </s>'s when it ended with </s> "
                    "(empty for greedy decoding unless return_scores=True).")
      .def_readonly("ended_with_eos", &TranslationResult::ended_with_eos,
                    "Whether each hypothesis ended with </s> (else it stopped at the length limit).")
      .def_readonly("alignments", &TranslationResult::alignments,
                    "With return_alignments=True: per hypothesis, each id's aligned source position "
                    "(among the source's ids as translated); else empty lists.")
      .def_readonly("word_alignments", &TranslationResult::word_alignments,
                    "With return_alignments=True: per hypothesis, (source word, target word) pairs on "
                    "what spaces separate, sorted by target word (Moses' i-j).")
      .def_readonly("confidences", &TranslationResult::confidences,
                    "With scores: per hypothesis, exp of its ids' and </s>'s mean log-probability (0..1).")
      .def_readonly("word_confidences", &TranslationResult::word_confidences,
                    "With scores: per hypothesis, the same for each of its words.")
      .def_readonly("warning", &TranslationResult::warning,
                    "A warning about the source (e.g. that it was truncated), or ''.")
      .def("__repr__", [](const TranslationResult& r) {
        return "TranslationResult(hypotheses=" + py::repr(py::cast(r.hypotheses)).cast<std::string>() +
               ", scores=" + py::repr(py::cast(r.scores)).cast<std::string>() + ")";
      });

  py::class_<Model>(m, "Model",
                    "Model(path): a model file, memory-mapped and verified. Translators made from one Model\n"
                    "share it and its weights packed for the CPU (each adds only its working memory).\n"
                    "Raises OSError when the file cannot be read, RuntimeError when it is not a valid\n"
                    "model this runtime can run.")
      .def(py::init<const std::string&>(), py::arg("path"))
      .def_property_readonly(
          "source_vocab_size", [](const Model& model) { return model.model->config().source_vocab_size; },
          "Ids in the source vocabulary.")
      .def_property_readonly(
          "target_vocab_size", [](const Model& model) { return model.model->config().target_vocab_size; },
          "Ids in the target vocabulary.")
      .def_property_readonly(
          "max_positions", [](const Model& model) { return model.model->config().max_positions; },
          "The longest source or translation (in ids, </s> included) the model has positions for.")
      .def_property_readonly(
          "file_size", [](const Model& model) { return model.model->file_size(); }, "The file's size in bytes.")
      .def_property_readonly(
          "has_shortlist", [](const Model& model) { return model.model->has_shortlist(); },
          "Whether the file has a vocabulary shortlist (translate's use_shortlist, default True, uses it).")
      .def_property_readonly(
          "default_beam_size", [](const Model& model) { return model.model->config().default_beam_size; },
          "The beam size the checkpoint chose (a Marian model's num_beams); 0: none.")
      .def_property_readonly(
          "default_max_length", [](const Model& model) { return model.model->config().default_max_length; },
          "The output length limit the checkpoint chose (ids, </s> included); 0: none.")
      .def_property_readonly(
          "_max_beam_size", [](const Model& model) { return edgemt::ModelMaxBeamSize(model.model->config()); },
          "The max_beam_size a translator needs for the model's own beam size.")
      .def(
          "_decode_defaults",
          [](const Model& model, int max_beam_size, bool greedy_only) {
            const edgemt::DecodeOptions d = edgemt::ModelDecodeDefaults(model.model->config(), max_beam_size, greedy_only);
            py::dict defaults;
            defaults["beam_size"] = d.beam_size;
            defaults["max_length"] = d.max_length;
            defaults["length_penalty"] = d.length_penalty;
            return defaults;
          },
          py::arg("max_beam_size"), py::arg("greedy_only"),
          "The decoding the model asks for, for the options a call leaves to it (edgemt/text_translator.h).");

  // Fields as in edgemt/translator.h, which documents each; the package
  // fills one from keyword arguments (a wrong type raises TypeError here).
  py::class_<edgemt::DecodeOptions>(m, "_DecodeOptions")
      .def(py::init<>())
      .def_readwrite("beam_size", &edgemt::DecodeOptions::beam_size)
      .def_readwrite("length_penalty", &edgemt::DecodeOptions::length_penalty)
      .def_readwrite("num_hypotheses", &edgemt::DecodeOptions::num_hypotheses)
      .def_readwrite("max_length", &edgemt::DecodeOptions::max_length)
      .def_readwrite("min_length", &edgemt::DecodeOptions::min_length)
      .def_readwrite("sampling_topk", &edgemt::DecodeOptions::sampling_topk)
      .def_readwrite("sampling_topp", &edgemt::DecodeOptions::sampling_topp)
      .def_readwrite("sampling_temperature", &edgemt::DecodeOptions::sampling_temperature)
      .def_readwrite("sampling_seed", &edgemt::DecodeOptions::sampling_seed)
      .def_readwrite("return_alternatives", &edgemt::DecodeOptions::return_alternatives)
      .def_readwrite("min_alternative_expansion_prob", &edgemt::DecodeOptions::min_alternative_expansion_prob)
      .def_readwrite("repetition_penalty", &edgemt::DecodeOptions::repetition_penalty)
      .def_readwrite("no_repeat_ngram_size", &edgemt::DecodeOptions::no_repeat_ngram_size)
      .def_readwrite("disable_unk", &edgemt::DecodeOptions::disable_unk)
      .def_readwrite("return_alignments", &edgemt::DecodeOptions::return_alignments)
      .def_readwrite("alignment_layer", &edgemt::DecodeOptions::alignment_layer)
      .def_readwrite("use_shortlist", &edgemt::DecodeOptions::use_shortlist);

  py::class_<PieceStream>(m, "_PieceStream", "A translation streaming on a worker thread (Translator.translate_stream).")
      .def("next", &NextPiece, "Waits (without the GIL) for the next piece; None at the end.")
      .def(
          "close",
          [](PieceStream& stream) {
            py::gil_scoped_release released;
            stream.Stop();
          },
          "Stops decoding at its next piece and waits for the worker thread.");

  py::class_<Translator>(m, "_Translator")
      .def(py::init([](const Model& model, int threads, int max_batch_size, int max_beam_size,
                       int max_source_length, int max_target_length, const std::string& long_input,
                       const std::string& packed_cache_dir, long long max_batch_tokens, double cache_mb,
                       double document_cache_mb) {
             return std::make_unique<Translator>(
                 model, TextTranslatorOptions(threads, max_batch_size, max_beam_size, max_source_length,
                                              max_target_length, long_input, packed_cache_dir, max_batch_tokens,
                                              cache_mb, document_cache_mb));
           }),
           py::arg("model"), py::arg("threads"), py::arg("max_batch_size"), py::arg("max_beam_size"),
           py::arg("max_source_length"), py::arg("max_target_length"), py::arg("long_input"),
           py::arg("packed_cache_dir"), py::arg("max_batch_tokens"), py::arg("cache_mb"),
           py::arg("document_cache_mb"))
      .def("_translate_texts", &Translator::TranslateTexts, py::arg("texts"), py::arg("target_prefixes"),
           py::arg("decode"), py::arg("return_scores"), py::arg("first_index"), py::arg("split_sentences"))
      .def("_translate_ids", &Translator::TranslateIds, py::arg("sources"), py::arg("target_prefixes"),
           py::arg("decode"), py::arg("return_scores"), py::arg("first_index"))
      .def("_score_texts", &Translator::ScoreTexts, py::arg("sources"), py::arg("targets"))
      .def("_score_ids", &Translator::ScoreIds, py::arg("sources"), py::arg("targets"))
      // The stream keeps its translator alive: its worker thread uses it.
      .def("_translate_document", &Translator::TranslateDocument, py::arg("text"), py::arg("decode"),
           py::arg("html"))
      .def("_start_stream", &Translator::StartStream, py::arg("text"), py::arg("decode"),
           py::arg("split_sentences"), py::keep_alive<0, 1>())
      .def("_start_document_stream", &Translator::StartDocumentStream, py::arg("text"), py::arg("decode"),
           py::keep_alive<0, 1>())
      .def_property_readonly(
          "has_tokenizer", [](const Translator& t) { return t.text_translator().has_tokenizer(); },
          "Whether the model carries a tokenizer (texts in and out need one; ids do not).")
      .def_property_readonly(
          "threads", [](const Translator& t) { return t.text_translator().options().translator.num_threads; },
          "Threads for the large matrix products (0 given at creation: the number of cores).")
      .def_property_readonly(
          "max_batch_size",
          [](const Translator& t) { return t.text_translator().options().translator.max_batch_size; },
          "Sources translated together; longer lists are split into batches of this size.")
      .def_property_readonly(
          "max_beam_size",
          [](const Translator& t) { return t.text_translator().options().translator.max_beam_size; },
          "The widest beam_size this translator accepts.")
      .def_property_readonly(
          "max_source_length",
          [](const Translator& t) { return t.text_translator().options().translator.max_source_length; },
          "The longest source in ids, </s> included; longer ones follow long_input.")
      .def_property_readonly(
          "max_target_length",
          [](const Translator& t) { return t.text_translator().options().translator.max_target_length; },
          "The longest translation in ids.")
      .def_property_readonly(
          "max_batch_tokens",
          [](const Translator& t) { return t.text_translator().options().max_batch_tokens; },
          "A batch's sentences x its longest source stay within this (0: no such bound).")
      .def(
          "cache_stats",
          [](const Translator& t) {
            auto dict_of = [](const edgemt::TranslationCacheStats& s) {
              py::dict d;
              d["capacity_bytes"] = s.capacity_bytes;
              d["bytes"] = s.bytes;
              d["entries"] = s.entries;
              d["hits"] = s.hits;
              d["misses"] = s.misses;
              return d;
            };
            py::dict stats;
            stats["texts"] = dict_of(t.text_translator().cache_stats());
            stats["documents"] = dict_of(t.text_translator().document_cache_stats());
            return stats;
          },
          "The translation caches (cache_mb, document_cache_mb): for 'texts' and 'documents', their\n"
          "capacity_bytes, bytes, entries, hits and misses.");
}
