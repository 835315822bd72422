// CPU indexing kernels (mirrors a future cuda/indexing.cu): reads and writes through int64 indices
// on restrided views, masked fill (selections and the range check: index_mask.cpp).
#include <algorithm>
#include <cmath>
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

template <typename T>
constexpr bool is_cplx = std::is_same_v<T, c64> || std::is_same_v<T, c128>;
template <typename T>
constexpr bool is_low = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <ScatterOp OP, typename T>
inline void apply(T& d, T s) {
  if constexpr (OP == ScatterOp::Assign) {
    d = s;
  } else if constexpr (std::is_same_v<T, bool>) {
    if constexpr (OP == ScatterOp::Add || OP == ScatterOp::Max) d = d || s;
    else d = d && s;
  } else if constexpr (is_cplx<T>) {
    if constexpr (OP == ScatterOp::Add) d = d + s;
    else if constexpr (OP == ScatterOp::Mul) d = d * s;
    else d = s;  // max/min of complex values are refused by the op layer
  } else if constexpr (is_low<T>) {
    const float a = float(d), b = float(s);
    if constexpr (OP == ScatterOp::Add) d = T(a + b);
    else if constexpr (OP == ScatterOp::Mul) d = T(a * b);
    else if constexpr (OP == ScatterOp::Max) d = (b != b || b > a) ? s : d;
    else d = (b != b || b < a) ? s : d;
  } else {
    if constexpr (OP == ScatterOp::Add) d = T(d + s);
    else if constexpr (OP == ScatterOp::Mul) d = T(d * s);
    else if constexpr (OP == ScatterOp::Max) d = (s != s || s > d) ? s : d;  // NaN propagates
    else d = (s != s || s < d) ? s : d;
  }
}

void index_read(const TensorImpl& out, const TensorImpl& src, const TensorImpl& idx, int64_t mult) {
  if (out.numel() == 0) return;
  auto it = Iter<3>::make({&out, &src, &idx});
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    parallel_for(0, it.numel, kGrainSize / 4, [&](int64_t b, int64_t e) {
      it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
        char* o = p[0];
        const char* sp = p[1];
        const char* ip = p[2];
        if (s[0] == sizeof(T) && s[1] == sizeof(T) && s[2] == 0) {  // one source row
          const T* a = reinterpret_cast<const T*>(sp + *reinterpret_cast<const int64_t*>(ip) * mult);
          T* op = reinterpret_cast<T*>(o);
          for (int64_t i = 0; i < n; ++i) op[i] = a[i];
          return;
        }
        if (s[0] == sizeof(T) && s[1] == 0 && s[2] == sizeof(int64_t) && mult == sizeof(T)) {  // along a dense row
          T* op = reinterpret_cast<T*>(o);
          const T* row = reinterpret_cast<const T*>(sp);
          const int64_t* ix = reinterpret_cast<const int64_t*>(ip);
          for (int64_t i = 0; i < n; ++i) op[i] = row[ix[i]];
          return;
        }
        if (s[0] == sizeof(T) && s[2] == sizeof(int64_t)) {
          T* op = reinterpret_cast<T*>(o);
          const int64_t* ix = reinterpret_cast<const int64_t*>(ip);
          for (int64_t i = 0; i < n; ++i) op[i] = *reinterpret_cast<const T*>(sp + i * s[1] + ix[i] * mult);
          return;
        }
        for (int64_t i = 0; i < n; ++i) {
          const int64_t k = *reinterpret_cast<const int64_t*>(ip + i * s[2]);
          *reinterpret_cast<T*>(o + i * s[0]) = *reinterpret_cast<const T*>(sp + i * s[1] + k * mult);
        }
      });
    });
  });
}

