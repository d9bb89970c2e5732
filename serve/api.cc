#include "serve/api.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <new>
#include <vector>

#include <nlohmann/json.hpp>

#include "edgemt/language_id.h"

namespace edgemt::serve {
namespace {

using nlohmann::json;

ApiResponse Answer(int status, const json& body, int retry_after = 0) {
  return {status, body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n", retry_after};
}

ApiResponse Error(int status, const std::string& message, int retry_after = 0) {
  return Answer(status, json{{"error", message}}, retry_after);
}

std::string Lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Code points, or npos when `text` is not UTF-8.
size_t Utf8Length(const std::string& text) {
  size_t count = 0;
  for (size_t i = 0; i < text.size(); ++count) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xe ? 3 : (byte >> 3) == 0x1e ? 4 : 0;
    if (length == 0 || i + length > text.size() || (length == 2 && byte < 0xc2)) return std::string::npos;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return std::string::npos;
    }
    const auto second = static_cast<unsigned char>(length > 1 ? text[i + 1] : 0);
    if ((byte == 0xe0 && second < 0xa0) || (byte == 0xed && second >= 0xa0) || (byte == 0xf0 && second < 0x90) ||
        byte > 0xf4 || (byte == 0xf4 && second >= 0x90))
      return std::string::npos;  // overlong, a surrogate, or past U+10FFFF
    i += length;
  }
  return count;
}

std::string Named(const std::string& code) { return LanguageName(code) + " (" + code + ")"; }

}  // namespace

std::string ErrorBody(const std::string& message) { return Error(400, message).body; }

// A request's parameters, from a JSON object or from the query and form.
struct Api::Parameters {
  bool is_json = false;
  json object;
  const std::multimap<std::string, std::string>* form = nullptr;

  // Absent (false), or a string into *value; a JSON value of another
  // type (other than null) is an error into *error.
  bool String(const std::string& name, std::string* value, std::string* error) const {
    if (is_json) {
      const auto it = object.find(name);
      if (it == object.end() || it->is_null()) return false;
      if (!it->is_string()) {
        *error = "Invalid request: " + name + " must be a string";
        return false;
      }
      *value = it->get<std::string>();
      return true;
    }
    const auto it = form->find(name);
    if (it == form->end()) return false;
    *value = it->second;
    if (Utf8Length(*value) == std::string::npos) {
      *error = "Invalid request: " + name + " is not valid UTF-8";
      return false;
    }
    return true;
  }

  // q: a string or (JSON) an array of strings; empty ones count as none.
  bool Texts(std::vector<std::string>* texts, bool* is_array, std::string* error) const {
    texts->clear();
    *is_array = false;
    if (is_json) {
      const auto it = object.find("q");
      if (it != object.end() && it->is_array()) {
        *is_array = true;
        for (const json& item : *it) {
          if (!item.is_string()) {
            *error = "Invalid request: q must be a string or an array of strings";
            return false;
          }
          texts->push_back(item.get<std::string>());
        }
        return !texts->empty();
      }
    }
    std::string text;
    if (!String("q", &text, error) || text.empty()) return false;
    if (!is_json) text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
    texts->push_back(std::move(text));
    return true;
  }

  // alternatives: a whole number (or a numeric string), 0 when absent.
  bool Alternatives(int* count, std::string* error) const {
    *count = 0;
    std::string text;
    if (is_json) {
      const auto it = object.find("alternatives");
      if (it == object.end() || it->is_null()) return true;
      if (it->is_number_integer()) {
        *count = static_cast<int>(std::clamp<int64_t>(it->get<int64_t>(), 0, 1 << 20));
        return true;
      }
      if (!it->is_string()) {
        *error = "Invalid request: alternatives parameter is not a number";
        return false;
      }
      text = it->get<std::string>();
    } else if (!String("alternatives", &text, error)) {
      return error->empty();
    }
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0') {
      *error = "Invalid request: alternatives parameter is not a number";
      return false;
    }
    *count = static_cast<int>(std::clamp<long>(value, 0, 1 << 20));
    return true;
  }
};

