// edgemt-xnnpack-gemm-bench: times the XNNPACK operators EdgeMT's Linear
// layers use (int8: a per-row f32 -> qd8 conversion of the input and a
// qd8 x qc8w fully-connected with float output; int4: the same conversion
// and a qd8 x qb4w fully-connected, bf16 scales per --block inputs;
// float32: f32 fully-connected), set up and run as runtime/src/ops/linear.cc does, on
// the calling thread alone and with a pthreadpool of 2 (or --threads N)
// threads, for the layer shapes of the benchmark models (or the --shapes
// given). It answers: which products pay for a second thread
// (runtime/src/ops/linear.h, kMinParallelMacs), and how fast a decoder step's
// linear layers can be.
//
//   edgemt-xnnpack-gemm-bench [--threads N] [--rows 1,33] [--min-ms MS]
//       [--shapes INxOUT[*COUNT],...] [--dtype int8|int4|float32|both|all]
//       [--block N] [--sequence] [--min-parallel-macs N]
//
// "both" is int8 and float32; "all" adds int4. One JSON object per line:
// shape, dtype, rows (M), threads, "hot" (the same
// operator run again and again: weights in cache when they fit) and "cold"
// (a ring of copies of the operator whose weights total at least 96 MB, so
// every call streams its weights from memory) microseconds per call (median
// of timed batches), plus MACs. --shapes replaces the built-in shapes, e.g.
// a decoder step's layers "512x1536*6,512x512*18,512x2048*6,2048x512*6,
// 512x32000" (COUNT, default 1; a shape listed more than once is timed once,
// its "count" the sum). --sequence adds, per dtype and rows, one line
// "shape": "sequence": every listed layer in the order listed (COUNT
// distinct operators for an item, so the weights take as much memory as the
// model's) run one after the other, as a decoder step runs them; "us_1" on
// the calling thread, "us_n" with the pool for the layers of at least
// --min-parallel-macs multiply-adds (default 0: all) and the rest on the
// calling thread, as the runtime decides.
#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "lcg.h"
#include "ops/quantization_params.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Shape {
  std::string name;
  size_t in, out;
  size_t count;  // layers of this shape (--shapes ...*COUNT); each shape is timed once
};

// The Linear layers of the tiny (d256) and base (d512) presets; the trained
// model has tiny's layer shapes and an 8000-entry vocabulary.
const std::vector<Shape> kShapes = {
    {"d256.attention 256x256", 256, 256, 1},  {"d256.ffn_up 256x1024", 256, 1024, 1},
    {"d256.ffn_down 1024x256", 1024, 256, 1}, {"trained.projection 256x8000", 256, 8000, 1},
    {"tiny.projection 256x16000", 256, 16000, 1}, {"d512.attention 512x512", 512, 512, 1},
    {"d512.ffn_up 512x2048", 512, 2048, 1},   {"d512.ffn_down 2048x512", 2048, 512, 1},
    {"base.projection 512x32000", 512, 32000, 1},
};

using edgemt::testing::Lcg;

enum class Kind { kInt8, kInt4, kFloat32 };

const char* KindName(Kind kind) {
  return kind == Kind::kInt8 ? "qd8-qc8w" : kind == Kind::kInt4 ? "qd8-qb4w" : "f32";
}

// int4: inputs per bf16 scale.
size_t g_block = 32;

size_t WeightBytes(const Shape& s, Kind kind) {
  if (kind == Kind::kInt4) return s.in * s.out / 2 + s.in / g_block * s.out * 2;
  return s.in * s.out * (kind == Kind::kInt8 ? 1 : 4);
}

// One Linear: the fully-connected operator and, for int8, the conversion of
// its input.
struct LinearOps {
  xnn_operator_t fc = nullptr;
  xnn_operator_t quantize = nullptr;
};

