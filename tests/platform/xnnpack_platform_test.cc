// XNNPACK on the machine (or emulator) running the tests: it must initialise,
// cpuinfo must see the SIMD extensions its fast kernels need (NEON on ARM),
// and the two operators EdgeMT relies on (an int8 Linear as a qc8 1x1
// convolution with per-channel scales, a float Linear as an f32
// fully-connected) must match a scalar reference computed here.
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

// An int8 Linear as docs/int8.md defines it, run as XNNPACK's qc8 1x1
// convolution (per-output-channel weight scales), against the contract's
// arithmetic in scalar code.
TEST_CASE("qc8 1x1 convolution matches the scalar int8 reference") {
  XnnpackSession xnn;
  REQUIRE(xnn.status == xnn_status_success);

  const size_t kPixels = 5, kIn = 37, kOut = 19;  // odd sizes: remainders in every kernel
  Lcg rng(12345);
  const float si = 0.05f, so = 0.4f;
  const int8_t zi = 3, zo = -5;
  std::vector<float> w(kOut * kIn), b(kOut), s(kOut);
  std::vector<int8_t> q(kOut * kIn), x(kPixels * kIn);
  std::vector<int32_t> bq(kOut);
  for (float& v : w) v = rng.Float(-0.5f, 0.5f);
  for (float& v : b) v = rng.Float(-1.0f, 1.0f);
  for (size_t r = 0; r < kOut; ++r) {
    float m = 0.0f;
    for (size_t c = 0; c < kIn; ++c) m = std::max(m, std::fabs(w[r * kIn + c]));
    s[r] = m > 0.0f ? m / 127.0f : 1.0f;
    for (size_t c = 0; c < kIn; ++c) {
      q[r * kIn + c] = static_cast<int8_t>(std::clamp(std::nearbyint(w[r * kIn + c] / s[r]), -127.0f, 127.0f));
    }
    bq[r] = static_cast<int32_t>(std::nearbyint(b[r] / (si * s[r])));
  }
  for (int8_t& v : x) v = static_cast<int8_t>(rng.Int(-128, 127));

  // Reference: int32 accumulation, fp32 requantization, round half to even.
  std::vector<int8_t> expected(kPixels * kOut);
  for (size_t p = 0; p < kPixels; ++p) {
    for (size_t r = 0; r < kOut; ++r) {
      int32_t acc = bq[r];
      for (size_t c = 0; c < kIn; ++c) acc += (x[p * kIn + c] - zi) * q[r * kIn + c];
      const float multiplier = si * s[r] / so;
      const float y = std::nearbyint(static_cast<float>(acc) * multiplier) + static_cast<float>(zo);
      expected[p * kOut + r] = static_cast<int8_t>(std::clamp(y, -128.0f, 127.0f));
    }
  }

  xnn_operator_t op = nullptr;
  REQUIRE(xnn_create_convolution2d_nhwc_qc8(
              /*padding*/ 0, 0, 0, 0, /*kernel*/ 1, 1, /*subsampling*/ 1, 1, /*dilation*/ 1, 1,
              /*groups*/ 1, kIn, kOut, /*input stride*/ kIn, /*output stride*/ kOut, zi, si, s.data(),
              q.data(), bq.data(), zo, so, /*min*/ -128, /*max*/ 127, /*flags*/ 0, &op) == xnn_status_success);
  std::vector<int8_t> got(kPixels * kOut, 0);
  REQUIRE(xnn_setup_convolution2d_nhwc_qc8(op, /*batch*/ 1, /*height*/ 1, /*width*/ kPixels, x.data(),
                                           got.data(), nullptr) == xnn_status_success);
  REQUIRE(xnn_run_operator(op, nullptr) == xnn_status_success);
  xnn_delete_operator(op);

  size_t mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != expected[i]) {
      if (++mismatches <= 5) {
        MESSAGE("output " << i << ": xnnpack " << int(got[i]) << ", reference " << int(expected[i]));
      }
    }
  }
  CHECK(mismatches == 0);
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
                                            /*flags*/ 0, &op) == xnn_status_success);
  std::vector<float> got(kBatch * kOut, 0.0f);
  REQUIRE(xnn_setup_fully_connected_nc_f32(op, kBatch, x.data(), got.data(), pool) == xnn_status_success);
  REQUIRE(xnn_run_operator(op, pool) == xnn_status_success);
  xnn_delete_operator(op);
  pthreadpool_destroy(pool);

  for (size_t i = 0; i < got.size(); ++i) {
    // float32 sums of 30 terms of magnitude <= 2, in any order (and with or
    // without fused multiply-add): well within 1e-4 of the exact value.
    CHECK(std::fabs(static_cast<double>(got[i]) - expected[i]) <= 1e-4 * (1.0 + std::fabs(expected[i])));
  }
}
