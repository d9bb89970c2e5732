#include "ops/embedding.h"

#include <cmath>

#include "ops/dequantize.h"

namespace edgemt {

void FillSinusoidalTable(PositionEncoding layout, size_t num_positions, size_t d, float* table) {
  const size_t half = d / 2;
  // OpenNMT (CTranslate2) and Marian: frequency i is exp(-i ln(10000) /
  // (d/2 - 1)), positions from 1 (OpenNMT) or 0 (Marian); the others:
  // exp(-2i ln(10000) / d), from 0.
  const bool opennmt = layout == PositionEncoding::kSinusoidalOpenNMT;
  const bool marian = layout == PositionEncoding::kSinusoidalMarian;
  // (Their step in float, as CTranslate2 and Marian compute it.)
  const float exponent_step = opennmt || marian
                                  ? -(std::log(10000.0f) / static_cast<float>(half - 1))
                                  : static_cast<float>(-std::log(10000.0) / static_cast<double>(d));
  const size_t first_position = opennmt ? 1 : 0;
  // Each frequency once (the same floats as per element: loading is timed).
  for (size_t i = 0; i < half; ++i) {
    const float frequency = std::exp(static_cast<float>(opennmt || marian ? i : 2 * i) * exponent_step);
    for (size_t p = 0; p < num_positions; ++p) {
      float* row = table + p * d;
      const float angle = static_cast<float>(p + first_position) * frequency;
      if (layout == PositionEncoding::kSinusoidalInterleaved) {
        row[2 * i] = std::sin(angle);
        row[2 * i + 1] = std::cos(angle);
      } else {
        row[i] = std::sin(angle);
        row[half + i] = std::cos(angle);
      }
    }
  }
}

void EmbedToken(const MatrixView& embedding, int32_t token, float scale, const float* positions, float* out) {
  const size_t d = static_cast<size_t>(embedding.cols);
  const size_t offset = static_cast<size_t>(token) * d;
  if (embedding.type != WeightType::kFloat32) {
    // q * s exactly, then scaled and positioned as a float row is.
    DequantizeRow(embedding, static_cast<size_t>(token), out);
    for (size_t i = 0; i < d; ++i) out[i] = out[i] * scale + positions[i];
  } else {
    const float* row = embedding.f32() + offset;
    for (size_t i = 0; i < d; ++i) out[i] = row[i] * scale + positions[i];
  }
}

}  // namespace edgemt
