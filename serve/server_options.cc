#include "serve/server_options.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>

namespace edgemt::serve {
namespace {

bool ParseCount(const char* text, long min, long max, long* out) {
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < min || value > max) return false;
  *out = value;
  return true;
}

bool ReadKeys(const std::string& path, std::set<std::string>* keys, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read the API keys file " + path;
    return false;
  }
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (!line.empty() && line[0] != '#') keys->insert(line);
  }
  if (keys->empty()) {
    *error = path + " holds no API key (one a line)";
    return false;
  }
  return true;
}

}  // namespace

const char* ServerUsage() {
  return "usage: edgemt-serve --models DIR [options]\n"
         "Serves the model files of DIR over HTTP with LibreTranslate's API: POST /translate,\n"
         "GET /languages, POST /detect, GET /health.\n"
         "  --models DIR           a folder of .edgemt files, each with its language pair\n"
         "  --host ADDRESS         where to listen (default 127.0.0.1: this machine only)\n"
         "  --port N               default 5000\n"
         "  --threads N            threads per translation (default: all cores)\n"
         "  --workers N            translations at once (default 1; each batches the waiting\n"
         "                         requests of one language pair)\n"
         "  --batch-size N         sentences decoded together (default 16)\n"
         "  --memory-budget-mb N   close the least recently used models to keep the open ones\n"
         "                         under N MB (default: no limit)\n"
         "  --api-keys FILE        require one of FILE's keys (one a line) as api_key\n"
         "  --char-limit N         characters per text (default 5000)\n"
         "  --batch-limit N        texts per request (default 128)\n"
         "  --queue-limit N        texts waiting at most; more: 429 (default 1024)\n"
         "  --max-wait-s N         seconds a request may wait in the queue; longer: 503 (default 30)\n"
         "  --max-body-kb N        request bodies at most N KB; larger: 413 (default 2048)\n"
         "  --http-threads N       connections served at once (default 128)\n"
         "  --read-timeout-s N     drop a client silent this long (default 5)\n"
         "  --access-log           a line per request on standard error (no text)\n"
         "  --log-text             ... with the request's text\n"
         "  --help                 this text\n";
}

bool ParseServerOptions(int argc, char** argv, ServerOptions* options, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* text = i + 1 < argc ? argv[i + 1] : nullptr;
    auto number = [&](long min, long max, auto* out) {
      long value = 0;
      if (text == nullptr || !ParseCount(text, min, max, &value)) {
        *error = arg + " needs a whole number from " + std::to_string(min) + " to " + std::to_string(max);
        return false;
      }
      *out = static_cast<std::remove_pointer_t<decltype(out)>>(value);
      ++i;
      return true;
    };
    auto string = [&](std::string* out) {
      if (text == nullptr) {
        *error = arg + " needs a value";
        return false;
      }
      *out = text;
      ++i;
      return true;
    };
    long kb = 0, wait_s = 0;
    bool ok = true;
    if (arg == "--models") ok = string(&options->models_dir);
    else if (arg == "--host") ok = string(&options->host);
    else if (arg == "--api-keys") ok = string(&options->api_keys_path);
    else if (arg == "--port") ok = number(1, 65535, &options->port);
    else if (arg == "--threads") ok = number(1, 256, &options->threads);
    else if (arg == "--workers") ok = number(1, 64, &options->batcher.workers);
    else if (arg == "--batch-size") ok = number(1, 1024, &options->batch_size);
    else if (arg == "--memory-budget-mb") ok = number(1, 1 << 24, &options->memory_budget_mb);
    else if (arg == "--char-limit") ok = number(1, 1 << 24, &options->limits.char_limit);
    else if (arg == "--batch-limit") ok = number(1, 1 << 20, &options->limits.batch_limit);
    else if (arg == "--queue-limit") ok = number(1, 1 << 24, &options->batcher.max_queued_texts);
    else if (arg == "--http-threads") ok = number(1, 4096, &options->http_threads);
    else if (arg == "--read-timeout-s") ok = number(1, 3600, &options->read_timeout_s);
    else if (arg == "--max-wait-s") {
      ok = number(1, 3600, &wait_s);
      options->batcher.max_wait = std::chrono::seconds(wait_s);
    } else if (arg == "--max-body-kb") {
      ok = number(1, 1 << 20, &kb);
      options->max_body_bytes = static_cast<size_t>(kb) << 10;
    } else if (arg == "--access-log") options->access_log = true;
    else if (arg == "--log-text") options->access_log = options->log_text = true;
    else if (arg == "--help" || arg == "-h") options->show_help = true;
    else {
      *error = "unknown option " + arg;
      return false;
    }
    if (!ok) return false;
  }
  if (options->show_help) return true;
  if (options->models_dir.empty()) {
    *error = "--models DIR is required";
    return false;
  }
  return options->api_keys_path.empty() || ReadKeys(options->api_keys_path, &options->limits.api_keys, error);
}

}  // namespace edgemt::serve
