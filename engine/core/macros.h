#pragma once
// Portability macros shared by host and CUDA code.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define LUCID_HD __host__ __device__
#else
#define LUCID_HD
#endif
#define LUCID_INLINE inline __attribute__((always_inline))
