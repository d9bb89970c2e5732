// XNNPACK on the machine (or emulator) running the tests: it must initialise,
// cpuinfo must see the SIMD extensions its fast kernels need (NEON on ARM),
// and the operators EdgeMT relies on (an int8 Linear as a per-row f32 -> qd8
// conversion and a qd8 x qc8w fully-connected with float output, a float
// Linear as an f32 fully-connected) must match a scalar reference computed
// here.
//
// The report lines start with "xnnpack_platform:" (tests/run.sh shows them).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cpuinfo.h>
#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "lcg.h"
#include "ops/quantization_params.h"

#if defined(__linux__) && (defined(__arm__) || defined(__aarch64__))
#include <sys/auxv.h>
#define EDGEMT_TEST_HAS_AUXV 1
#endif

namespace {

const char* ArchName() {
#if defined(__aarch64__)
  return "aarch64";
#elif defined(__arm__)
  return "arm (32-bit)";
#elif defined(__x86_64__)
  return "x86-64";
#elif defined(__i386__)
  return "x86 (32-bit)";
#else
  return "other";
#endif
}

std::string Flag(const char* name, bool on) { return std::string(" ") + name + (on ? "=yes" : "=no"); }

using edgemt::testing::Lcg;

struct XnnpackSession {
  XnnpackSession() : status(xnn_initialize(nullptr)) {}
  ~XnnpackSession() {
    if (status == xnn_status_success) xnn_deinitialize();
  }
  xnn_status status;
};

}  // namespace

TEST_CASE("cpuinfo reports the platform") {
  REQUIRE(cpuinfo_initialize());
  std::string line = std::string("xnnpack_platform: arch=") + ArchName() +
                     " processors=" + std::to_string(cpuinfo_get_processors_count());
#if CPUINFO_ARCH_ARM || CPUINFO_ARCH_ARM64
  line += Flag("neon", cpuinfo_has_arm_neon());
  line += Flag("neon_fma", cpuinfo_has_arm_neon_fma());
  line += Flag("neon_v8", cpuinfo_has_arm_neon_v8());
  line += Flag("neon_fp16_arith", cpuinfo_has_arm_neon_fp16_arith());
  line += Flag("neon_dot", cpuinfo_has_arm_neon_dot());
  line += Flag("i8mm", cpuinfo_has_arm_i8mm());
#if CPUINFO_ARCH_ARM
  line += Flag("armv6", cpuinfo_has_arm_v6());
  line += Flag("armv7", cpuinfo_has_arm_v7());
  line += Flag("vfpv3", cpuinfo_has_arm_vfpv3());
  line += Flag("vfpv4", cpuinfo_has_arm_vfpv4());
#endif
#if defined(EDGEMT_TEST_HAS_AUXV)
  char hwcap[64];
  std::snprintf(hwcap, sizeof hwcap, " hwcap=0x%lx hwcap2=0x%lx", getauxval(AT_HWCAP), getauxval(AT_HWCAP2));
  line += hwcap;
#endif
  std::printf("%s\n", line.c_str());
  // XNNPACK's fast int8 and float kernels on ARM are NEON kernels: without
  // NEON it would run (slow) scalar code or refuse to initialise.
  CHECK(cpuinfo_has_arm_neon());
#elif CPUINFO_ARCH_X86 || CPUINFO_ARCH_X86_64
  line += Flag("sse4.1", cpuinfo_has_x86_sse4_1());
  line += Flag("avx", cpuinfo_has_x86_avx());
  line += Flag("fma3", cpuinfo_has_x86_fma3());
  line += Flag("avx2", cpuinfo_has_x86_avx2());
  line += Flag("avx512f", cpuinfo_has_x86_avx512f());
  line += Flag("avx512vnni", cpuinfo_has_x86_avx512vnni());
  line += Flag("avxvnni", cpuinfo_has_x86_avxvnni());
  std::printf("%s\n", line.c_str());
#else
  std::printf("%s\n", line.c_str());
#endif
  std::fflush(stdout);
}

TEST_CASE("XNNPACK initialises") {
  XnnpackSession xnn;
  std::printf("xnnpack_platform: xnn_initialize -> %d (%s)\n", static_cast<int>(xnn.status),
              xnn.status == xnn_status_success ? "ok" : "FAILED");
  REQUIRE(xnn.status == xnn_status_success);
}

// docs/int8.md's per-row quantization parameters, in scalar float32.
struct RowQuantization {
  int32_t zero_point;
  float scale;       // si
  float multiplier;  // m = 1 / si
};

