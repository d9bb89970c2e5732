// Our hand-written kernels are plain loops that the compiler vectorizes.
// On x86-64 each is also compiled for AVX2 and AVX-512 and the CPU picks the
// widest at load time (GCC/Clang function multiversioning), so one binary
// runs everywhere. Loops keep a fixed order of float operations (explicit
// partial sums, no FMA contraction in ISO C++ mode), so every version gives
// the same bits.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EDGEMT_VECTORIZED __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define EDGEMT_VECTORIZED
#endif

#include <cstddef>

namespace edgemt {

// Lanes of partial sums in a dot product: a 512-bit register of floats.
constexpr size_t kDotLanes = 16;

}  // namespace edgemt