// Creates the operators for the shape; weights random.
LinearOps Create(const Shape& s, Kind kind, Lcg* lcg) {
  LinearOps op;
  xnn_status status;
  const float inf = std::numeric_limits<float>::infinity();
  if (kind == Kind::kInt4) {
    std::vector<uint8_t> w((s.in * s.out + 1) / 2);
    for (auto& v : w) v = static_cast<uint8_t>(lcg->Next() % 256);
    // bf16 0.001 (0x3a83), positive and normal as XNNPACK requires.
    std::vector<uint16_t> scales(s.out * (s.in / g_block), 0x3a83);
    std::vector<float> bias(s.out, 0.0f);
    status = xnn_create_fully_connected_nc_qd8_f32_qb4w(s.in, s.out, s.in, s.out, g_block, 8, scales.data(), w.data(),
                                                        bias.data(), -inf, inf, 0, nullptr, nullptr, &op.fc);
    if (status == xnn_status_success) status = xnn_create_convert_nc_f32_qd8(0, &op.quantize);
  } else if (kind == Kind::kInt8) {
    std::vector<int8_t> w(s.in * s.out);
    for (auto& v : w) v = static_cast<int8_t>(static_cast<int>(lcg->Next() % 255) - 127);
    std::vector<float> scales(s.out, 0.001f), bias(s.out, 0.0f);
    status = xnn_create_fully_connected_nc_qd8_f32_qc8w(s.in, s.out, s.in, s.out, scales.data(), w.data(), bias.data(),
                                                        -inf, inf, 0, nullptr, nullptr, &op.fc);
    if (status == xnn_status_success) status = xnn_create_convert_nc_f32_qd8(0, &op.quantize);
  } else {
    std::vector<float> w(s.in * s.out), bias(s.out, 0.0f);
    for (auto& v : w) v = static_cast<float>(lcg->Next() % 2001) / 1000.0f - 1.0f;
    status = xnn_create_fully_connected_nc_f32(s.in, s.out, s.in, s.out, w.data(), bias.data(), -inf, inf, 0, nullptr,
                                               nullptr, &op.fc);
  }
  if (status != xnn_status_success) {
    std::fprintf(stderr, "cannot create the operator for %s (status %d)\n", s.name.c_str(), status);
    std::exit(1);
  }
  return op;
}

struct Buffers {
  std::vector<int8_t> in8;
  std::vector<xnn_quantization_params> params;
  std::vector<float> in32, out32;
};

inline void Run(const LinearOps& op, Kind kind, size_t rows, size_t in, Buffers* b, pthreadpool_t pool) {
  xnn_status status;
  if (kind != Kind::kFloat32) {
    status = xnn_reshape_convert_nc_f32_qd8(op.quantize, rows, in, in, in, pool);
    if (status == xnn_status_success)
      status = xnn_setup_convert_nc_f32_qd8(op.quantize, b->in32.data(), b->in8.data(), b->params.data());
    if (status == xnn_status_success) status = xnn_run_operator(op.quantize, pool);
    edgemt::PadQuantizationParams(b->params.data(), rows);  // as the runtime does
  }
  if (kind == Kind::kInt4) {
    if (status == xnn_status_success) status = xnn_reshape_fully_connected_nc_qd8_f32_qb4w(op.fc, rows, pool);
    if (status == xnn_status_success)
      status = xnn_setup_fully_connected_nc_qd8_f32_qb4w(op.fc, b->in8.data(), b->out32.data(), b->params.data());
  } else if (kind == Kind::kInt8) {
    if (status == xnn_status_success) status = xnn_reshape_fully_connected_nc_qd8_f32_qc8w(op.fc, rows, pool);
    if (status == xnn_status_success)
      status = xnn_setup_fully_connected_nc_qd8_f32_qc8w(op.fc, b->in8.data(), b->out32.data(), b->params.data());
  } else {
    status = xnn_reshape_fully_connected_nc_f32(op.fc, rows, pool);
    if (status == xnn_status_success) status = xnn_setup_fully_connected_nc_f32(op.fc, b->in32.data(), b->out32.data());
  }
  if (status == xnn_status_success) status = xnn_run_operator(op.fc, pool);
  if (status != xnn_status_success) {
    std::fprintf(stderr, "run failed (status %d)\n", status);
    std::exit(1);
  }
}

// Median microseconds per call of `call` over timed batches lasting >= min_ms
// in total, after `warm_up` untimed calls.
template <typename Call>
double TimeLoop(Call&& call, size_t warm_up, double min_ms) {
  for (size_t i = 0; i < warm_up; ++i) call();
  // Calls per batch: about 1 ms.
  const auto probe = Clock::now();
  size_t probe_calls = 0;
  while (std::chrono::duration<double, std::milli>(Clock::now() - probe).count() < 2.0) {
    call();
    ++probe_calls;
  }
  const size_t per_batch = std::max<size_t>(1, probe_calls / 2);
  std::vector<double> batches;
  const auto start = Clock::now();
  while (batches.size() < 7 || std::chrono::duration<double, std::milli>(Clock::now() - start).count() < min_ms) {
    const auto t0 = Clock::now();
    for (size_t i = 0; i < per_batch; ++i) call();
    batches.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() /
                      static_cast<double>(per_batch));
  }
  std::sort(batches.begin(), batches.end());
  return batches[batches.size() / 2];
}

// Median microseconds per call, cycling through `ops`.
double TimeCalls(const std::vector<LinearOps>& ops, Kind kind, size_t rows, size_t in, Buffers* b, pthreadpool_t pool,
                 double min_ms) {
  size_t next = 0;
  auto call = [&]() {
    Run(ops[next], kind, rows, in, b, pool);
    next = next + 1 == ops.size() ? 0 : next + 1;
  };
  return TimeLoop(call, ops.size() * 2 + 3, min_ms);
}