RowQuantization QuantizationOf(const float* x, size_t n) {
  float lo = 0.0f, hi = 0.0f;
  for (size_t c = 0; c < n; ++c) {
    lo = std::min(lo, x[c]);
    hi = std::max(hi, x[c]);
  }
  const float inv = hi == lo ? 1.0f : 255.0f / (hi - lo);
  const float zf = (-128.0f + lo * inv) + (127.0f + hi * inv) > 0.0f ? -128.0f - lo * inv : 127.0f - hi * inv;
  const int32_t z = static_cast<int32_t>(std::nearbyint(std::clamp(zf, -128.0f, 127.0f)));
  const float si = 1.0f / inv;
  return RowQuantization{z, si, 1.0f / si};
}

// An int8 Linear as docs/int8.md defines it: XNNPACK's f32 -> qd8 conversion
// (one range per row) and its qd8 x qc8w fully-connected with float output,
// against the contract's arithmetic in scalar code. The quantized rows and
// their parameters must match exactly; the outputs within the one rounding
// that a fused multiply-add may save.
TEST_CASE("qd8 conversion and qd8 x qc8w fully-connected match the scalar int8 reference") {
  XnnpackSession xnn;
  REQUIRE(xnn.status == xnn_status_success);

  const size_t kRows = 5, kIn = 37, kOut = 19;  // odd sizes: remainders in every kernel
  Lcg rng(12345);
  std::vector<float> w(kOut * kIn), b(kOut), s(kOut), x(kRows * kIn);
  std::vector<int8_t> q(kOut * kIn);
  for (float& v : w) v = rng.Float(-0.5f, 0.5f);
  for (float& v : b) v = rng.Float(-1.0f, 1.0f);
  for (size_t r = 0; r < kOut; ++r) {
    float m = 0.0f;
    for (size_t c = 0; c < kIn; ++c) m = std::max(m, std::fabs(w[r * kIn + c]));
    s[r] = m > 0.0f ? m / 127.0f : 1.0f;
    for (size_t c = 0; c < kIn; ++c) {
      q[r * kIn + c] = static_cast<int8_t>(std::clamp(std::nearbyint(w[r * kIn + c] / s[r]), -127.0f, 127.0f));
    }
  }
  // Rows of different kinds: mixed signs, all positive (zero point -128),
  // all negative (zero point 127), all zero, one large outlier.
  for (float& v : x) v = rng.Float(-3.0f, 2.0f);
  for (size_t c = 0; c < kIn; ++c) {
    x[1 * kIn + c] = std::fabs(x[1 * kIn + c]) + 0.25f;
    x[2 * kIn + c] = -std::fabs(x[2 * kIn + c]) - 0.5f;
    x[3 * kIn + c] = 0.0f;
  }
  x[4 * kIn + 7] = 40.0f;

  std::vector<int8_t> expected_q(kRows * kIn);
  std::vector<RowQuantization> expected_params(kRows);
  std::vector<float> expected(kRows * kOut), expected_product(kRows * kOut);
  for (size_t n = 0; n < kRows; ++n) {
    const RowQuantization p = QuantizationOf(&x[n * kIn], kIn);
    expected_params[n] = p;
    for (size_t c = 0; c < kIn; ++c) {
      const float lo = static_cast<float>(-128 - p.zero_point), hi = static_cast<float>(127 - p.zero_point);
      expected_q[n * kIn + c] =
          static_cast<int8_t>(std::nearbyint(std::clamp(x[n * kIn + c] * p.multiplier, lo, hi)) + p.zero_point);
    }
    for (size_t r = 0; r < kOut; ++r) {
      int32_t acc = 0;
      for (size_t c = 0; c < kIn; ++c) acc += (expected_q[n * kIn + c] - p.zero_point) * q[r * kIn + c];
      expected_product[n * kOut + r] = (static_cast<float>(acc) * p.scale) * s[r];
      expected[n * kOut + r] = expected_product[n * kOut + r] + b[r];
    }
  }

  pthreadpool_t pool = pthreadpool_create(2);
  REQUIRE(pool != nullptr);
  xnn_operator_t convert = nullptr, fc = nullptr;
  const float inf = std::numeric_limits<float>::infinity();
  REQUIRE(xnn_create_convert_nc_f32_qd8(0, &convert) == xnn_status_success);
  REQUIRE(xnn_create_fully_connected_nc_qd8_f32_qc8w(kIn, kOut, kIn, kOut, s.data(), q.data(), b.data(), -inf, inf,
                                                     /*flags*/ 0, nullptr, nullptr, &fc) == xnn_status_success);
  std::vector<int8_t> xq(kRows * kIn + XNN_EXTRA_BYTES, 0);
  std::vector<xnn_quantization_params> params(kRows + edgemt::kQuantizationParamsPadding);
  std::vector<float> got(kRows * kOut, 0.0f);
  REQUIRE(xnn_reshape_convert_nc_f32_qd8(convert, kRows, kIn, kIn, kIn, pool) == xnn_status_success);
  REQUIRE(xnn_setup_convert_nc_f32_qd8(convert, x.data(), xq.data(), params.data()) == xnn_status_success);
  REQUIRE(xnn_run_operator(convert, pool) == xnn_status_success);
  edgemt::PadQuantizationParams(params.data(), kRows);  // as the runtime does
  REQUIRE(xnn_reshape_fully_connected_nc_qd8_f32_qc8w(fc, kRows, pool) == xnn_status_success);
  REQUIRE(xnn_setup_fully_connected_nc_qd8_f32_qc8w(fc, xq.data(), got.data(), params.data()) == xnn_status_success);
  REQUIRE(xnn_run_operator(fc, pool) == xnn_status_success);
  xnn_delete_operator(fc);
  xnn_delete_operator(convert);
  pthreadpool_destroy(pool);

  for (size_t n = 0; n < kRows; ++n) {
    CAPTURE(n);
    CHECK(params[n].zero_point == expected_params[n].zero_point);
    CHECK(params[n].scale == expected_params[n].scale);
  }
  size_t mismatches = 0;
  for (size_t i = 0; i < kRows * kIn; ++i) {
    if (xq[i] != expected_q[i] && ++mismatches <= 5)
      MESSAGE("quantized input " << i << ": xnnpack " << int(xq[i]) << ", reference " << int(expected_q[i]));
  }
  CHECK(mismatches == 0);
  for (size_t i = 0; i < got.size(); ++i) {
    // (acc * si) * s + b in float32; a kernel may multiply the scales first
    // and fuse the last multiply and add: two ulps of the product plus one
    // ulp of the result (docs/int8.md).
    CAPTURE(i);
    auto ulp_of = [inf](float v) { return std::nextafter(std::fabs(v), inf) - std::fabs(v); };
    const float ulp = 2.0f * ulp_of(expected_product[i]) + ulp_of(expected[i]);
    CHECK(std::fabs(got[i] - expected[i]) <= ulp);
  }
}

