#pragma once
// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"), shared by the
// CPU and CUDA random kernels so both draw the same stream.
#include <cstdint>

#include "core/macros.h"

namespace lucid {

struct Philox4 { uint32_t v[4]; };

LUCID_HD inline uint32_t philox_mulhi(uint32_t a, uint32_t b, uint32_t* lo) {
  const uint64_t p = uint64_t(a) * uint64_t(b);
  *lo = uint32_t(p);
  return uint32_t(p >> 32);
}

LUCID_HD inline Philox4 philox4x32(uint64_t counter, uint64_t seed) {
  uint32_t c0 = uint32_t(counter), c1 = uint32_t(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    uint32_t lo0, lo1;
    const uint32_t hi0 = philox_mulhi(0xD2511F53u, c0, &lo0);
    const uint32_t hi1 = philox_mulhi(0xCD9E8D57u, c2, &lo1);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0; c1 = n1; c2 = n2; c3 = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return Philox4{{c0, c1, c2, c3}};
}

// Uniform in [0, 1) with 24 bits (float) or 53 bits (double, from two lanes).
LUCID_HD inline float philox_u01f(uint32_t x) { return float(x >> 8) * (1.0f / 16777216.0f); }
LUCID_HD inline double philox_u01d(uint32_t hi, uint32_t lo) {
  const uint64_t v = (uint64_t(hi) << 32 | lo) >> 11;
  return double(v) * (1.0 / 9007199254740992.0);
}

// Element i of a draw reads block (offset + i): two 53-bit uniforms, independent of launch shape.
LUCID_HD inline void philox_uniform2(uint64_t seed, uint64_t offset, uint64_t i, double* u1, double* u2) {
  const Philox4 r = philox4x32(offset + i, seed);
  *u1 = philox_u01d(r.v[0], r.v[1]);
  *u2 = philox_u01d(r.v[2], r.v[3]);
}

}  // namespace lucid