// "IN x OUT[*COUNT]" items separated by commas (spaces allowed); false if malformed.
bool ParseShapes(const char* text, std::vector<Shape>* shapes) {
  std::string compact;
  for (const char* p = text; *p; ++p)
    if (*p != ' ') compact += *p;
  size_t start = 0;
  while (start <= compact.size()) {
    size_t end = compact.find(',', start);
    if (end == std::string::npos) end = compact.size();
    const std::string item = compact.substr(start, end - start);
    start = end + 1;
    if (item.empty()) {
      if (end == compact.size()) break;
      return false;
    }
    // IN 'x' OUT ['*' COUNT], digits only.
    auto number = [&](size_t* pos, unsigned long* value) {
      size_t digits = 0;
      *value = 0;
      while (*pos < item.size() && item[*pos] >= '0' && item[*pos] <= '9') {
        *value = *value * 10 + static_cast<unsigned long>(item[(*pos)++] - '0');
        ++digits;
      }
      return digits > 0 && digits < 10;
    };
    size_t pos = 0;
    unsigned long in = 0, out = 0, count = 1;
    if (!number(&pos, &in) || pos >= item.size() || item[pos++] != 'x' || !number(&pos, &out)) return false;
    if (pos < item.size() && (item[pos++] != '*' || !number(&pos, &count))) return false;
    if (pos != item.size() || in == 0 || out == 0 || count == 0) return false;
    shapes->push_back({std::to_string(in) + "x" + std::to_string(out), in, out, count});
  }
  return !shapes->empty();
}

