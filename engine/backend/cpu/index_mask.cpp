// CPU kernels that select by a mask or a predicate: count_nonzero, nonzero, masked_select, and the
// index range check. Selections run in two passes over one contiguous block per thread (count,
// then write at the offset the blocks before leave), and the write loops are branchless: each
// element is stored at the output cursor unconditionally and the cursor moves only past selected
// ones, so a random mask costs no branch mispredictions. The cursor never passes the block's end:
// near it the loops go back to testing each element.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backend/common/iter.h"
#include "backend/cpu/index_util.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/index_fused.h"
#include "backend/kernels/indexing.h"

namespace lucid::cpu {

namespace {

constexpr int64_t kGrain = 32768;  // elements per thread below which a selection runs on one thread
constexpr int64_t kBlock = 256;    // elements written branchlessly between two checks of the cursor

template <typename T>
constexpr bool is_cplx = std::is_same_v<T, c64> || std::is_same_v<T, c128>;
template <typename T>
constexpr bool is_low = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename T>
inline bool nonzero_value(const char* p) {
  if constexpr (sizeof(T) == 1) {
    return *reinterpret_cast<const uint8_t*>(p) != 0;
  } else {
    const T v = *reinterpret_cast<const T*>(p);
    if constexpr (is_cplx<T>) return v.re != 0 || v.im != 0;
    else if constexpr (is_low<T>) return float(v) != 0.f;
    else return v != T(0);
  }
}

// Number of nonzero elements at linear positions [b, e) of it's single operand.
template <typename T>
int64_t count_range(const Iter<1>& it, int64_t b, int64_t e) {
  int64_t total = 0;
  it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
    int64_t c = 0;
    if constexpr (sizeof(T) == 1) {
      if (s[0] == 1) {
        const uint8_t* q = reinterpret_cast<const uint8_t*>(p[0]);
        for (int64_t i = 0; i < n; ++i) c += q[i] != 0;
        total += c;
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) c += nonzero_value<T>(p[0] + i * s[0]);
    total += c;
  });
  return total;
}

// Splits [0, n) into one contiguous block per thread; each block counts its selected elements, then
// writes them at the offset left by the blocks before it (one parallel region, one barrier).
// write(b, e, w, end) writes the selections of [b, e) at positions [w, end) and never at `end`.
// One thread (small work, set_num_threads(1), a nested call) writes [0, n) at [0, cap).
template <typename Count, typename Write>
void count_then_write(int64_t n, int64_t cap, Count&& count, Write&& write) {
#ifdef _OPENMP
  const int nt = get_num_threads();
  if (nt > 1 && n > kGrain && !in_parallel_region()) {
    const int64_t chunks = std::min<int64_t>(nt, (n + kGrain - 1) / kGrain);
    std::vector<int64_t> cnt(size_t(chunks), 0);
#pragma omp parallel num_threads(int(chunks))
    {
      const int64_t nth = omp_get_num_threads(), tid = omp_get_thread_num();
      const int64_t per = (n + nth - 1) / nth;
      const int64_t b = std::min(n, tid * per), e = std::min(n, b + per);
      cnt[size_t(tid)] = count(b, e);
#pragma omp barrier
      int64_t w = 0;
      for (int64_t t = 0; t < tid; ++t) w += cnt[size_t(t)];
      const int64_t end = std::min(cap, w + cnt[size_t(tid)]);
      if (w < end) write(b, e, w, end);
    }
    return;
  }
#endif
  write(0, n, 0, cap);
}

// ---- masked_select

template <typename U>
struct SelectCursor {
  U* out;
  int64_t w, end;