template <ScatterOp OP>
void index_write_op(const TensorImpl& dst, const TensorImpl& src, const TensorImpl& idx, int64_t mult, int64_t split) {
  dispatch_dtype(dst.dtype(), [&]<typename T>() {
    // A run along one target row (the index constant, dst dense): elements [k0, k1) as a vector loop.
    auto row_run = [&](char** p, const int64_t* st, int64_t k0, int64_t k1) {
      T* o = reinterpret_cast<T*>(p[0] + *reinterpret_cast<const int64_t*>(p[2]) * mult);
      if (st[1] == sizeof(T)) {
        const T* a = reinterpret_cast<const T*>(p[1]);
        for (int64_t k = k0; k < k1; ++k) apply<OP, T>(o[k], a[k]);
      } else if (st[1] == 0) {  // one value (x[idx] = v, index_fill)
        const T a = *reinterpret_cast<const T*>(p[1]);
        for (int64_t k = k0; k < k1; ++k) apply<OP, T>(o[k], a);
      } else {
        for (int64_t k = k0; k < k1; ++k) apply<OP, T>(o[k], *reinterpret_cast<const T*>(p[1] + k * st[1]));
      }
    };
    auto element = [&](char** p, const int64_t* st, int64_t k) -> T& {
      return *reinterpret_cast<T*>(p[0] + k * st[0] + *reinterpret_cast<const int64_t*>(p[2] + k * st[2]) * mult);
    };
    auto serial = [&](const TensorImpl& d, const TensorImpl& s, const TensorImpl& i) {
      auto it = Iter<3>::make({&d, &s, &i});
      it.for_range(0, it.numel, [&](char** p, const int64_t* st, int64_t n) {
        if (st[2] == 0 && st[0] == sizeof(T)) return row_run(p, st, 0, n);
        for (int64_t k = 0; k < n; ++k) apply<OP, T>(element(p, st, k), *reinterpret_cast<const T*>(p[1] + k * st[1]));
      });
    };
    const int nt = get_num_threads();
    if (nt == 1 || dst.numel() <= kGrainSize / 4 || in_parallel_region()) {
      serial(dst, src, idx);
      return;
    }
    auto it = Iter<3>::make({&dst, &src, &idx});
#ifdef _OPENMP
    if (it.strides[2][0] == 0 && it.strides[0][0] == int64_t(sizeof(T)) && it.shape[0] >= 16) {
      // Runs along target rows: each thread owns one contiguous stretch of the destination's memory
      // (the stretches a parallel copy of it leaves in each core's cache) and walks every run in
      // order, writing only its own elements: no races, and duplicates resolve as on one thread.
      char* const lo = static_cast<char*>(dst.storage()->data());
      const int64_t span = dst.storage()->nbytes(), sz = int64_t(sizeof(T));
#pragma omp parallel num_threads(nt)
      {
        const int64_t nth = omp_get_num_threads(), tid = omp_get_thread_num();
        const char* b = lo + ((span * tid / nth) & ~int64_t(63));
        const char* e = tid + 1 == nth ? lo + span : lo + ((span * (tid + 1) / nth) & ~int64_t(63));
        it.for_range(0, it.numel, [&](char** p, const int64_t* st, int64_t n) {
          if (st[2] == 0 && st[0] == sz) {
            const char* o = p[0] + *reinterpret_cast<const int64_t*>(p[2]) * mult;
            const int64_t k0 = o >= b ? 0 : std::min<int64_t>(n, (b - o + sz - 1) / sz);
            const int64_t k1 = o >= e ? 0 : std::min<int64_t>(n, (e - o + sz - 1) / sz);
            if (k0 < k1) row_run(p, st, k0, k1);
            return;
          }
          for (int64_t k = 0; k < n; ++k) {
            T& d = element(p, st, k);
            const char* a = reinterpret_cast<const char*>(&d);
            if (a >= b && a < e) apply<OP, T>(d, *reinterpret_cast<const T*>(p[1] + k * st[1]));
          }
        });
      }
      return;
    }
#endif
    const int64_t parts = split >= 0 ? dst.shape()[size_t(split)] : 1;
    if (parts < 2) {
      serial(dst, src, idx);
      return;
    }
    const int64_t per = dst.numel() / parts;
    parallel_for(0, parts, std::max<int64_t>(1, kGrainSize / 4 / std::max<int64_t>(per, 1)), [&](int64_t b, int64_t e) {
      auto part = [&](const TensorImpl& t) {
        Shape sh = t.shape();
        sh[size_t(split)] = e - b;
        return t.as_view(sh, t.strides(), t.storage_offset() + b * t.strides()[size_t(split)]);
      };
      Tensor d = part(dst), s = part(src), i = part(idx);
      serial(*d, *s, *i);
    });
  });
}

void index_write(ScatterOp op, const TensorImpl& dst, const TensorImpl& src, const TensorImpl& idx, int64_t mult,
                 int64_t split) {
  if (dst.numel() == 0) return;
  switch (op) {
    case ScatterOp::Assign: return index_write_op<ScatterOp::Assign>(dst, src, idx, mult, split);
    case ScatterOp::Add: return index_write_op<ScatterOp::Add>(dst, src, idx, mult, split);
    case ScatterOp::Mul: return index_write_op<ScatterOp::Mul>(dst, src, idx, mult, split);
    case ScatterOp::Max: return index_write_op<ScatterOp::Max>(dst, src, idx, mult, split);
    case ScatterOp::Min: return index_write_op<ScatterOp::Min>(dst, src, idx, mult, split);
  }
}

