// AttendOneQuery (runtime/src/ops/attention.h) against the formula in double
// precision, over rows in order, listed rows and groups of heads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "lcg.h"
#include "ops/attention.h"
#include "reference_attention.h"

using edgemt::testing::Lcg;

namespace {

// AttendOneQuery against the formula in double precision, a masked key that
// would dominate the softmax among them.
void CheckAttention(size_t heads, size_t dh, size_t keys) {
  Lcg lcg(9);
  const size_t stride = heads * dh + 4;  // a stride wider than the row
  std::vector<float> q = lcg.Floats(heads * dh, -1.0f, 1.0f);
  std::vector<float> k = lcg.Floats(keys * stride, -1.0f, 1.0f);
  std::vector<float> v = lcg.Floats(keys * stride, -2.0f, 2.0f);
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
  std::vector<float> k = lcg.Floats(keys * dh, -1.0f, 1.0f);
  std::vector<float> v = lcg.Floats(keys * dh, -1.0f, 1.0f);
  for (size_t j = 4; j < keys; ++j) std::copy_n(k.begin() + (j - 4) * dh, dh, k.begin() + j * dh);
  std::vector<float> scores(keys), out(dh), weights(keys);
  size_t equal = 0, compared = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> q = lcg.Floats(dh, -4.0f, 4.0f);
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
  const size_t heads = 2, dh = 64, stride = heads * dh + 16, history_rows = 24, keys = 9;
  std::vector<float> k = lcg.Floats(history_rows * stride, -1.0f, 1.0f);
  std::vector<float> v = lcg.Floats(history_rows * stride, -1.0f, 1.0f);
  const std::vector<int32_t> rows = {17, 1, 9, 9, 23, 0, 4, 12, 5};
  std::vector<float> k_in_order(keys * stride), v_in_order(keys * stride);
  for (size_t j = 0; j < keys; ++j) {
    std::copy_n(k.begin() + rows[j] * stride, stride, k_in_order.begin() + j * stride);
    std::copy_n(v.begin() + rows[j] * stride, stride, v_in_order.begin() + j * stride);
  }
  std::vector<float> scores(heads * keys), listed(heads * dh), in_order(heads * dh), weights(keys), weights2(keys);
  const std::vector<float> q = lcg.Floats(heads * dh, -2.0f, 2.0f);
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
      std::vector<float> kv = lcg.Floats(keys * stride, -1.5f, 1.5f);
      std::vector<uint8_t> mask(keys, 1);
      mask[keys / 3] = 0;
      const std::vector<float> q = lcg.Floats(d, -2.0f, 2.0f);
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