Api::Api(Catalog& catalog, Batcher& batcher, const ApiLimits& limits)
    : catalog_(catalog), batcher_(batcher), limits_(limits) {}

ApiResponse Api::Handle(const ApiRequest& request) const {
  try {
    const std::string& path = request.path;
    const bool post = request.method == "POST", get = request.method == "GET";
    if (path == "/health") return get ? Answer(200, json{{"status", "ok"}}) : Error(405, "Method Not Allowed");
    if (path == "/languages") return get ? Languages() : Error(405, "Method Not Allowed");
    if (path == "/frontend/settings") {
      if (!get) return Error(405, "Method Not Allowed");
      return Answer(200, json{{"apiKeys", !limits_.api_keys.empty()}, {"charLimit", limits_.char_limit},
                              {"keyRequired", !limits_.api_keys.empty()}, {"filesTranslation", false},
                              {"suggestions", false}, {"supportedFilesFormat", json::array()}});
    }
    if (path != "/translate" && path != "/detect") return Error(404, "Not Found");
    if (!post) return Error(405, "Method Not Allowed");
    Parameters parameters;
    parameters.form = &request.params;
    const std::string type = Lowercase(request.content_type);
    parameters.is_json = type.rfind("application/json", 0) == 0 ||
                         (type.rfind("application/", 0) == 0 && type.find("+json") != std::string::npos);
    if (parameters.is_json) {
      parameters.object = json::parse(request.body, nullptr, false);
      if (parameters.object.is_discarded())
        return Error(400, "The browser (or proxy) sent a request that this server could not understand.");
      if (!parameters.object.is_object()) return Error(400, "Invalid JSON format");
    }
    if (!limits_.api_keys.empty()) {
      std::string key, error;
      if (!parameters.String("api_key", &key, &error) || key.empty())
        return Error(400, error.empty() ? "Please contact the server operator to get an API key" : error);
      if (limits_.api_keys.count(key) == 0) return Error(403, "Invalid API key");
    }
    return path == "/translate" ? Translate(parameters) : Detect(parameters);
  } catch (const std::bad_alloc&) {
    return Error(503, "the server is out of memory for this request", 5);
  } catch (const std::exception& e) {
    return Error(500, std::string("The server encountered an internal error: ") + e.what());
  }
}

ApiResponse Api::Languages() const {
  json languages = json::array();
  for (const std::string& code : catalog_.languages()) {
    std::vector<std::string> targets = catalog_.targets(code);
    targets.push_back(code);
    std::sort(targets.begin(), targets.end());
    languages.push_back(json{{"code", code}, {"name", LanguageName(code)}, {"targets", targets}});
  }
  return Answer(200, languages);
}

ApiResponse Api::Detect(const Parameters& parameters) const {
  std::vector<std::string> texts;
  bool is_array = false;
  std::string error;
  if (!parameters.Texts(&texts, &is_array, &error))
    return Error(400, error.empty() ? "Invalid request: missing q parameter" : error);
  std::string joined;
  for (const std::string& text : texts) joined += text + "\n";
  std::vector<DetectedLanguage> candidates;
  const Status status = DetectLanguage(joined, false, &candidates);
  if (status.code() == StatusCode::kInvalidArgument) return Error(400, "Invalid request: " + status.message());
  json answer = json::array();
  for (const DetectedLanguage& candidate : candidates)
    answer.push_back(json{{"confidence", candidate.confidence}, {"language", candidate.code}});
  // LibreTranslate's answer when it cannot tell.
  if (answer.empty()) answer.push_back(json{{"confidence", 0.0}, {"language", "en"}});
  return Answer(200, answer);
}