  // Selects from n elements of x (stride sx bytes) where m (stride sm bytes) is set.
  void run(const char* x, int64_t sx, const char* m, int64_t sm, int64_t n) {
    for (int64_t i = 0; i < n && w < end; i += kBlock) {
      const int64_t blk = std::min(kBlock, n - i);
      const char* xb = x + i * sx;
      const char* mb = m + i * sm;
      if (w + blk <= end) {  // even if all are set, the cursor stays before `end`
        if (sx == int64_t(sizeof(U)) && sm == 1) {
          const U* xp = reinterpret_cast<const U*>(xb);
          const uint8_t* mp = reinterpret_cast<const uint8_t*>(mb);
          for (int64_t k = 0; k < blk; ++k) {
            out[w] = xp[k];
            w += mp[k] != 0;
          }
        } else {
          for (int64_t k = 0; k < blk; ++k) {
            out[w] = *reinterpret_cast<const U*>(xb + k * sx);
            w += *reinterpret_cast<const uint8_t*>(mb + k * sm) != 0;
          }
        }
      } else {
        for (int64_t k = 0; k < blk && w < end; ++k)
          if (*reinterpret_cast<const uint8_t*>(mb + k * sm) != 0) out[w++] = *reinterpret_cast<const U*>(xb + k * sx);
      }
    }
  }
};

template <typename U>
void masked_select_w(const TensorImpl& out, const TensorImpl& in, const TensorImpl& mask) {
  auto it = Iter<2>::make({&in, &mask});
  auto mit = Iter<1>::make({&mask});  // same shape as in: the same linear order
  U* o = static_cast<U*>(out.data_ptr());
  count_then_write(
      it.numel, out.numel(), [&](int64_t b, int64_t e) { return count_range<uint8_t>(mit, b, e); },
      [&](int64_t b, int64_t e, int64_t w, int64_t end) {
        SelectCursor<U> c{o, w, end};
        it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) { c.run(p[0], s[0], p[1], s[1], n); });
      });
}

void masked_select(const TensorImpl& out, const TensorImpl& in, const TensorImpl& mask) {
  if (out.numel() == 0 || in.numel() == 0) return;
  dispatch_width(in.element_size(), "masked_select", [&]<typename U>() { masked_select_w<U>(out, in, mask); });
}

// ---- nonzero

// Walks linear positions [b, e) of `in` (row-major over its shape, rank >= 1) in runs along the last
// dim: f(coord, p, stride, j, n) for n elements from p (stride bytes apart) at last-dim coordinates
// j.., with coord holding the other coordinates.
template <typename F>
void walk_rows(const TensorImpl& in, int64_t b, int64_t e, F&& f) {
  const int64_t nd = in.dim(), inner = in.shape()[size_t(nd - 1)], isz = in.element_size();
  const int64_t step = in.strides()[size_t(nd - 1)] * isz;
  std::vector<int64_t> coord(size_t(nd), 0);
  int64_t rem = b / inner, off = 0;
  for (int64_t d = nd - 2; d >= 0; --d) {
    coord[size_t(d)] = rem % in.shape()[size_t(d)];
    rem /= in.shape()[size_t(d)];
    off += coord[size_t(d)] * in.strides()[size_t(d)];
  }
  const char* base = static_cast<const char*>(in.data_ptr());
  int64_t j = b % inner;
  for (int64_t pos = b; pos < e;) {
    const int64_t n = std::min(inner - j, e - pos);
    f(coord.data(), base + off * isz + j * step, step, j, n);
    pos += n;
    j = 0;
    for (int64_t d = nd - 2; d >= 0; --d) {
      ++coord[size_t(d)];
      off += in.strides()[size_t(d)];
      if (coord[size_t(d)] < in.shape()[size_t(d)]) break;
      off -= in.shape()[size_t(d)] * in.strides()[size_t(d)];
      coord[size_t(d)] = 0;
    }
  }
}

// Writes the coordinates of the nonzero elements of one run at rows [w, end) of o ([*, nd]).
template <typename T, int ND>
struct NonzeroCursor {
  int64_t* o;
  int64_t nd, w, end;

  inline void put(const int64_t* coord, int64_t j) {
    int64_t* r = o + w * (ND > 0 ? ND : nd);
    if constexpr (ND == 1) {
      r[0] = j;
    } else if constexpr (ND == 2) {
      r[0] = coord[0];
      r[1] = j;
    } else {
      for (int64_t d = 0; d + 1 < nd; ++d) r[d] = coord[d];
      r[nd - 1] = j;
    }
  }

  void run(const int64_t* coord, const char* p, int64_t step, int64_t j0, int64_t n) {
    for (int64_t i = 0; i < n && w < end; i += kBlock) {
      const int64_t blk = std::min(kBlock, n - i);
      const char* pb = p + i * step;
      if (w + blk <= end) {
        for (int64_t k = 0; k < blk; ++k) {
          put(coord, j0 + i + k);
          w += nonzero_value<T>(pb + k * step);
        }
      } else {
        for (int64_t k = 0; k < blk && w < end; ++k)
          if (nonzero_value<T>(pb + k * step)) {
            put(coord, j0 + i + k);
            ++w;
          }
      }
    }
  }
};

