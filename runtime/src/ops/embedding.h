// Token embedding lookup, scaling and position encodings.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgemt/model_config.h"
#include "model_file/model_weights.h"

namespace edgemt {

// Fills table[p, :] for p < num_positions with the sinusoidal encoding of
// `layout` (any but kLearned), in float32 as the PyTorch reference computes it.
void FillSinusoidalTable(PositionEncoding layout, size_t num_positions, size_t d, float* table);

// out[:] = embedding[token, :] * scale + positions[:]  (one row of d floats).
void EmbedToken(const MatrixView& embedding, int32_t token, float scale, const float* positions, float* out);

}  // namespace edgemt
