// edgemt-xnnpack-gemm-bench: times the XNNPACK operators EdgeMT's Linear
// layers use (int8: qc8 1x1 convolution with per-channel scales; float32:
// f32 fully-connected), set up and run as runtime/src/ops/linear.cc does, on
// the calling thread alone and with a pthreadpool of 2 (or --threads N)
// threads, for the layer shapes of the benchmark models. It answers: which
// products pay for a second thread (runtime/src/ops/linear.h,
// kMinParallelMacs), and how fast a decoder step's linear layers can be.
//
//   edgemt-xnnpack-gemm-bench [--threads N] [--rows 1,33] [--min-ms MS]
//
// One JSON object per line: shape, dtype, rows (M), threads, "hot" (the same
// operator run again and again: weights in cache when they fit) and "cold"
// (a ring of copies of the operator whose weights total at least 96 MB, so
// every call streams its weights from memory) microseconds per call (median
// of timed batches), plus MACs.
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

namespace {

using Clock = std::chrono::steady_clock;

struct Shape {
  const char* name;
  size_t in, out;
};

// The Linear layers of the tiny (d256) and base (d512) presets; the trained
// model has tiny's layer shapes and an 8000-entry vocabulary.
const Shape kShapes[] = {
    {"d256.attention 256x256", 256, 256},  {"d256.ffn_up 256x1024", 256, 1024},
    {"d256.ffn_down 1024x256", 1024, 256}, {"trained.projection 256x8000", 256, 8000},
    {"tiny.projection 256x16000", 256, 16000}, {"d512.attention 512x512", 512, 512},
    {"d512.ffn_up 512x2048", 512, 2048},   {"d512.ffn_down 2048x512", 2048, 512},
    {"base.projection 512x32000", 512, 32000},
};

using edgemt::testing::Lcg;

// Creates one operator for the shape; weights random.
xnn_operator_t Create(const Shape& s, bool int8, Lcg* lcg) {
  xnn_operator_t op = nullptr;
  xnn_status status;
  if (int8) {
    std::vector<int8_t> w(s.in * s.out);
    for (auto& v : w) v = static_cast<int8_t>(static_cast<int>(lcg->Next() % 255) - 127);
    std::vector<float> scales(s.out, 0.001f);
    std::vector<int32_t> bias(s.out, 0);
    status = xnn_create_convolution2d_nhwc_qc8(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, s.in, s.out, s.in, s.out, 0, 0.05f,
                                               scales.data(), w.data(), bias.data(), 0, 0.05f, -128, 127, 0, &op);
  } else {
    std::vector<float> w(s.in * s.out), bias(s.out, 0.0f);
    for (auto& v : w) v = static_cast<float>(lcg->Next() % 2001) / 1000.0f - 1.0f;
    status = xnn_create_fully_connected_nc_f32(s.in, s.out, s.in, s.out, w.data(), bias.data(),
                                               -std::numeric_limits<float>::infinity(),
                                               std::numeric_limits<float>::infinity(), 0, &op);
  }
  if (status != xnn_status_success) {
    std::fprintf(stderr, "cannot create the operator for %s (status %d)\n", s.name, status);
    std::exit(1);
  }
  return op;
}

struct Buffers {
  std::vector<int8_t> in8, out8;
  std::vector<float> in32, out32;
};

inline void Run(xnn_operator_t op, bool int8, size_t rows, Buffers* b, pthreadpool_t pool) {
  xnn_status status;
  if (int8) {
    status = xnn_setup_convolution2d_nhwc_qc8(op, rows, 1, 1, b->in8.data(), b->out8.data(), pool);
  } else {
    status = xnn_setup_fully_connected_nc_f32(op, rows, b->in32.data(), b->out32.data(), pool);
  }
  if (status == xnn_status_success) status = xnn_run_operator(op, pool);
  if (status != xnn_status_success) {
    std::fprintf(stderr, "run failed (status %d)\n", status);
    std::exit(1);
  }
}

// Median microseconds per call over timed batches lasting >= min_ms in total.
double TimeCalls(const std::vector<xnn_operator_t>& ops, bool int8, size_t rows, Buffers* b, pthreadpool_t pool,
                 double min_ms) {
  size_t next = 0;
  auto call = [&]() {
    Run(ops[next], int8, rows, b, pool);
    next = next + 1 == ops.size() ? 0 : next + 1;
  };
  for (size_t i = 0; i < ops.size() * 2 + 3; ++i) call();  // warm-up
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
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--threads") threads = std::strtoul(argv[i + 1], nullptr, 10);
    else if (a == "--rows") rows_list = ParseList(argv[i + 1]);
    else if (a == "--min-ms") min_ms = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: edgemt-xnnpack-gemm-bench [--threads N] [--rows 1,33] [--min-ms MS]\n");
      return 2;
    }
  }
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "xnn_initialize failed\n");
    return 1;
  }
  pthreadpool_t pool = pthreadpool_create(threads);
  Lcg lcg(7);
  const size_t max_rows = *std::max_element(rows_list.begin(), rows_list.end());
  Buffers b;
  for (const bool int8 : {true, false}) {
    for (const Shape& s : kShapes) {
      b.in8.assign(max_rows * s.in, 3);
      b.out8.assign(max_rows * s.out, 0);
      b.in32.assign(max_rows * s.in, 0.01f);
      b.out32.assign(max_rows * s.out, 0.0f);
      const size_t weight_bytes = s.in * s.out * (int8 ? 1 : 4);
      const size_t copies = std::max<size_t>(2, (size_t{96} << 20) / weight_bytes + 1);
      std::vector<xnn_operator_t> ring;
      for (size_t c = 0; c < copies; ++c) ring.push_back(Create(s, int8, &lcg));
      const std::vector<xnn_operator_t> one = {ring[0]};
      for (const size_t rows : rows_list) {
        const double hot1 = TimeCalls(one, int8, rows, &b, nullptr, min_ms);
        const double hotN = TimeCalls(one, int8, rows, &b, pool, min_ms);
        const double cold1 = TimeCalls(ring, int8, rows, &b, nullptr, min_ms);
        const double coldN = TimeCalls(ring, int8, rows, &b, pool, min_ms);
        std::printf(
            "{\"shape\": \"%s\", \"in\": %zu, \"out\": %zu, \"dtype\": \"%s\", \"rows\": %zu, \"macs\": %zu, "
            "\"weight_bytes\": %zu, \"threads\": %zu, \"hot_us_1\": %.3f, \"hot_us_n\": %.3f, \"cold_us_1\": %.3f, "
            "\"cold_us_n\": %.3f}\n",
            s.name, s.in, s.out, int8 ? "qc8" : "f32", rows, rows * s.in * s.out, weight_bytes, threads, hot1, hotN,
            cold1, coldN);
        std::fflush(stdout);
      }
      for (xnn_operator_t op : ring) xnn_delete_operator(op);
    }
  }
  pthreadpool_destroy(pool);
  return 0;
}
