// LibreTranslate's HTTP API over a model set: a request (already read off
// the socket by the HTTP library) in, a response out. No sockets here, so
// that the fuzz target runs exactly this on arbitrary bytes.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>

#include "edgemt/catalog.h"
#include "serve/batcher.h"

namespace edgemt::serve {

struct ApiRequest {
  std::string method;        // "GET", "POST", ...
  std::string path;          // "/translate"
  std::string content_type;  // the header's value
  std::string body;
  // Parameters from the query string and a form body (urlencoded or multipart).
  std::multimap<std::string, std::string> params;
};

struct ApiResponse {
  int status = 200;
  std::string body;  // JSON, ending with a newline
  int retry_after = 0;  // seconds; 0: no Retry-After header
};

struct ApiLimits {
  size_t char_limit = 5000;      // characters (code points) per text
  size_t batch_limit = 128;      // texts per request
  std::set<std::string> api_keys;  // empty: no key needed
};

class Api {
 public:
  Api(Catalog& catalog, Batcher& batcher, const ApiLimits& limits);
  ApiResponse Handle(const ApiRequest& request) const;

 private:
  struct Parameters;
  ApiResponse Translate(const Parameters& parameters) const;
  ApiResponse Detect(const Parameters& parameters) const;
  ApiResponse Languages() const;

  Catalog& catalog_;
  Batcher& batcher_;
  ApiLimits limits_;
};

// The body of an error response: {"error": message}.
std::string ErrorBody(const std::string& message);

}  // namespace edgemt::serve
