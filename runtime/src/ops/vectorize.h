// Our hand-written kernels are plain loops that the compiler vectorizes.
// On x86-64 each is also compiled for AVX2 and AVX-512 and the CPU picks the
// widest at load time (GCC/Clang function multiversioning), so one binary
// runs everywhere. The AVX-512 version is x86-64-v4 (F, BW, DQ, VL, as
// every AVX-512 CPU since Skylake-X has): without BW, 8- and 16-bit integer
// loops (the shortlist's int8 and int4 products) stay 256 bits wide. Loops
// keep a fixed order of float operations (explicit partial sums), but GCC
// fuses a * b + c into one FMA wherever the instruction set has it (C++'s
// default is -ffp-contract=fast, even in ISO mode): the AVX-512 version
// (x86-64-v4 has FMA) and ARM's round once where the AVX2 and baseline
// versions round twice, so float results can differ in the last bits
// between them. Integer loops give the same bits everywhere.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EDGEMT_VECTORIZED __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define EDGEMT_VECTORIZED
#endif

#include <cstddef>

namespace edgemt {

// Lanes of partial sums in a dot product or a row sum: a 512-bit register
// of floats. One running sum would be a chain of dependent adds (4 cycles
// each); kDotLanes independent ones vectorize.
constexpr size_t kDotLanes = 16;

// The kDotLanes partial sums added pairwise: the total, in an order that
// does not depend on the instruction set. Each level is a loop of its own
// with a constant count, so that it unrolls into vector adds (one loop over
// the widths stayed a loop, through memory: a quarter of attention's time).
inline float AddLanes(float* partial) {
  static_assert(kDotLanes == 16, "AddLanes adds 16 lanes");
  for (size_t j = 0; j < 8; ++j) partial[j] += partial[j + 8];
  for (size_t j = 0; j < 4; ++j) partial[j] += partial[j + 4];
  for (size_t j = 0; j < 2; ++j) partial[j] += partial[j + 2];
  return partial[0] + partial[1];
}

}  // namespace edgemt
