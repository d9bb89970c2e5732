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
#include <cstring>

namespace edgemt {

// Lanes of partial sums in a dot product or a row sum: a 512-bit register
// of floats. One running sum would be a chain of dependent adds (4 cycles
// each); kDotLanes independent ones vectorize.
constexpr size_t kDotLanes = 16;

// The kDotLanes partial sums added pairwise: the total, in an order that
// does not depend on the instruction set. With GCC's vector types (GCC and
// Clang) the halves are added as vectors. Written as loops over the array,
// GCC 12 took every lane out on its own and added the lanes one by one: a
// third of attention's dot products.
#if defined(__GNUC__)
inline float AddLanes(const float* partial) {
  static_assert(kDotLanes == 16, "AddLanes adds 16 lanes");
  typedef float Lanes8 __attribute__((vector_size(32)));
  typedef float Lanes4 __attribute__((vector_size(16)));
  Lanes8 low8, high8;
  std::memcpy(&low8, partial, sizeof(low8));
  std::memcpy(&high8, partial + 8, sizeof(high8));
  const Lanes8 sum8 = low8 + high8;  // partial[j] + partial[j + 8]
  Lanes4 low4, high4;
  std::memcpy(&low4, &sum8, sizeof(low4));
  std::memcpy(&high4, reinterpret_cast<const char*>(&sum8) + sizeof(low4), sizeof(high4));
  const Lanes4 sum4 = low4 + high4;  // then + [j + 4]
  return (sum4[0] + sum4[2]) + (sum4[1] + sum4[3]);
}
#else
inline float AddLanes(const float* partial) {
  static_assert(kDotLanes == 16, "AddLanes adds 16 lanes");
  float sum8[8], sum4[4];
  for (size_t j = 0; j < 8; ++j) sum8[j] = partial[j] + partial[j + 8];
  for (size_t j = 0; j < 4; ++j) sum4[j] = sum8[j] + sum8[j + 4];
  return (sum4[0] + sum4[2]) + (sum4[1] + sum4[3]);
}
#endif

}  // namespace edgemt
