// edgemt-serve: a folder of models served over HTTP with LibreTranslate's
// API (serve/api.h), on cpp-httplib's server.
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include <httplib.h>

#include "edgemt/catalog.h"
#include "serve/api.h"
#include "serve/batcher.h"
#include "serve/server_options.h"

namespace {

using edgemt::serve::ApiRequest;
using edgemt::serve::ApiResponse;

// A request id worth echoing: short, letters, digits and dashes only.
bool SafeId(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

void Headers(const httplib::Request& request, httplib::Response& response) {
  // Browser extensions and web pages call a local LibreTranslate; it allows them.
  response.set_header("Access-Control-Allow-Origin", "*");
  response.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type");
  response.set_header("Access-Control-Allow-Methods", "GET, POST");
  const std::string id = request.get_header_value("X-Request-Id");
  if (SafeId(id)) response.set_header("X-Request-Id", id);
}

ApiRequest FromHttp(const httplib::Request& request) {
  ApiRequest api;
  api.method = request.method;
  api.path = request.path;
  api.content_type = request.get_header_value("Content-Type");
  api.body = request.body;
  api.params.insert(request.params.begin(), request.params.end());
  for (const auto& [name, field] : request.files) api.params.emplace(name, field.content);
  return api;
}

// Every open file descriptor a connection needs: as many as the system allows.
void RaiseFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  edgemt::serve::ServerOptions options;
  std::string error;
  if (!edgemt::serve::ParseServerOptions(argc, argv, &options, &error)) {
    std::fprintf(stderr, "edgemt-serve: %s\n%s", error.c_str(), edgemt::serve::ServerUsage());
    return 2;
  }
  if (options.show_help) {
    std::fputs(edgemt::serve::ServerUsage(), stdout);
    return 0;
  }
  // SIGTERM and SIGINT are taken by one thread (below); a peer that hangs up is an error on its write.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  RaiseFileLimit();

  edgemt::CatalogOptions catalog_options;
  catalog_options.memory_budget_bytes = static_cast<size_t>(options.memory_budget_mb) << 20;
  catalog_options.translator.translator.max_batch_size = options.batch_size;
  catalog_options.translator.translator.num_threads = options.threads;
  auto catalog = edgemt::Catalog::Open(options.models_dir, catalog_options);
  if (!catalog.ok()) {
    std::fprintf(stderr, "edgemt-serve: %s\n", catalog.status().ToString().c_str());
    return 1;
  }
  for (const std::string& skipped : catalog.value()->skipped())
    std::fprintf(stderr, "edgemt-serve: warning: left out %s\n", skipped.c_str());
  edgemt::serve::Batcher batcher(*catalog.value(), options.batcher);
  const edgemt::serve::Api api(*catalog.value(), batcher, options.limits);

  httplib::Server server;
  const int http_threads = options.http_threads;
  server.new_task_queue = [http_threads] { return new httplib::ThreadPool(static_cast<size_t>(http_threads)); };
  server.set_payload_max_length(options.max_body_bytes);
  server.set_read_timeout(options.read_timeout_s, 0);
  server.set_write_timeout(options.read_timeout_s, 0);
  server.set_keep_alive_timeout(options.read_timeout_s);
  server.set_keep_alive_max_count(100000);
  // The library writes a response's head and body apart: without TCP_NODELAY
  // (the listening socket's, inherited by each accepted one) every answer
  // waits on a delayed ACK.
  server.set_tcp_nodelay(true);
  const bool access_log = options.access_log, log_text = options.log_text;
  const auto handle = [&api, access_log, log_text](const httplib::Request& request, httplib::Response& response) {
    const auto start = std::chrono::steady_clock::now();
    const ApiResponse answer = api.Handle(FromHttp(request));
    response.status = answer.status;
    response.set_content(answer.body, "application/json");
    if (answer.retry_after > 0) response.set_header("Retry-After", std::to_string(answer.retry_after));
    Headers(request, response);
    if (access_log) {
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "edgemt-serve: %s %s %d %.1f ms%s%s\n", request.method.c_str(), request.path.c_str(),
                   answer.status, ms, log_text ? " " : "", log_text ? request.body.substr(0, 500).c_str() : "");
    }
  };
  server.Get(".*", handle);
  server.Post(".*", handle);
  server.Put(".*", handle);
  server.Delete(".*", handle);
  server.Patch(".*", handle);
  server.Options(".*", [](const httplib::Request& request, httplib::Response& response) {
    response.status = 204;
    Headers(request, response);
  });
  // What the library answers itself (a body too large, a bad request line): in JSON too.
  server.set_error_handler([](const httplib::Request& request, httplib::Response& response) {
    if (!response.body.empty()) return;
    const char* message = response.status == 413 ? "the request body is too large"
                          : response.status == 414 ? "the request URI is too long"
                          : response.status == 404 ? "Not Found"
                                                    : "the request could not be read";
    response.set_content(edgemt::serve::ErrorBody(message), "application/json");
    Headers(request, response);
  });
  if (!server.bind_to_port(options.host.c_str(), options.port)) {
    std::fprintf(stderr, "edgemt-serve: cannot listen on %s:%d\n", options.host.c_str(), options.port);
    return 1;
  }
  std::thread stopper([&server, &signals] {
    int received = 0;
    sigwait(&signals, &received);
    std::fprintf(stderr, "edgemt-serve: %s: finishing the requests in flight\n", received == SIGTERM ? "SIGTERM" : "SIGINT");
    server.stop();
  });
  std::string pairs;
  for (const edgemt::CatalogModel& model : catalog.value()->models())
    pairs += " " + model.source_language + "-" + model.target_language;
  std::fprintf(stderr, "edgemt-serve: %zu models (%s ) on http://%s:%d\n", catalog.value()->models().size(),
               pairs.c_str(), options.host.c_str(), options.port);
  server.listen_after_bind();
  batcher.Stop();
  // The stopper thread ends with the signal that stopped the server, or is
  // sent one now when listening ended for another reason.
  if (server.is_running()) server.stop();
  pthread_kill(stopper.native_handle(), SIGTERM);
  stopper.join();
  std::fprintf(stderr, "edgemt-serve: stopped\n");
  return 0;
}
