// Command-line options of edgemt-serve.
#pragma once

#include <string>

#include "serve/api.h"
#include "serve/batcher.h"

namespace edgemt::serve {

struct ServerOptions {
  std::string models_dir;
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 5000;                 // LibreTranslate's
  int threads = 0;                 // per translation (0: all cores)
  int batch_size = 16;             // sentences the text layer decodes together
  int memory_budget_mb = 0;
  std::string api_keys_path;
  int http_threads = 128;          // connections served at once; more wait to be accepted
  size_t max_body_bytes = size_t{2} << 20;
  int read_timeout_s = 5;          // a client that sends nothing for this long is dropped
  bool access_log = false;         // a line per request (never its text unless log_text)
  bool log_text = false;
  ApiLimits limits;
  BatcherLimits batcher;
  bool show_help = false;
};

// Parses argv (the API keys file included); false with `error` on a usage error.
bool ParseServerOptions(int argc, char** argv, ServerOptions* options, std::string* error);
const char* ServerUsage();

}  // namespace edgemt::serve