std::vector<size_t> ParseList(const char* text) {
  std::vector<size_t> values;
  for (const char* p = text; *p;) {
    values.push_back(std::strtoul(p, nullptr, 10));
    p = std::strchr(p, ',');
    if (!p) break;
    ++p;
  }
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  size_t threads = 2;
  std::vector<size_t> rows_list = {1, 33};
  double min_ms = 150.0;
  std::vector<Shape> shapes = kShapes;
  std::vector<Kind> dtypes = {Kind::kInt8, Kind::kFloat32};
  bool sequence = false;
  size_t min_parallel_macs = 0;
  bool ok = true;
  for (int i = 1; i < argc && ok; ++i) {
    const std::string a = argv[i];
    if (a == "--sequence") {
      sequence = true;
      continue;
    }
    if (i + 1 >= argc) {
      ok = false;
      break;
    }
    const char* v = argv[++i];
    if (a == "--threads") threads = std::strtoul(v, nullptr, 10);
    else if (a == "--rows") rows_list = ParseList(v);
    else if (a == "--min-ms") min_ms = std::atof(v);
    else if (a == "--block") g_block = std::strtoul(v, nullptr, 10);
    else if (a == "--min-parallel-macs") min_parallel_macs = std::strtoul(v, nullptr, 10);
    else if (a == "--shapes") {
      shapes.clear();
      ok = ParseShapes(v, &shapes);
    } else if (a == "--dtype") {
      const std::string d = v;
      if (d == "int8") dtypes = {Kind::kInt8};
      else if (d == "int4") dtypes = {Kind::kInt4};
      else if (d == "float32") dtypes = {Kind::kFloat32};
      else if (d == "both") dtypes = {Kind::kInt8, Kind::kFloat32};
      else if (d == "all") dtypes = {Kind::kInt8, Kind::kInt4, Kind::kFloat32};
      else ok = false;
    } else {
      ok = false;
    }
  }
  if (!ok || threads < 1 || rows_list.empty() || g_block == 0 ||
      std::find(rows_list.begin(), rows_list.end(), size_t{0}) != rows_list.end()) {
    std::fprintf(stderr,
                 "usage: edgemt-xnnpack-gemm-bench [--threads N] [--rows 1,33] [--min-ms MS] "
                 "[--shapes INxOUT[*COUNT],...] [--dtype int8|int4|float32|both|all] [--block N] [--sequence] "
                 "[--min-parallel-macs N]\n");
    return 2;
  }
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "xnn_initialize failed\n");
    return 1;
  }
  pthreadpool_t pool = pthreadpool_create(threads);
  Lcg lcg(7);
  const size_t max_rows = *std::max_element(rows_list.begin(), rows_list.end());
  // Each distinct shape is timed once; "count" sums its occurrences.
  std::vector<Shape> distinct;
  for (const Shape& s : shapes) {
    auto same = std::find_if(distinct.begin(), distinct.end(),
                             [&](const Shape& d) { return d.in == s.in && d.out == s.out; });
    if (same == distinct.end()) distinct.push_back(s);
    else same->count += s.count;
  }
  Buffers b;
  for (const Kind kind : dtypes) {
    for (const Shape& s : distinct) {
      b.in8.assign(max_rows * s.in + XNN_EXTRA_BYTES, 0);
      b.params.assign(max_rows + edgemt::kQuantizationParamsPadding, xnn_quantization_params{0, 1.0f});
      b.in32.resize(max_rows * s.in);
      for (float& v : b.in32) v = static_cast<float>(lcg.Next() % 2001) / 1000.0f - 1.0f;
      b.out32.assign(max_rows * s.out, 0.0f);
      const size_t weight_bytes = WeightBytes(s, kind);
      const size_t copies = std::max<size_t>(2, (size_t{96} << 20) / weight_bytes + 1);
      std::vector<LinearOps> ring;
      for (size_t c = 0; c < copies; ++c) ring.push_back(Create(s, kind, &lcg));
      const std::vector<LinearOps> one = {ring[0]};
      for (const size_t rows : rows_list) {
        const double hot1 = TimeCalls(one, kind, rows, s.in, &b, nullptr, min_ms);
        const double hotN = TimeCalls(one, kind, rows, s.in, &b, pool, min_ms);
        const double cold1 = TimeCalls(ring, kind, rows, s.in, &b, nullptr, min_ms);
        const double coldN = TimeCalls(ring, kind, rows, s.in, &b, pool, min_ms);
        std::printf(
            "{\"shape\": \"%s\", \"in\": %zu, \"out\": %zu, \"count\": %zu, \"dtype\": \"%s\", \"rows\": %zu, "
            "\"macs\": %zu, \"weight_bytes\": %zu, \"threads\": %zu, \"hot_us_1\": %.3f, \"hot_us_n\": %.3f, "
            "\"cold_us_1\": %.3f, \"cold_us_n\": %.3f}\n",
            s.name.c_str(), s.in, s.out, s.count, KindName(kind), rows, rows * s.in * s.out, weight_bytes,
            threads, hot1, hotN, cold1, coldN);
        std::fflush(stdout);
      }
      for (const LinearOps& op : ring) {
        xnn_delete_operator(op.fc);
        if (op.quantize != nullptr) xnn_delete_operator(op.quantize);
      }
    }
    if (sequence) {
      // Every layer of the list, COUNT distinct operators per shape, in order.
      size_t max_in = 0, max_out = 0, layers = 0, weight_bytes = 0;
      std::vector<LinearOps> ops;
      std::vector<const Shape*> shape_of;
      for (const Shape& s : shapes) {
        max_in = std::max(max_in, s.in);
        max_out = std::max(max_out, s.out);
        for (size_t c = 0; c < s.count; ++c) {
          ops.push_back(Create(s, kind, &lcg));
          shape_of.push_back(&s);
          ++layers;
          weight_bytes += WeightBytes(s, kind);
        }
      }
      b.in8.assign(max_rows * max_in + XNN_EXTRA_BYTES, 0);
      b.params.assign(max_rows + edgemt::kQuantizationParamsPadding, xnn_quantization_params{0, 1.0f});
      b.in32.resize(max_rows * max_in);
      for (float& v : b.in32) v = static_cast<float>(lcg.Next() % 2001) / 1000.0f - 1.0f;
      b.out32.assign(max_rows * max_out, 0.0f);
      for (const size_t rows : rows_list) {
        size_t macs = 0;
        for (const Shape* s : shape_of) macs += rows * s->in * s->out;
        auto step = [&](pthreadpool_t step_pool) {
          return [&, step_pool]() {
            for (size_t l = 0; l < ops.size(); ++l) {
              const Shape& s = *shape_of[l];
              const bool parallel = step_pool != nullptr && rows * s.in * s.out >= min_parallel_macs;
              Run(ops[l], kind, rows, s.in, &b, parallel ? step_pool : nullptr);
            }
          };
        };
        const double us1 = TimeLoop(step(nullptr), 3, min_ms);
        const double usN = TimeLoop(step(pool), 3, min_ms);
        std::printf(
            "{\"shape\": \"sequence\", \"layers\": %zu, \"dtype\": \"%s\", \"rows\": %zu, \"macs\": %zu, "
            "\"weight_bytes\": %zu, \"threads\": %zu, \"min_parallel_macs\": %zu, \"us_1\": %.3f, \"us_n\": %.3f}\n",
            layers, KindName(kind), rows, macs, weight_bytes, threads, min_parallel_macs, us1, usN);
        std::fflush(stdout);
      }
      for (const LinearOps& op : ops) {
        xnn_delete_operator(op.fc);
        if (op.quantize != nullptr) xnn_delete_operator(op.quantize);
      }
    }
  }
  pthreadpool_destroy(pool);
  return 0;
}
