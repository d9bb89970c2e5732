// The hand-written float kernels (ops/exp.h, ops/layer_norm.h,
// ops/attention.h) against the same formulas in double precision, at
// widths that are and are not multiples of their vector lanes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "lcg.h"
#include "reference_attention.h"
#include "ops/attention.h"
#include "ops/exp.h"
#include "ops/layer_norm.h"

namespace {

using edgemt::testing::Lcg;

std::vector<float> RandomVector(Lcg& lcg, size_t n, float lo, float hi) {
  std::vector<float> v(n);
  for (float& x : v) x = lcg.Float(lo, hi);
  return v;
}

}  // namespace

TEST_CASE("ExpNonPositive is exp within two float ulps, 1 at 0 and 0 below the normal range") {
  CHECK(edgemt::ExpNonPositive(0.0f) == 1.0f);
  CHECK(edgemt::ExpNonPositive(-88.0f) == 0.0f);
  CHECK(edgemt::ExpNonPositive(-std::numeric_limits<float>::infinity()) == 0.0f);
  CHECK(edgemt::ExpNonPositive(std::numeric_limits<float>::quiet_NaN()) == 0.0f);
  double worst = 0.0;
  for (float x = 0.0f; x > -87.0f; x -= 0.000731f) {
    const double exact = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::fabs(edgemt::ExpNonPositive(x) - exact) / exact);
  }
  CHECK(worst <= 2.0 * 0x1p-24);
}

TEST_CASE("LayerNorm and AddLayerNorm follow the formula") {
  Lcg lcg(5);
  for (size_t d : {size_t{7}, size_t{16}, size_t{100}, size_t{256}}) {
    const size_t rows = 3;
    std::vector<float> x = RandomVector(lcg, rows * d, -4.0f, 6.0f);
    std::vector<float> residual = RandomVector(lcg, rows * d, -1.0f, 1.0f);
    std::vector<float> gamma = RandomVector(lcg, d, 0.5f, 1.5f), beta = RandomVector(lcg, d, -0.5f, 0.5f);
    std::vector<float> normed(rows * d), added(rows * d);
    edgemt::LayerNorm(x.data(), rows, d, gamma.data(), beta.data(), 1e-5f, normed.data());
    edgemt::AddLayerNorm(x.data(), residual.data(), rows, d, gamma.data(), beta.data(), 1e-5f, added.data());
    for (int with_residual = 0; with_residual < 2; ++with_residual) {
      const std::vector<float>& got = with_residual ? added : normed;
      for (size_t r = 0; r < rows; ++r) {
        double mean = 0.0, var = 0.0;
        std::vector<double> row(d);
        for (size_t i = 0; i < d; ++i) row[i] = static_cast<double>(x[r * d + i]) + (with_residual ? residual[r * d + i] : 0.0f);
        for (double v : row) mean += v / static_cast<double>(d);
        for (double v : row) var += (v - mean) * (v - mean) / static_cast<double>(d);
        for (size_t i = 0; i < d; ++i) {
          const double expected = (row[i] - mean) / std::sqrt(var + 1e-5) * gamma[i] + beta[i];
          CHECK(std::fabs(got[r * d + i] - expected) <= 1e-5 * (1.0 + std::fabs(expected)));
        }
      }
    }
  }
}

namespace {

// AttendOneQuery against the formula in double precision, a masked key that
// would dominate the softmax among them.
void CheckAttention(size_t heads, size_t dh, size_t keys) {
  Lcg lcg(9);
  const size_t stride = heads * dh + 4;  // a stride wider than the row
  std::vector<float> q = RandomVector(lcg, heads * dh, -1.0f, 1.0f);
  std::vector<float> k = RandomVector(lcg, keys * stride, -1.0f, 1.0f);
  std::vector<float> v = RandomVector(lcg, keys * stride, -2.0f, 2.0f);
  std::vector<uint8_t> mask(keys, 1);
  mask[2] = mask[keys - 1] = 0;
  k[2 * stride] = 1000.0f;
  std::vector<float> scores(heads * keys), out(heads * dh);
  edgemt::AttendOneQuery({heads, dh, stride}, q.data(), {k.data(), v.data(), keys, mask.data()}, scores.data(),
                         out.data());
  for (size_t h = 0; h < heads; ++h) {
    const std::vector<double> expected = edgemt::testing::ReferenceAttention(
        q.data() + h * dh, k.data() + h * dh, v.data() + h * dh, stride, keys, dh, mask.data());
    for (size_t i = 0; i < dh; ++i) CHECK(std::fabs(out[h * dh + i] - expected[i]) <= 1e-5);
  }
  // No visible key: zeros.
  std::vector<uint8_t> none(keys, 0);
  edgemt::AttendOneQuery({heads, dh, stride}, q.data(), {k.data(), v.data(), keys, none.data()}, scores.data(),
                         out.data());
  for (float x : out) CHECK(x == 0.0f);
}

}  // namespace

TEST_CASE("AttendOneQuery is the softmax-weighted sum of the visible values of each head") {
  SUBCASE("heads of 20: one key at a time") { CheckAttention(3, 20, 11); }
  SUBCASE("heads of 64: four keys at a time, then the rest") { CheckAttention(2, 64, 11); }
}

