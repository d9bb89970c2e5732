#include "cli/model_info.h"

#include <string_view>

namespace edgemt::cli {
namespace {

std::string OrUnknown(std::string_view text) { return text.empty() ? std::string("?") : std::string(text); }

}  // namespace

std::string ModelInfo(const std::string& path, const Model& model) {
  const ModelConfig& c = model.config();
  std::string out = path + "\n";
  out += "  languages: " + OrUnknown(model.source_language()) + " -> " + OrUnknown(model.target_language()) + "\n";
  out += "  file: " + std::to_string(model.file_size()) + " bytes, " + (model.is_int8() ? "int8" : "float32/int4") +
         " weights, " + OrUnknown(model.converter_version()) + "\n";
  out += "  transformer: d_model " + std::to_string(c.d_model) + ", " + std::to_string(c.num_heads) + " heads, ffn " +
         std::to_string(c.d_ff) + ", " + std::to_string(c.encoder_layers) + " encoder and " +
         std::to_string(c.decoder_layers) + " decoder layers, " + std::to_string(c.max_positions) + " positions\n";
  out += "  vocabulary: " + std::to_string(c.source_vocab_size) + " source, " + std::to_string(c.target_vocab_size) +
         " target" + (model.has_shortlist() ? ", with a shortlist" : "") +
         (model.source_tokenizer().empty() ? ", no tokenizer" : "") + "\n";
  if (c.default_beam_size > 0) out += "  decoding: beam " + std::to_string(c.default_beam_size) + "\n";
  return out;
}

std::string ModelSetInfo(const Catalog& catalog) {
  std::string out;
  for (const CatalogModel& model : catalog.models())
    out += model.path + ": " + model.source_language + " -> " + model.target_language + ", " +
           std::to_string(model.file_size) + " bytes\n";
  for (const std::string& skipped : catalog.skipped()) out += "left out: " + skipped + "\n";
  out += "pairs:";
  for (const std::string& from : catalog.languages()) {
    for (const std::string& to : catalog.targets(from)) {
      auto route = catalog.Route(from, to);
      out += " " + from + "-" + to + (route.ok() && route.value().size() == 2 ? "(via " + catalog.options().pivot_language + ")" : "");
    }
  }
  return out + "\n";
}

}  // namespace edgemt::cli
