// AttendSequenceHead (ops/sequence_attention.h), the encoder's attention,
// against the formula in double precision and against AttendOneQuery bit for
// bit, and padding: a sentence padded with masked keys gives its own bits.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "lcg.h"
#include "reference_attention.h"
#include "ops/attention.h"
#include "ops/sequence_attention.h"

namespace {

using edgemt::testing::Lcg;

// Rows of the fused projection: query, key and value of d = heads * dh
// floats each, `extra` more floats after them (the stride).
struct Fused {
  size_t heads, dh, length, stride;
  std::vector<float> rows;
};

Fused RandomFused(Lcg& lcg, size_t heads, size_t dh, size_t length) {
  const size_t d = heads * dh, stride = 3 * d + 5;
  Fused f{heads, dh, length, stride, std::vector<float>(length * stride)};
  for (float& x : f.rows) x = lcg.Float(-1.5f, 1.5f);
  return f;
}

// out [length, out_stride]: every head of every query.
std::vector<float> Attend(const Fused& f, const uint8_t* mask, size_t out_stride) {
  const size_t d = f.heads * f.dh;
  std::vector<float> scratch(edgemt::SequenceAttentionScratch(f.dh, f.length), -7.0f);  // stale values
  std::vector<float> out(f.length * out_stride, 99.0f);
  const edgemt::AttentionShape shape{f.heads, f.dh, f.stride};
  for (size_t h = 0; h < f.heads; ++h)
    edgemt::AttendSequenceHead(shape, h, f.rows.data(), d, 2 * d, f.length, mask, scratch.data(), out.data(),
                               out_stride);
  return out;
}

void CheckAgainstFormula(size_t heads, size_t dh, size_t length) {
  CAPTURE(heads);
  CAPTURE(dh);
  CAPTURE(length);
  Lcg lcg(static_cast<uint32_t>(31 + heads * 7 + dh * 3 + length));
  Fused f = RandomFused(lcg, heads, dh, length);
  const size_t d = heads * dh, out_stride = d + 3;
  std::vector<uint8_t> mask(length, 1);
  if (length > 2) {
    mask[1] = 0;
    for (size_t c = 0; c < d; ++c) f.rows[1 * f.stride + d + c] = 50.0f;  // would dominate every softmax
  }
  const std::vector<float> out = Attend(f, mask.data(), out_stride);
  for (size_t i = 0; i < length; ++i) {
    for (size_t h = 0; h < heads; ++h) {
      const float* row = f.rows.data() + h * dh;
      const std::vector<double> expected = edgemt::testing::ReferenceAttention(
          row + i * f.stride, row + d, row + 2 * d, f.stride, length, dh, mask.data());
      for (size_t c = 0; c < dh; ++c) CHECK(std::fabs(out[i * out_stride + h * dh + c] - expected[c]) <= 2e-5);
    }
    for (size_t c = d; c < out_stride; ++c) CHECK(out[i * out_stride + c] == 99.0f);  // past the heads: untouched
  }
}

}  // namespace

TEST_CASE("AttendSequenceHead is the softmax-weighted sum of the visible values, every query and head") {
  // Lengths below, at and past the key lanes (16) and the query blocks (4);
  // heads whose width is and is not a multiple of the lanes.
  for (size_t length : {size_t{1}, size_t{3}, size_t{4}, size_t{17}, size_t{33}, size_t{70}}) {
    CheckAgainstFormula(2, 64, length);
    CheckAgainstFormula(3, 20, length);
    CheckAgainstFormula(1, 8, length);
  }
}

TEST_CASE("AttendSequenceHead gives zeros where no key is visible") {
  Lcg lcg(3);
  const Fused f = RandomFused(lcg, 2, 16, 9);
  const std::vector<uint8_t> none(f.length, 0);
  for (float x : Attend(f, none.data(), 2 * 16)) CHECK(x == 0.0f);
}

TEST_CASE("AttendSequenceHead: a sentence padded with masked keys gives its own bits") {
  // The encoder pads a batch's sentences to its longest: the real queries of
  // a padded sentence must come out as the sentence alone (batch = one by one).
  Lcg lcg(8);
  for (size_t length : {size_t{5}, size_t{16}, size_t{21}}) {
    for (size_t padding : {size_t{1}, size_t{11}, size_t{40}}) {
      CAPTURE(length);
      CAPTURE(padding);
      const Fused alone = RandomFused(lcg, 2, 64, length);
      Fused padded = RandomFused(lcg, 2, 64, length + padding);  // the padding rows hold anything
      std::memcpy(padded.rows.data(), alone.rows.data(), alone.rows.size() * sizeof(float));
      std::vector<uint8_t> mask(length + padding, 0);
      std::fill_n(mask.begin(), length, uint8_t{1});
      const std::vector<float> a = Attend(alone, nullptr, 128);
      const std::vector<float> b = Attend(padded, mask.data(), 128);
      CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("AttendSequenceHead gives AttendOneQuery's bits for every query") {
  // The encoder attended one query at a time before; its outputs (and every
  // translation) stay the same to the bit.
  Lcg lcg(12);
  for (size_t dh : {size_t{64}, size_t{20}, size_t{32}}) {
    for (size_t length : {size_t{1}, size_t{6}, size_t{29}, size_t{64}}) {
      CAPTURE(dh);
      CAPTURE(length);
      const size_t heads = 3, d = heads * dh;
      const Fused f = RandomFused(lcg, heads, dh, length);
      std::vector<uint8_t> mask(length, 1);
      mask[length / 2] = 0;
      const std::vector<float> all = Attend(f, mask.data(), d);
      std::vector<float> scores(heads * length), one(d);
      size_t same = 0;
      for (size_t i = 0; i < length; ++i) {
        const edgemt::KeyValueRows kv{f.rows.data() + d, f.rows.data() + 2 * d, length, mask.data()};
        edgemt::AttendOneQuery({heads, dh, f.stride}, f.rows.data() + i * f.stride, kv, scores.data(), one.data());
        same += std::memcmp(one.data(), all.data() + i * d, d * sizeof(float)) == 0 ? 1 : 0;
      }
      CHECK(same == length);
    }
  }
}
