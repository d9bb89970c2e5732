// Self-attention of every position of a sequence over the whole sequence,
// one head at a time (the encoder). AttendOneQuery scores one query's keys
// one dot product at a time, each ending in a sum across its lanes; here the
// head's keys are transposed once, and a few queries at a time score 16 keys
// per vector multiply-add, in AttendOneQuery's order of operations (its
// bits). Long sentences gain (tests/bench/ANALYSIS.md, "Thresholds in the code").
#pragma once

#include <cstddef>
#include <cstdint>

#include "ops/attention.h"

namespace edgemt {

// From this length on, AttendSequenceHead is faster than AttendOneQuery for
// each query; below it, the transposing and the keys padded to 16 cost
// more than they save (measured: tests/bench/ANALYSIS.md, "Thresholds in
// the code"). Both give the same bits.
constexpr size_t kSequenceAttentionFrom = 33;

// Floats of scratch AttendSequenceHead needs for `length` positions.
size_t SequenceAttentionScratch(size_t d_head, size_t length);

// For each position i < length: out[i * out_stride + head's columns] =
// softmax(q_i . k_j / sqrt(d_head), over the visible keys j) v_j for `head`.
// Row i's query, key and value start at qkv + i * shape.kv_stride, plus 0,
// key_offset and value_offset floats, plus head * shape.d_head (the fused
// projection's layout). Key j is skipped where mask[j] == 0 (null: all
// visible); no visible key gives zeros. Each query's result does not depend
// on the other queries, nor on masked keys past the last visible one (a
// padded batch gives a sentence's own bits).
void AttendSequenceHead(const AttentionShape& shape, size_t head, const float* qkv, size_t key_offset,
                        size_t value_offset, size_t length, const uint8_t* mask, float* scratch, float* out,
                        size_t out_stride);

}  // namespace edgemt