// A float Linear as XNNPACK's f32 fully-connected, on two threads.
TEST_CASE("f32 fully-connected matches the scalar reference") {
  XnnpackSession xnn;
  REQUIRE(xnn.status == xnn_status_success);

  const size_t kBatch = 3, kIn = 29, kOut = 13;
  Lcg rng(777);
  std::vector<float> w(kOut * kIn), b(kOut), x(kBatch * kIn);
  for (float& v : w) v = rng.Float(-1.0f, 1.0f);
  for (float& v : b) v = rng.Float(-1.0f, 1.0f);
  for (float& v : x) v = rng.Float(-2.0f, 2.0f);
  std::vector<double> expected(kBatch * kOut);
  for (size_t n = 0; n < kBatch; ++n) {
    for (size_t r = 0; r < kOut; ++r) {
      double acc = b[r];
      for (size_t c = 0; c < kIn; ++c) acc += static_cast<double>(x[n * kIn + c]) * w[r * kIn + c];
      expected[n * kOut + r] = acc;
    }
  }

  pthreadpool_t pool = pthreadpool_create(2);
  REQUIRE(pool != nullptr);
  xnn_operator_t op = nullptr;
  const float inf = std::numeric_limits<float>::infinity();
  REQUIRE(xnn_create_fully_connected_nc_f32(kIn, kOut, kIn, kOut, w.data(), b.data(), -inf, inf,
                                            /*flags*/ 0, nullptr, nullptr, &op) == xnn_status_success);
  std::vector<float> got(kBatch * kOut, 0.0f);
  REQUIRE(xnn_reshape_fully_connected_nc_f32(op, kBatch, pool) == xnn_status_success);
  REQUIRE(xnn_setup_fully_connected_nc_f32(op, x.data(), got.data()) == xnn_status_success);
  REQUIRE(xnn_run_operator(op, pool) == xnn_status_success);
  xnn_delete_operator(op);
  pthreadpool_destroy(pool);

  for (size_t i = 0; i < got.size(); ++i) {
    // float32 sums of 30 terms of magnitude <= 2, in any order (and with or
    // without fused multiply-add): well within 1e-4 of the exact value.
    CHECK(std::fabs(static_cast<double>(got[i]) - expected[i]) <= 1e-4 * (1.0 + std::fabs(expected[i])));
  }
}