void index_add_rows(const TensorImpl& out, const TensorImpl& self, const TensorImpl& idx, const TensorImpl& src) {
  const int64_t n = self.dim() ? self.shape()[0] : 1;
  if (out.numel() == 0) return;
  const int64_t row = out.numel() / n, k = src.dim() ? src.shape()[0] : 1;
  const int64_t* ix = idx.data<int64_t>();
  const int64_t istep = idx.dim() ? idx.strides()[0] : 0;
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    T* o = out.data<T>();
    const T* s = self.data<T>();
    const T* a = src.data<T>();
    parallel_for(0, n, std::max<int64_t>(1, kGrainSize / row), [&](int64_t b, int64_t e) {
      std::memcpy(static_cast<void*>(o + b * row), s + b * row, size_t((e - b) * row) * sizeof(T));
      for (int64_t i = 0; i < k; ++i) {
        const int64_t r = ix[i * istep];
        if (r < b || r >= e) continue;  // another thread's row
        T* orow = o + r * row;
        const T* arow = a + i * row;
        for (int64_t j = 0; j < row; ++j) apply<ScatterOp::Add, T>(orow[j], arow[j]);
      }
    });
  });
}

void masked_fill(const TensorImpl& out, const TensorImpl& mask, const Scalar& value) {
  if (out.numel() == 0) return;
  auto it = Iter<2>::make({&out, &mask});
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    const T v = value.to<T>();
    parallel_for(0, it.numel, kGrainSize, [&](int64_t b, int64_t e) {
      it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
        if constexpr (sizeof(T) <= 8) {
          if (s[0] == sizeof(T) && s[1] == 1) {  // a bitwise blend, not a branch: a random mask mispredicts
            using U = Word<sizeof(T)>;
            U bits;
            std::memcpy(&bits, &v, sizeof(T));
            U* o = reinterpret_cast<U*>(p[0]);
            const uint8_t* m = reinterpret_cast<const uint8_t*>(p[1]);
            for (int64_t i = 0; i < n; ++i) {
              const U sel = U(0) - U(m[i] != 0);
              o[i] = U((o[i] & U(~sel)) | (bits & sel));
            }
            return;
          }
        }
        for (int64_t i = 0; i < n; ++i)
          if (*reinterpret_cast<const bool*>(p[1] + i * s[1])) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
      });
    });
  });
}

void divide_by_count(const TensorImpl& out, const TensorImpl& count) {
  if (out.numel() == 0) return;
  auto it = Iter<2>::make({&out, &count});
  dispatch_dtype(out.dtype(), [&]<typename T>() {
    it.for_range(0, it.numel, [&](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = std::max<int64_t>(1, *reinterpret_cast<const int64_t*>(p[1] + i * s[1]));
        T& d = *reinterpret_cast<T*>(p[0] + i * s[0]);
        if constexpr (std::is_same_v<T, bool>) d = d;
        else if constexpr (is_cplx<T>) d = d / T(decltype(d.re)(c));
        else if constexpr (is_low<T>) d = T(float(d) / float(c));
        else if constexpr (std::is_floating_point_v<T>) d = T(d / T(c));
        else {
          const int64_t v = int64_t(d);
          int64_t q = v / c;
          if ((v % c != 0) && ((v < 0) != (c < 0))) --q;
          d = T(q);
        }
      }
    });
  });
}

void index_offsets(const TensorImpl& off, const TensorImpl& idx, int64_t size, int64_t stride) {
  if (off.numel() == 0) return;
  auto it = Iter<2>::make({&off, &idx});
  parallel_for(0, it.numel, kGrainSize, [&](int64_t b, int64_t e) {
    it.for_range(b, e, [&](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
        *reinterpret_cast<int64_t*>(p[0] + i * s[0]) += (k < 0 ? k + size : k) * stride;
      }
    });
  });
}

}  // namespace

LUCID_REGISTER_KERNEL(index_read_kernel, CPU, &index_read)
LUCID_REGISTER_KERNEL(index_write_kernel, CPU, &index_write)
LUCID_REGISTER_KERNEL(masked_fill_kernel, CPU, &masked_fill)
LUCID_REGISTER_KERNEL(index_add_rows_kernel, CPU, &index_add_rows)
LUCID_REGISTER_KERNEL(divide_by_count_kernel, CPU, &divide_by_count)
LUCID_REGISTER_KERNEL(index_offsets_kernel, CPU, &index_offsets)

}  // namespace lucid::cpu