template <typename T, int ND>
void nonzero_t(const TensorImpl& out, const TensorImpl& in) {
  auto it = Iter<1>::make({&in});
  int64_t* o = out.data<int64_t>();
  const int64_t nd = in.dim();
  count_then_write(
      in.numel(), out.shape()[0], [&](int64_t b, int64_t e) { return count_range<T>(it, b, e); },
      [&](int64_t b, int64_t e, int64_t w, int64_t end) {
        NonzeroCursor<T, ND> c{o, nd, w, end};
        walk_rows(in, b, e, [&](const int64_t* coord, const char* p, int64_t step, int64_t j, int64_t n) {
          c.run(coord, p, step, j, n);
        });
      });
}

void nonzero(const TensorImpl& out, const TensorImpl& in) {
  if (in.numel() == 0 || out.numel() == 0) return;  // also a 0-d input: out is [n, 0]
  dispatch_dtype(in.dtype(), [&]<typename T>() {
    using P = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
    if (in.dim() == 1) nonzero_t<P, 1>(out, in);
    else if (in.dim() == 2) nonzero_t<P, 2>(out, in);
    else nonzero_t<P, 0>(out, in);
  });
}

int64_t count_nonzero(const TensorImpl& in) {
  if (in.numel() == 0) return 0;
  auto it = Iter<1>::make({&in});
  return dispatch_dtype(in.dtype(), [&]<typename T>() {
    using P = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
    std::atomic<int64_t> total{0};
    parallel_for(0, it.numel, kGrain, [&](int64_t b, int64_t e) { total += count_range<P>(it, b, e); });
    return total.load();
  });
}

// ---- index range check

// True when some value of [b, e) lies outside [lo, hi) (lo <= 0 <= hi): (k - lo) | (hi - 1 - k) is
// negative exactly then, with no overflow for such bounds; one OR per element, vectorised.
bool any_out_of_range(const Iter<1>& it, int64_t b, int64_t e, int64_t lo, int64_t hi) {
  uint64_t acc = 0;
  const uint64_t ulo = uint64_t(lo), uhi = uint64_t(hi - 1);
  it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
    uint64_t a = 0;
    if (s[0] == int64_t(sizeof(int64_t))) {
      const uint64_t* q = reinterpret_cast<const uint64_t*>(p[0]);
      for (int64_t i = 0; i < n; ++i) a |= (q[i] - ulo) | (uhi - q[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t k = *reinterpret_cast<const uint64_t*>(p[0] + i * s[0]);
        a |= (k - ulo) | (uhi - k);
      }
    }
    acc |= a;
  });
  return (acc >> 63) != 0;
}

bool find_out_of_range(const TensorImpl& idx, int64_t lo, int64_t hi, int64_t* bad) {
  if (idx.numel() == 0) return false;
  auto it = Iter<1>::make({&idx});
  if (lo <= 0 && hi >= 0) {  // the usual bounds: a vectorised test first, the scan only on failure
    std::atomic<bool> any{false};
    parallel_for(0, it.numel, kGrain, [&](int64_t b, int64_t e) {
      if (any_out_of_range(it, b, e, lo, hi)) any = true;
    });
    if (!any) return false;
  }
  bool found = false;  // the first bad value in row-major order
  it.for_range(0, it.numel, [&](char** p, const int64_t* s, int64_t n) {
    if (found) return;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = *reinterpret_cast<const int64_t*>(p[0] + i * s[0]);
      if (k < lo || k >= hi) {
        found = true;
        *bad = k;
        return;
      }
    }
  });
  return found;
}

}  // namespace

LUCID_REGISTER_KERNEL(masked_select_kernel, CPU, &masked_select)
LUCID_REGISTER_KERNEL(count_nonzero_kernel, CPU, &count_nonzero)
LUCID_REGISTER_KERNEL(nonzero_kernel, CPU, &nonzero)
LUCID_REGISTER_KERNEL(find_out_of_range_kernel, CPU, &find_out_of_range)

}  // namespace lucid::cpu
