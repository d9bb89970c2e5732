// edgemt-serve's request handling without a socket: bytes in, a response
// out (serve/api.h), over a model set of two small models written at start.
// The first byte picks the method, path and content type; the rest is the
// body, also read as a form (cpp-httplib's parser, as the server does).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include <httplib.h>

#include "serve/api.h"
#include "test_model.h"

namespace {

struct Fixture {
  std::unique_ptr<edgemt::Catalog> catalog;
  std::unique_ptr<edgemt::serve::Batcher> batcher;
  std::unique_ptr<edgemt::serve::Api> api;
};

Fixture* MakeFixture() {
  char folder[] = "/tmp/edgemt-fuzz-serve-XXXXXX";
  if (mkdtemp(folder) == nullptr) std::abort();
  for (const char* pair : {"en-de", "de-en"}) {
    edgemt::testing::TestModelSpec spec;
    const std::string languages = pair;
    spec.mutate = [languages](edgemt::fb::ModelT& model) {
      model.metadata->source_language = languages.substr(0, 2);
      model.metadata->target_language = languages.substr(3);
    };
    const std::vector<uint8_t> bytes = edgemt::testing::BuildTestModelFile(spec);
    std::ofstream(std::string(folder) + "/" + pair + ".edgemt", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  auto* fixture = new Fixture;
  auto catalog = edgemt::Catalog::Open(folder);
  if (!catalog.ok()) std::abort();
  fixture->catalog = std::move(catalog.value());
  edgemt::serve::BatcherLimits limits;
  limits.max_wait = std::chrono::milliseconds(2000);
  fixture->batcher = std::make_unique<edgemt::serve::Batcher>(*fixture->catalog, limits);
  edgemt::serve::ApiLimits api_limits;
  api_limits.char_limit = 200;
  api_limits.batch_limit = 8;
  fixture->api = std::make_unique<edgemt::serve::Api>(*fixture->catalog, *fixture->batcher, api_limits);
  return fixture;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* fixture = MakeFixture();
  if (size == 0) return 0;
  static const char* const kPaths[] = {"/translate", "/detect", "/languages", "/health", "/frontend/settings", "/x"};
  static const char* const kTypes[] = {"application/json", "application/x-www-form-urlencoded", "text/plain",
                                       "application/ld+json"};
  edgemt::serve::ApiRequest request;
  request.method = (data[0] & 0x80) != 0 ? "GET" : "POST";
  request.path = kPaths[(data[0] & 0x7) % 6];
  request.content_type = kTypes[(data[0] >> 3) & 0x3];
  request.body.assign(reinterpret_cast<const char*>(data + 1), size - 1);
  if (request.content_type != std::string("application/json")) {
    httplib::Params params;
    httplib::detail::parse_query_text(request.body, params);
    request.params.insert(params.begin(), params.end());
  }
  const edgemt::serve::ApiResponse response = fixture->api->Handle(request);
  if (response.status < 200 || response.status > 599 || response.body.empty() || response.body.back() != '\n')
    std::abort();
  return 0;
}
