// edgemt-dump-tensors: writes the encoder output and the decoder's logits
// for one source and a forced target prefix, as raw little-endian float32,
// so that tests can compare them with a reference implementation.
//
//   edgemt-dump-tensors MODEL "SOURCE IDS" "FED IDS" OUT_PREFIX [--linears]
//
// Writes OUT_PREFIX.encoder ([source length, d_model]) and OUT_PREFIX.logits
// ([1 + number of fed ids, vocab]): row t comes from the decoder input
// <s> + fed[:t].
//
// --linears also writes OUT_PREFIX.linears: every quantized Linear the
// runtime ran, in order (ops/linear_trace.h), one record each, all fields
// little-endian:
//   int64 kind (1 int8, 2 int4), fuses_relu, rows, in_features, out_features, parts
//   per part: int64 weight offset, scales offset (int4: block scales), bias offset
//             (-1: none), rows; offsets are from the start of MODEL
//   float32 input [rows, in]; int8 quantized input [rows, in];
//   int32 zero point [rows]; float32 scale [rows]; float32 output [rows, out]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "edgemt/model.h"
#include "edgemt/translator.h"
#include "ops/linear.h"
#include "ops/linear_trace.h"

namespace {

std::vector<int32_t> ParseIds(const char* text) {
  std::vector<int32_t> ids;
  std::istringstream in(text);
  int32_t id;
  while (in >> id) ids.push_back(id);
  return ids;
}

bool Write(const std::string& path, const float* data, size_t count) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return false;
  const bool ok = std::fwrite(data, sizeof(float), count, file) == count;
  return std::fclose(file) == 0 && ok;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "edgemt-dump-tensors: %s\n", message.c_str());
  return 1;
}

// The model file in a 64-byte aligned buffer, so that weight pointers give file offsets.
struct FileBuffer {
  void* data = nullptr;
  size_t size = 0;
  ~FileBuffer() { std::free(data); }
  bool Read(const char* path) {
    FILE* file = std::fopen(path, "rb");
    if (file == nullptr) return false;
    bool ok = std::fseek(file, 0, SEEK_END) == 0;
    const long end = ok ? std::ftell(file) : -1;
    ok = ok && end > 0 && std::fseek(file, 0, SEEK_SET) == 0;
    if (ok) {
      size = static_cast<size_t>(end);
      data = std::aligned_alloc(64, (size + 63) / 64 * 64);
      ok = data != nullptr && std::fread(data, 1, size, file) == size;
    }
    std::fclose(file);
    return ok;
  }
};

// Writes each traced call as one record (the format above).
class LinearRecorder : public edgemt::LinearTracer {
 public:
  LinearRecorder(FILE* file, const void* model_start) : file_(file), start_(static_cast<const char*>(model_start)) {}

  void Traced(const edgemt::LinearCall& call) override {
    const edgemt::LinearOp& op = *call.op;
    const size_t in = static_cast<size_t>(op.in_features());
    const size_t out = static_cast<size_t>(op.out_features());
    Put({static_cast<int64_t>(op.kind()), op.fuses_relu() ? 1 : 0, static_cast<int64_t>(call.rows),
         static_cast<int64_t>(in), static_cast<int64_t>(out), static_cast<int64_t>(op.parts().size())});
    for (const edgemt::LinearView& part : op.parts()) {
      const void* scales = part.weight.scales != nullptr ? static_cast<const void*>(part.weight.scales)
                                                         : static_cast<const void*>(part.weight.block_scales);
      Put({Offset(part.weight.data), Offset(scales), Offset(part.bias), part.weight.rows});
    }
    std::vector<int32_t> zero(call.rows);
    std::vector<float> scale(call.rows);
    for (size_t r = 0; r < call.rows; ++r) {
      zero[r] = call.params[r].zero_point;
      scale[r] = call.params[r].scale;
    }
    ok_ = ok_ && std::fwrite(call.input, sizeof(float), call.rows * in, file_) == call.rows * in;
    ok_ = ok_ && std::fwrite(call.quantized, 1, call.rows * in, file_) == call.rows * in;
    ok_ = ok_ && std::fwrite(zero.data(), sizeof(int32_t), call.rows, file_) == call.rows;
    ok_ = ok_ && std::fwrite(scale.data(), sizeof(float), call.rows, file_) == call.rows;
    for (size_t r = 0; r < call.rows; ++r)  // its rows may lie further apart than `out`
      ok_ = ok_ && std::fwrite(call.output + r * call.output_stride, sizeof(float), out, file_) == out;
  }
  bool ok() const { return ok_; }

 private:
  int64_t Offset(const void* p) const { return p == nullptr ? -1 : static_cast<const char*>(p) - start_; }
  void Put(std::initializer_list<int64_t> values) {
    for (int64_t v : values) ok_ = ok_ && std::fwrite(&v, sizeof(v), 1, file_) == 1;
  }
  FILE* file_;
  const char* start_;
  bool ok_ = true;
};

}  // namespace

int main(int argc, char** argv) {
  const bool trace = argc == 6 && std::strcmp(argv[5], "--linears") == 0;
  if (argc != 5 && !trace)
    return Fail("usage: edgemt-dump-tensors MODEL \"SOURCE IDS\" \"FED IDS\" OUT_PREFIX [--linears]");
  FileBuffer file;
  if (!file.Read(argv[1])) return Fail(std::string("cannot read ") + argv[1]);
  auto model = edgemt::Model::FromBuffer(file.data, file.size);
  if (!model.ok()) return Fail(model.status().ToString());
  const std::vector<int32_t> source = ParseIds(argv[2]);
  const std::vector<int32_t> fed = ParseIds(argv[3]);
  const std::string prefix = argv[4];
  edgemt::TranslatorOptions options;
  options.num_threads = 1;
  auto translator = edgemt::Translator::Create(model.value(), options);
  if (!translator.ok()) return Fail(translator.status().ToString());
  edgemt::Translator& t = *translator.value();
  const edgemt::ModelConfig& config = model.value()->config();

  std::unique_ptr<FILE, int (*)(FILE*)> trace_file(nullptr, std::fclose);
  std::unique_ptr<LinearRecorder> recorder;
  if (trace) {
    trace_file.reset(std::fopen((prefix + ".linears").c_str(), "wb"));
    if (trace_file == nullptr) return Fail("cannot write " + prefix + ".linears");
    recorder = std::make_unique<LinearRecorder>(trace_file.get(), file.data);
    edgemt::SetLinearTracer(recorder.get());
  }

  const edgemt::TokenIds input{source.data(), source.size()};
  edgemt::Status status = t.Encode(&input, 1);
  if (!status.ok()) return Fail(status.ToString());
  if (!Write(prefix + ".encoder", t.encoder_output(0), source.size() * static_cast<size_t>(config.d_model)))
    return Fail("cannot write " + prefix + ".encoder");

  std::vector<float> logits;
  const size_t vocab = static_cast<size_t>(config.target_vocab_size);
  int32_t token = config.decoder_start_id;
  for (size_t step = 0; step <= fed.size(); ++step) {
    status = t.DecodeStep(&token);
    if (!status.ok()) return Fail(status.ToString());
    logits.insert(logits.end(), t.logits(0), t.logits(0) + vocab);
    if (step < fed.size()) token = fed[step];
  }
  edgemt::SetLinearTracer(nullptr);
  if (recorder != nullptr && (!recorder->ok() || std::fclose(trace_file.release()) != 0))
    return Fail("cannot write " + prefix + ".linears");
  if (!Write(prefix + ".logits", logits.data(), logits.size())) return Fail("cannot write " + prefix + ".logits");
  return 0;
}
