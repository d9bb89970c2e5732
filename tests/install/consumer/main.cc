// Links against an installed EdgeMT and calls into the library.
#include <edgemt/model.h>
#include <edgemt/status.h>

#include <cstdio>
#include <cstring>

int main() {
  const char* name = edgemt::StatusCodeName(edgemt::StatusCode::kInvalidModel);
  if (std::strcmp(name, "invalid model") != 0) {
    std::printf("consumer: unexpected status name '%s'\n", name);
    return 1;
  }
  // Pulls the model loader (and what it needs) out of the library.
  auto model = edgemt::Model::Load("/nonexistent/edgemt-consumer-test.edgemt");
  if (model.ok()) {
    std::printf("consumer: loading a missing file succeeded\n");
    return 1;
  }
  std::printf("consumer: linked EdgeMT; loading a missing file: %s\n", model.status().ToString().c_str());
  return 0;
}
