// Cache-blocked transpose path of the CPU copy kernel (x.mT.contiguous(), permute(...).contiguous()).
// The plain strided loop walks the destination in order and reads the source with a large stride,
// touching a new cache line (and often a new page) for every element; here the 2-D plane spanned by
// the destination's contiguous dim i and the source's contiguous dim j is copied in B x B tiles, so a
// tile's source lines stay in L1 while its destination rows are written whole. Whole tiles of 4-byte
// elements go through the AVX-512 16 x 16 register transpose (vec_rows.h transpose16_b32; 1024x1024
// float32 at 1 thread: 964 -> 522 us). Tiles (times the remaining outer dims) are split over threads.
#include "backend/cpu/copy.h"

#include <algorithm>

#include "backend/cpu/parallel.h"
#include "backend/cpu/vec_rows.h"

namespace lucid::cpu {

namespace {

struct alignas(16) B16 { uint64_t a, b; };

// dst(i, j) = d + i * sizeof(T) + j * dj ; src(i, j) = s + i * si + j * sizeof(T)  (bytes).
// Writes destination rows whole and reads the tile's source lines from L1 (a staging buffer in
// between measured slower: its stores alias the source's 4 KiB-strided loads).
template <typename T>
inline void edge_tile(char* d, const char* s, int64_t ni, int64_t nj, int64_t dj, int64_t si) {
  for (int64_t j = 0; j < nj; ++j) {
    T* dr = reinterpret_cast<T*>(d + j * dj);
    const char* sc = s + j * int64_t(sizeof(T));
    for (int64_t i = 0; i < ni; ++i) dr[i] = *reinterpret_cast<const T*>(sc + i * si);
  }
}

template <typename T, int B>  // the same loop with compile-time bounds, for whole tiles
inline void full_tile(char* d, const char* s, int64_t dj, int64_t si) {
  for (int j = 0; j < B; ++j) {
    T* dr = reinterpret_cast<T*>(d + j * dj);
    const char* sc = s + j * int64_t(sizeof(T));
    for (int i = 0; i < B; ++i) dr[i] = *reinterpret_cast<const T*>(sc + i * si);
  }
}

template <typename T, int B>
void run(const Iter<2>& it, int i, int j) {
  const int64_t ni = it.shape[i], nj = it.shape[j];
  const int64_t dj = it.strides[0][j], si = it.strides[1][i];
  // The remaining (outer) dims, walked by a linear index.
  int no = 0;
  int64_t oshape[kMaxIterDims], ods[kMaxIterDims], oss[kMaxIterDims];
  int64_t outer = 1;
  for (int k = 0; k < it.ndim; ++k) {
    if (k == i || k == j) continue;
    oshape[no] = it.shape[k];
    ods[no] = it.strides[0][k];
    oss[no] = it.strides[1][k];
    outer *= it.shape[k];
    ++no;
  }
  const int64_t ti = (ni + B - 1) / B, tj = (nj + B - 1) / B;
  const int64_t units = outer * ti * tj;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (B * B));
  const auto tile16 = row_kernels().transpose16_b32;
  char* const dbase = it.base[0];
  const char* const sbase = it.base[1];
  constexpr int64_t sz = sizeof(T);
  parallel_for(0, units, grain, [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      int64_t r = u;
      const int64_t bi = r % ti;  // consecutive units step along the destination's contiguous dim
      r /= ti;
      const int64_t bj = r % tj;
      r /= tj;
      char* d = dbase;
      const char* s = sbase;
      for (int k = 0; k < no; ++k) {
        const int64_t x = r % oshape[k];
        r /= oshape[k];
        d += x * ods[k];
        s += x * oss[k];
      }
      const int64_t i0 = bi * B, j0 = bj * B;
      d += i0 * sz + j0 * dj;
      s += i0 * si + j0 * sz;
      const int64_t mi = std::min<int64_t>(B, ni - i0), mj = std::min<int64_t>(B, nj - j0);
      if (mi == B && mj == B) {
        if constexpr (sizeof(T) == 4 && B % 16 == 0) {
          if (tile16) {  // the AVX-512 register transpose, 16 x 16 at a time
            for (int64_t jj = 0; jj < B; jj += 16)
              for (int64_t ii = 0; ii < B; ii += 16) tile16(d + ii * sz + jj * dj, dj, s + ii * si + jj * sz, si);
            continue;
          }
        }
        full_tile<T, B>(d, s, dj, si);
      } else {
        edge_tile<T>(d, s, mi, mj, dj, si);
      }
    }
  });
}

}  // namespace

bool copy_transposed(const Iter<2>& it, int64_t isz) {
  if (it.contiguous || it.ndim < 2) return false;
  int i = -1, j = -1;
  for (int k = 0; k < it.ndim; ++k) {
    if (i < 0 && it.strides[0][k] == isz) i = k;
    if (j < 0 && it.strides[1][k] == isz) j = k;
  }
  if (i < 0 || j < 0 || i == j) return false;
  // A transpose with a very short side (e.g. 2 channels) is no better tiled than run by run.
  if (it.shape[i] < 4 || it.shape[j] < 4) return false;
  switch (isz) {
    case 1: run<uint8_t, 32>(it, i, j); return true;
    case 2: run<uint16_t, 32>(it, i, j); return true;
    case 4: run<uint32_t, 32>(it, i, j); return true;
    case 8: run<uint64_t, 16>(it, i, j); return true;
    case 16: run<B16, 8>(it, i, j); return true;
    default: return false;
  }
}

}  // namespace lucid::cpu