TEST_CASE("AttendOneQuery's scores of four keys at a time round as those of one key at a time") {
  // Keys 4..6 repeat keys 0..2; the first four are scored together, the last
  // three one by one. Equal scores give bit-equal weights. Many queries: a
  // different order of additions rounds differently for only some of them.
  Lcg lcg(21);
  const size_t dh = 64, keys = 7;
  std::vector<float> k = RandomVector(lcg, keys * dh, -1.0f, 1.0f);
  std::vector<float> v = RandomVector(lcg, keys * dh, -1.0f, 1.0f);
  for (size_t j = 4; j < keys; ++j) std::copy_n(k.begin() + (j - 4) * dh, dh, k.begin() + j * dh);
  std::vector<float> scores(keys), out(dh), weights(keys);
  size_t equal = 0, compared = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> q = RandomVector(lcg, dh, -4.0f, 4.0f);
    edgemt::AttendOneQuery({1, dh, dh}, q.data(), {k.data(), v.data(), keys}, scores.data(), out.data(),
                           weights.data());
    for (size_t j = 4; j < keys; ++j, ++compared) equal += weights[j] == weights[j - 4] ? 1 : 0;
  }
  CHECK(equal == compared);
}

TEST_CASE("AttendOneQuery over listed rows equals it over the same rows laid out in order") {
  // Beam search's history: keys 0..keys-1 at rows scattered over a larger
  // cache, some rows shared; the result must be bit-identical to attending
  // a copy of those rows in order (the list changes where, not how).
  Lcg lcg(33);
  const size_t heads = 2, dh = 64, stride = heads * dh + 16, cache_rows = 24, keys = 9;
  std::vector<float> k = RandomVector(lcg, cache_rows * stride, -1.0f, 1.0f);
  std::vector<float> v = RandomVector(lcg, cache_rows * stride, -1.0f, 1.0f);
  const std::vector<int32_t> rows = {17, 1, 9, 9, 23, 0, 4, 12, 5};
  std::vector<float> k_in_order(keys * stride), v_in_order(keys * stride);
  for (size_t j = 0; j < keys; ++j) {
    std::copy_n(k.begin() + rows[j] * stride, stride, k_in_order.begin() + j * stride);
    std::copy_n(v.begin() + rows[j] * stride, stride, v_in_order.begin() + j * stride);
  }
  std::vector<float> scores(heads * keys), listed(heads * dh), in_order(heads * dh), weights(keys), weights2(keys);
  const std::vector<float> q = RandomVector(lcg, heads * dh, -2.0f, 2.0f);
  edgemt::KeyValueRows scattered{k.data(), v.data(), keys};
  scattered.rows = rows.data();
  edgemt::AttendOneQuery({heads, dh, stride}, q.data(), scattered, scores.data(), listed.data(), weights.data());
  edgemt::AttendOneQuery({heads, dh, stride}, q.data(), {k_in_order.data(), v_in_order.data(), keys}, scores.data(),
                         in_order.data(), weights2.data());
  CHECK(listed == in_order);
  CHECK(weights == weights2);
  // And not what the rows in cache order give.
  edgemt::AttendOneQuery({heads, dh, stride}, q.data(), {k.data(), v.data(), keys}, scores.data(), in_order.data());
  CHECK(listed != in_order);
}

TEST_CASE("AttendOneQuery over a group of heads gives those heads' bits of all of them") {
  // The decoder splits a row's heads between threads when rows are few and
  // keys many: each group must come out as the heads did in one call.
  Lcg lcg(44);
  const size_t heads = 8;
  for (size_t dh : {size_t{64}, size_t{20}}) {
    for (size_t keys : {size_t{1}, size_t{5}, size_t{13}, size_t{70}, size_t{203}}) {
      CAPTURE(dh);
      CAPTURE(keys);
      const size_t d = heads * dh, stride = 2 * d + 8;  // keys and values fused in a row, as the cross-attention's
      std::vector<float> kv = RandomVector(lcg, keys * stride, -1.5f, 1.5f);
      std::vector<uint8_t> mask(keys, 1);
      mask[keys / 3] = 0;
      const std::vector<float> q = RandomVector(lcg, d, -2.0f, 2.0f);
      std::vector<float> scores(heads * keys), all(d), grouped(d);
      edgemt::AttendOneQuery({heads, dh, stride}, q.data(), {kv.data(), kv.data() + d, keys, mask.data()},
                             scores.data(), all.data());
      for (size_t groups : {size_t{2}, size_t{4}}) {
        const size_t width = d / groups;
        std::fill(grouped.begin(), grouped.end(), 0.0f);
        for (size_t g = 0; g < groups; ++g) {
          const size_t at = g * width;
          edgemt::AttendOneQuery({heads / groups, dh, stride}, q.data() + at,
                                 {kv.data() + at, kv.data() + d + at, keys, mask.data()}, scores.data(),
                                 grouped.data() + at);
        }
        CHECK(grouped == all);
      }
    }
  }
}
