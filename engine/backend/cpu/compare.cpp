// CPU kernels of the binary family with a bool result (comparisons, logical ops, isclose) and
// where (backend/kernels/compare.h). Contiguous runs are plain loops the compiler vectorises.
#include <cmath>
#include <cstring>

#include "backend/common/iter.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/parallel.h"
#include "backend/kernels/compare.h"

namespace lucid::cpu {

namespace {

template <int N, typename F>
void run(const Iter<N>& it, F&& f) {
  parallel_for(0, it.numel, kGrainSize, [&](int64_t b, int64_t e) { it.for_range(b, e, f); });
}

template <typename T>
constexpr bool is_cplx = std::is_same_v<T, c64> || std::is_same_v<T, c128>;

template <typename T>
inline bool truth(T v) {
  if constexpr (is_cplx<T>) return v.re != 0 || v.im != 0;
  else return typename OpMath<T>::type(v) != typename OpMath<T>::type(0);
}

template <CompareOp Op, typename T>
inline bool apply_compare(T x, T y) {
  if constexpr (Op == CompareOp::LogicalAnd) return truth(x) && truth(y);
  else if constexpr (Op == CompareOp::LogicalOr) return truth(x) || truth(y);
  else if constexpr (Op == CompareOp::LogicalXor) return truth(x) != truth(y);
  else if constexpr (is_cplx<T>) {
    if constexpr (Op == CompareOp::Eq) return x == y;
    else return x != y;  // Ne (the op refuses ordering on complex)
  } else {
    using M = typename OpMath<T>::type;
    const M a = M(x), b = M(y);
    if constexpr (Op == CompareOp::Eq) return a == b;
    else if constexpr (Op == CompareOp::Ne) return a != b;
    else if constexpr (Op == CompareOp::Lt) return a < b;
    else if constexpr (Op == CompareOp::Le) return a <= b;
    else if constexpr (Op == CompareOp::Gt) return a > b;
    else return a >= b;
  }
}

template <CompareOp Op, typename T>
void compare_loop(char** p, const int64_t* s, int64_t n) {
  constexpr int64_t sz = sizeof(T);
  bool* __restrict__ o = reinterpret_cast<bool*>(p[0]);
  if (s[0] == 1 && s[1] == sz && s[2] == sz) {
    const T* __restrict__ a = reinterpret_cast<const T*>(p[1]);
    const T* __restrict__ b = reinterpret_cast<const T*>(p[2]);
    for (int64_t i = 0; i < n; ++i) o[i] = apply_compare<Op, T>(a[i], b[i]);
  } else if (s[0] == 1 && s[1] == sz && s[2] == 0) {
    const T* __restrict__ a = reinterpret_cast<const T*>(p[1]);
    const T bv = *reinterpret_cast<const T*>(p[2]);
    for (int64_t i = 0; i < n; ++i) o[i] = apply_compare<Op, T>(a[i], bv);
  } else if (s[0] == 1 && s[1] == 0 && s[2] == sz) {
    const T av = *reinterpret_cast<const T*>(p[1]);
    const T* __restrict__ b = reinterpret_cast<const T*>(p[2]);
    for (int64_t i = 0; i < n; ++i) o[i] = apply_compare<Op, T>(av, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<bool*>(p[0] + i * s[0]) = apply_compare<Op, T>(
          *reinterpret_cast<const T*>(p[1] + i * s[1]), *reinterpret_cast<const T*>(p[2] + i * s[2]));
  }
}

using CompareLoop = void (*)(char**, const int64_t*, int64_t);

template <typename T>
CompareLoop pick_compare(CompareOp op) {
  switch (op) {
    case CompareOp::Eq: return &compare_loop<CompareOp::Eq, T>;
    case CompareOp::Ne: return &compare_loop<CompareOp::Ne, T>;
    case CompareOp::Lt: return is_cplx<T> ? nullptr : &compare_loop<CompareOp::Lt, T>;
    case CompareOp::Le: return is_cplx<T> ? nullptr : &compare_loop<CompareOp::Le, T>;
    case CompareOp::Gt: return is_cplx<T> ? nullptr : &compare_loop<CompareOp::Gt, T>;
    case CompareOp::Ge: return is_cplx<T> ? nullptr : &compare_loop<CompareOp::Ge, T>;
    case CompareOp::LogicalAnd: return &compare_loop<CompareOp::LogicalAnd, T>;
    case CompareOp::LogicalOr: return &compare_loop<CompareOp::LogicalOr, T>;
    case CompareOp::LogicalXor: return &compare_loop<CompareOp::LogicalXor, T>;
  }
  return nullptr;
}

void compare(CompareOp op, const TensorImpl& out, const TensorImpl& a, const TensorImpl& b) {
  if (out.numel() == 0) return;
  auto it = Iter<3>::make({&out, &a, &b});
  const CompareLoop loop = dispatch_dtype(a.dtype(), [&]<typename T>() { return pick_compare<T>(op); });
  LUCID_CHECK(loop, NotImplemented, "[compare] dtype " << dtype_name(a.dtype()) << " is not supported by this op");
  run(it, [&](char** p, const int64_t* s, int64_t n) { loop(p, s, n); });
}

template <typename T>
inline double mag(T v) {
  if constexpr (is_cplx<T>) return std::hypot(double(v.re), double(v.im));
  else return std::fabs(double(typename OpMath<T>::type(v)));
}

// PyTorch's isclose: equal values (infinities included), both NaN with equal_nan, or a finite
// difference within atol + rtol * |b| (computed in double).
template <typename T>
inline bool close(T x, T y, double rtol, double atol, bool equal_nan) {
  if constexpr (std::is_same_v<T, bool>) {
    return x == y || std::fabs(double(x) - double(y)) <= atol + rtol * double(y);
  } else if constexpr (is_cplx<T>) {
    if (x == y) return true;
    const bool nx = x.re != x.re || x.im != x.im, ny = y.re != y.re || y.im != y.im;
    if (nx || ny) return equal_nan && nx && ny;
    const double d = std::hypot(double(x.re) - double(y.re), double(x.im) - double(y.im));
    return std::isfinite(d) && d <= atol + rtol * mag(y);
  } else {
    using M = typename OpMath<T>::type;
    const M a = M(x), b = M(y);
    if (a == b) return true;
    if constexpr (std::is_floating_point_v<M>) {
      if (a != a || b != b) return equal_nan && a != a && b != b;
    }
    double d;
    if constexpr (std::is_integral_v<M>) d = std::fabs(double(a) - double(b));
    else d = std::fabs(double(a - b));  // the difference in the dtype, as PyTorch
    return std::isfinite(d) && d <= atol + rtol * mag(y);
  }
}

void isclose(const TensorImpl& out, const TensorImpl& a, const TensorImpl& b, double rtol, double atol,
             bool equal_nan) {
  if (out.numel() == 0) return;
  auto it = Iter<3>::make({&out, &a, &b});
  dispatch_dtype(a.dtype(), [&]<typename T>() {
    run(it, [&](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<bool*>(p[0] + i * s[0]) =
            close<T>(*reinterpret_cast<const T*>(p[1] + i * s[1]), *reinterpret_cast<const T*>(p[2] + i * s[2]),
                     rtol, atol, equal_nan);
    });
  });
}

// where only moves bytes: one loop per element size.
template <typename W>
void where_loop(char** p, const int64_t* s, int64_t n) {
  constexpr int64_t sz = sizeof(W);
  if (s[0] == sz && s[1] == 1 && s[2] == sz && s[3] == sz) {
    W* __restrict__ o = reinterpret_cast<W*>(p[0]);
    const bool* __restrict__ c = reinterpret_cast<const bool*>(p[1]);
    const W* __restrict__ a = reinterpret_cast<const W*>(p[2]);
    const W* __restrict__ b = reinterpret_cast<const W*>(p[3]);
    for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? a[i] : b[i];
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const bool c = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
      std::memcpy(p[0] + i * s[0], c ? p[2] + i * s[2] : p[3] + i * s[3], sz);
    }
  }
}

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

void where(const TensorImpl& out, const TensorImpl& cond, const TensorImpl& a, const TensorImpl& b) {
  if (out.numel() == 0) return;
  auto it = Iter<4>::make({&out, &cond, &a, &b});
  CompareLoop loop = nullptr;
  switch (out.element_size()) {
    case 1: loop = &where_loop<uint8_t>; break;
    case 2: loop = &where_loop<uint16_t>; break;
    case 4: loop = &where_loop<uint32_t>; break;
    case 8: loop = &where_loop<uint64_t>; break;
    case 16: loop = &where_loop<Bytes16>; break;
  }
  LUCID_CHECK(loop, NotImplemented, "[where] unsupported element size " << out.element_size());
  run(it, [&](char** p, const int64_t* s, int64_t n) { loop(p, s, n); });
}

template <TernaryOp Op, typename M>
inline M apply_ternary(M a, M b, M c, M value) {
  if constexpr (Op == TernaryOp::Lerp) {  // PyTorch's two-sided formula: exact at both ends
    if constexpr (is_cplx<M>) {
      const double mag = std::hypot(double(c.re), double(c.im));
      return mag < 0.5 ? M(a + c * (b - a)) : M(b - (b - a) * (M(1) - c));
    } else {  // both sides, then a bitwise select: a branch on random weights mispredicts half the time
      const M lo = a + c * (b - a), hi = b - (b - a) * (M(1) - c);
      using U = std::conditional_t<sizeof(M) == 8, uint64_t, uint32_t>;
      U ul, uh;
      std::memcpy(&ul, &lo, sizeof(M));
      std::memcpy(&uh, &hi, sizeof(M));
      const U m = U(0) - U(std::abs(c) < M(0.5));
      const U r = (ul & m) | (uh & ~m);
      M out;
      std::memcpy(&out, &r, sizeof(M));
      return out;
    }
  } else if constexpr (Op == TernaryOp::Addcmul) {
    return M(a + value * b * c);
  } else {
    return M(a + value * b / c);
  }
}

template <TernaryOp Op, typename T>
void ternary_loop(char** p, const int64_t* s, int64_t n, const Scalar& value_s) {
  using M = typename OpMath<T>::type;
  const M value = value_s.to<M>();
  constexpr int64_t sz = sizeof(T);
  if (s[0] == sz && s[1] == sz && s[2] == sz && (s[3] == sz || s[3] == 0)) {
    T* __restrict__ o = reinterpret_cast<T*>(p[0]);
    const T* __restrict__ a = reinterpret_cast<const T*>(p[1]);
    const T* __restrict__ b = reinterpret_cast<const T*>(p[2]);
    const T* __restrict__ c = reinterpret_cast<const T*>(p[3]);
    if (s[3] == 0) {
      const M cv = M(*c);
      for (int64_t i = 0; i < n; ++i) o[i] = T(apply_ternary<Op, M>(M(a[i]), M(b[i]), cv, value));
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = T(apply_ternary<Op, M>(M(a[i]), M(b[i]), M(c[i]), value));
    }
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<T*>(p[0] + i * s[0]) = T(apply_ternary<Op, M>(
          M(*reinterpret_cast<const T*>(p[1] + i * s[1])), M(*reinterpret_cast<const T*>(p[2] + i * s[2])),
          M(*reinterpret_cast<const T*>(p[3] + i * s[3])), value));
  }
}

void ternary(TernaryOp op, const TensorImpl& out, const TensorImpl& a, const TensorImpl& b, const TensorImpl& c,
             const Scalar& value) {
  if (out.numel() == 0) return;
  auto it = Iter<4>::make({&out, &a, &b, &c});
  using Loop = void (*)(char**, const int64_t*, int64_t, const Scalar&);
  const Loop loop = dispatch_dtype(out.dtype(), [&]<typename T>() -> Loop {
    if constexpr (std::is_same_v<T, bool>) {
      return nullptr;
    } else {
      switch (op) {
        case TernaryOp::Lerp:
          if constexpr (std::is_integral_v<T>) return nullptr;
          else return &ternary_loop<TernaryOp::Lerp, T>;
        case TernaryOp::Addcmul: return &ternary_loop<TernaryOp::Addcmul, T>;
        case TernaryOp::Addcdiv: return &ternary_loop<TernaryOp::Addcdiv, T>;
      }
      return nullptr;
    }
  });
  LUCID_CHECK(loop, NotImplemented, "[ternary] dtype " << dtype_name(out.dtype()) << " is not supported by this op");
  run(it, [&](char** p, const int64_t* s, int64_t n) { loop(p, s, n, value); });
}

}  // namespace

LUCID_REGISTER_KERNEL(ternary_kernel, CPU, &ternary)
LUCID_REGISTER_KERNEL(compare_kernel, CPU, &compare)
LUCID_REGISTER_KERNEL(isclose_kernel, CPU, &isclose)
LUCID_REGISTER_KERNEL(where_kernel, CPU, &where)

}  // namespace lucid::cpu