ApiResponse Api::Translate(const Parameters& parameters) const {
  std::vector<std::string> texts;
  bool is_array = false;
  std::string error, source, target, format = "text";
  if (!parameters.Texts(&texts, &is_array, &error))
    return Error(400, error.empty() ? "Invalid request: missing q parameter" : error);
  if (!parameters.String("source", &source, &error) || source.empty())
    return Error(400, error.empty() ? "Invalid request: missing source parameter" : error);
  if (!parameters.String("target", &target, &error) || target.empty())
    return Error(400, error.empty() ? "Invalid request: missing target parameter" : error);
  if (!parameters.String("format", &format, &error) && !error.empty()) return Error(400, error);
  int alternatives = 0;
  if (!parameters.Alternatives(&alternatives, &error)) return Error(400, error);
  const int max_alternatives = catalog_.options().max_alternatives;
  if (alternatives > max_alternatives)
    return Error(400, "Invalid request: alternatives parameter must be <= " + std::to_string(max_alternatives));
  if (texts.size() > limits_.batch_limit)
    return Error(400, "Invalid request: request (" + std::to_string(texts.size()) + ") exceeds text limit (" +
                          std::to_string(limits_.batch_limit) + ")");
  bool multiline = false;
  for (const std::string& text : texts) {
    const size_t length = Utf8Length(text);
    if (length == std::string::npos) return Error(400, "Invalid request: q is not valid UTF-8");
    if (length > limits_.char_limit)
      return Error(400, "Invalid request: request (" + std::to_string(length) + ") exceeds text limit (" +
                            std::to_string(limits_.char_limit) + ")");
    multiline = multiline || text.find('\n') != std::string::npos;
  }
  source = Lowercase(source);
  target = Lowercase(target);
  format = format.empty() ? "text" : Lowercase(format);
  const std::vector<std::string> languages = catalog_.languages();
  const auto known = [&languages](const std::string& code) {
    return std::find(languages.begin(), languages.end(), code) != languages.end();
  };
  if (source != "auto" && !known(source)) return Error(400, source + " is not supported");
  if (!known(target)) return Error(400, target + " is not supported");
  if (format != "text" && format != "html") return Error(400, format + " format is not supported");
  if (source != "auto" && !catalog_.Route(source, target).ok())
    return Error(400, Named(target) + " is not available as a target language from " + Named(source));
  CatalogRequest request;
  request.from = source;
  request.to = target;
  // Text with line breaks keeps its lines (as a document); alternatives are of a whole text.
  request.format = format == "html" ? TextFormat::kHtml
                   : multiline && alternatives == 0 ? TextFormat::kDocument
                                                    : TextFormat::kText;
  request.alternatives = format == "html" ? 0 : alternatives;
  std::vector<CatalogResult> results;
  switch (batcher_.Translate(texts, request, &results)) {
    case Admission::kDone: break;
    case Admission::kQueueFull: return Error(429, "Slowdown: the server's queue is full", 1);
    case Admission::kTimedOut: return Error(503, "the server is busy: the request waited too long in its queue", 5);
    case Admission::kStopping: return Error(503, "the server is shutting down", 10);
  }
  json translated = json::array(), detected = json::array(), others = json::array();
  for (const CatalogResult& result : results) {
    if (!result.status.ok()) {
      const bool request_error =
          result.status.code() == StatusCode::kNotFound || result.status.code() == StatusCode::kInvalidArgument;
      if (source == "auto" && result.status.code() == StatusCode::kNotFound)
        return Error(400, "auto is not supported: " + result.status.message() +
                              (result.source_language.empty() ? "" : " (detected " + Named(result.source_language) + ")"));
      return Error(request_error ? 400 : 500, result.status.message());
    }
    translated.push_back(result.text);
    detected.push_back(json{{"confidence", result.language_confidence}, {"language", result.source_language}});
    others.push_back(result.alternatives);
  }
  json answer{{"translatedText", is_array ? translated : translated[0]}};
  if (source == "auto") answer["detectedLanguage"] = is_array ? detected : detected[0];
  if (alternatives > 0) answer["alternatives"] = is_array ? others : others[0];
  return Answer(200, answer);
}

}  // namespace edgemt::serve
