#pragma once
// Inner loops of the hot CPU kernels, written so the compiler vectorises the contiguous and
// scalar-broadcast cases. isa_loops.cpp instantiates them once per ISA (isa.h).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backend/common/binary_math.h"
#include "backend/common/unary_math.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/isa_ns.h"
#include "backend/kernels/elementwise.h"
#include "core/dtype.h"
#include "core/scalar.h"

#if defined(LUCID_ISA)  // the per-ISA builds (isa_loops.cpp) take the fast paths of arith_simd.h
#include "backend/cpu/arith_simd.h"
#define LUCID_ARITH_FAST 1
#else
#define LUCID_ARITH_FAST 0
#endif

namespace lucid::cpu {

// One 1-D run: ptrs[k] advance by strides[k] bytes, n elements.
using BinaryLoop = void (*)(char** ptrs, const int64_t* strides, int64_t n, const Scalar& alpha);
using CastLoop = void (*)(char** ptrs, const int64_t* strides, int64_t n);
using UnaryLoop = void (*)(char** ptrs, const int64_t* strides, int64_t n);
// Sums n elements (byte stride) of one dtype into a double (floating), int64 (integral) or
// complex<double> (complex: re, im).
using SumLoop = void (*)(const char* p, int64_t stride, int64_t n, double* acc_re, double* acc_im, int64_t* acc_i);

// Arithmetic type of a storage type: half and bfloat16 compute in float.
template <typename T> struct OpMath { using type = T; };
template <> struct OpMath<Half> { using type = float; };
template <> struct OpMath<BFloat16> { using type = float; };

// The loop templates below are compiled once per ISA: see isa_ns.h.
LUCID_ISA_NS_BEGIN

template <BinaryOp Op, typename T>
inline T apply_binary(T a, T b, T alpha) {
  if constexpr (Op > BinaryOp::Div) {
    return apply_binary_ext<Op, T>(a, b);
  } else if constexpr (std::is_same_v<T, bool>) {
    if constexpr (Op == BinaryOp::Add) return a || (alpha && b);
    else if constexpr (Op == BinaryOp::Mul) return a && b;
    else return a;  // Sub/Div on bool are rejected by the op
  } else {
    // a + alpha * b rounded once on every ISA, as PyTorch's vectorised add/sub (fmadd) and lucid's
    // CUDA kernels. alpha = 1 gives the same bits as a plain sum, which an ISA without the FMA
    // instruction takes instead of a call.
    if constexpr ((std::is_same_v<T, float> || std::is_same_v<T, double>) &&
                  (Op == BinaryOp::Add || Op == BinaryOp::Sub)) {
#if !defined(__FMA__)
      if (alpha == T(1)) return Op == BinaryOp::Add ? a + b : a - b;
#endif
      return std::fma(Op == BinaryOp::Add ? alpha : -alpha, b, a);
    }
    if constexpr (Op == BinaryOp::Add) return a + alpha * b;
    else if constexpr (Op == BinaryOp::Sub) return a - alpha * b;
    else if constexpr (Op == BinaryOp::Mul) return a * b;
    else {
      if constexpr (std::is_integral_v<T>) return b == 0 ? T(0) : T(a / b);
      else return a / b;
    }
  }
}

// half/bfloat16: PyTorch rounds the quotient of a truncating division to the storage type first.
template <BinaryOp Op, typename T, typename M>
inline M apply_binary_st(M a, M b, M alpha) {
  if constexpr (Op == BinaryOp::TruncDiv && !std::is_same_v<T, M>) return std::trunc(M(T(a / b)));
  else return apply_binary<Op, M>(a, b, alpha);
}

template <BinaryOp Op, typename T>
void binary_loop(char** ptrs, const int64_t* strides, int64_t n, const Scalar& alpha_s) {
#if LUCID_ARITH_FAST
  if constexpr (arith::has_fast_binary<Op, T>()) {  // arith_simd.h
    if (arith::fast_binary<Op, T>(ptrs, strides, n)) return;
  }
#endif
  using M = typename OpMath<T>::type;
  const M alpha = alpha_s.to<M>();
  char* o = ptrs[0];
  const char* a = ptrs[1];
  const char* b = ptrs[2];
  constexpr int64_t sz = sizeof(T);
  if (strides[0] == sz && strides[1] == sz && strides[2] == sz) {
    T* __restrict__ op = reinterpret_cast<T*>(o);
    const T* __restrict__ ap = reinterpret_cast<const T*>(a);
    const T* __restrict__ bp = reinterpret_cast<const T*>(b);
    for (int64_t i = 0; i < n; ++i) op[i] = T(apply_binary_st<Op, T, M>(M(ap[i]), M(bp[i]), alpha));
  } else if (strides[0] == sz && strides[1] == sz && strides[2] == 0) {
    T* __restrict__ op = reinterpret_cast<T*>(o);
    const T* __restrict__ ap = reinterpret_cast<const T*>(a);
    const M bv = M(*reinterpret_cast<const T*>(b));
    for (int64_t i = 0; i < n; ++i) op[i] = T(apply_binary_st<Op, T, M>(M(ap[i]), bv, alpha));
  } else if (strides[0] == sz && strides[1] == 0 && strides[2] == sz) {
    T* __restrict__ op = reinterpret_cast<T*>(o);
    const M av = M(*reinterpret_cast<const T*>(a));
    const T* __restrict__ bp = reinterpret_cast<const T*>(b);
    for (int64_t i = 0; i < n; ++i) op[i] = T(apply_binary_st<Op, T, M>(av, M(bp[i]), alpha));
  } else {
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<T*>(o + i * strides[0]) = T(apply_binary_st<Op, T, M>(
          M(*reinterpret_cast<const T*>(a + i * strides[1])), M(*reinterpret_cast<const T*>(b + i * strides[2])), alpha));
    }
  }
}

template <UnaryOp Op, typename T>
void unary_loop(char** ptrs, const int64_t* strides, int64_t n) {
  using M = typename OpMath<T>::type;
  if (strides[0] == sizeof(T) && strides[1] == sizeof(T)) {
    T* __restrict__ o = reinterpret_cast<T*>(ptrs[0]);
    const T* __restrict__ x = reinterpret_cast<const T*>(ptrs[1]);
    for (int64_t i = 0; i < n; ++i) o[i] = T(apply_unary<Op, M>(M(x[i])));
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<T*>(ptrs[0] + i * strides[0]) =
          T(apply_unary<Op, M>(M(*reinterpret_cast<const T*>(ptrs[1] + i * strides[1]))));
  }
}

// Value conversion with PyTorch's semantics: complex -> real drops the imaginary part,
// anything -> bool tests for non-zero.
template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) return v;
  else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (std::is_same_v<From, c64> || std::is_same_v<From, c128>) return v.re != 0 || v.im != 0;
    else return typename OpMath<From>::type(v) != typename OpMath<From>::type(0);
  } else if constexpr (std::is_same_v<From, c64> || std::is_same_v<From, c128>) {
    if constexpr (std::is_same_v<To, c64> || std::is_same_v<To, c128>) return To(v);
    else return convert<To>(v.re);
  } else if constexpr (std::is_same_v<To, c64> || std::is_same_v<To, c128>) {
    using R = decltype(To().re);
    return To(R(typename OpMath<From>::type(v)), R(0));
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(float(typename OpMath<From>::type(v)));
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return To(float(v));
  } else {
    return To(v);
  }
}

template <typename To, typename From>
void cast_loop(char** ptrs, const int64_t* strides, int64_t n) {
#if LUCID_ARITH_FAST
  if constexpr (arith::has_fast_cast<To, From>()) {  // arith_simd.h
    if (strides[0] == sizeof(To) && strides[1] == sizeof(From)) return arith::fast_cast<To, From>(ptrs[0], ptrs[1], n);
  }
#endif
  if (strides[0] == sizeof(To) && strides[1] == sizeof(From)) {
    To* __restrict__ o = reinterpret_cast<To*>(ptrs[0]);
    const From* __restrict__ s = reinterpret_cast<const From*>(ptrs[1]);
    for (int64_t i = 0; i < n; ++i) o[i] = convert<To>(s[i]);
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<To*>(ptrs[0] + i * strides[0]) = convert<To>(*reinterpret_cast<const From*>(ptrs[1] + i * strides[1]));
  }
}

// Cascade sum: blocks of 512 elements are summed in 32 independent lanes of the arithmetic type
// (16 adds per lane, so the loop vectorises and float32 keeps ~full precision), and block totals
// are added in double. A float32 sum of 10^7 ones is exact.
template <typename T>
void sum_loop(const char* p, int64_t stride, int64_t n, double* acc_re, double* acc_im, int64_t* acc_i) {
  if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128>) {
    double re = 0, im = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T v = *reinterpret_cast<const T*>(p + i * stride);
      re += double(v.re);
      im += double(v.im);
    }
    *acc_re += re;
    *acc_im += im;
  } else if constexpr (std::is_integral_v<T>) {
    int64_t s = 0;
    if (stride == sizeof(T)) {
      const T* q = reinterpret_cast<const T*>(p);
      for (int64_t i = 0; i < n; ++i) s += int64_t(q[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) s += int64_t(*reinterpret_cast<const T*>(p + i * stride));
    }
    *acc_i += s;
  } else {
    using M = typename OpMath<T>::type;
    constexpr int kLanes = 32;
    constexpr int64_t kBlock = 512;
    double total = 0;
    if (stride == sizeof(T)) {
      const T* q = reinterpret_cast<const T*>(p);
      int64_t i = 0;
      for (; i + kBlock <= n; i += kBlock) {
        M lane[kLanes] = {};
        for (int64_t j = 0; j < kBlock; j += kLanes)
          for (int k = 0; k < kLanes; ++k) lane[k] += M(q[i + j + k]);
        for (int w = kLanes / 2; w > 0; w /= 2)
          for (int k = 0; k < w; ++k) lane[k] += lane[k + w];
        total += double(lane[0]);
      }
      double tail = 0;
      if (i + kLanes <= n) {  // (skipped when the blocks cover the run: 32 serial adds per row otherwise)
        M lane[kLanes] = {};
        for (; i + kLanes <= n; i += kLanes)
          for (int k = 0; k < kLanes; ++k) lane[k] += M(q[i + k]);
        for (int k = 0; k < kLanes; ++k) tail += double(lane[k]);
      }
      for (; i < n; ++i) tail += double(M(q[i]));
      total += tail;
    } else {
      for (int64_t i = 0; i < n; ++i) total += double(M(*reinterpret_cast<const T*>(p + i * stride)));
    }
    *acc_re += total;
  }
}

LUCID_ISA_NS_END  // per-ISA loop templates

// Tables filled by each ISA's translation unit (isa_loops.cpp), read through isa_table.cpp.
struct IsaLoops {
  BinaryLoop (*binary)(BinaryOp, Dtype);
  CastLoop (*cast)(Dtype, Dtype);
  SumLoop (*sum)(Dtype);
  UnaryLoop (*unary)(UnaryOp, Dtype);
};
void register_isa_loops(Isa isa, IsaLoops loops);
BinaryLoop binary_loop_for(BinaryOp op, Dtype d);
// The complex binary loops of the generic build, which every ISA's table uses: under -mfma GCC fuses
// complex products into FMAs (vfmaddsub) even with -ffp-contract=off, and the bits must not depend
// on the ISA (nor differ from PyTorch's, which does not fuse them).
BinaryLoop generic_complex_binary_loop(BinaryOp op, Dtype d);
CastLoop cast_loop_for(Dtype to, Dtype from);
SumLoop sum_loop_for(Dtype d);
UnaryLoop unary_loop_for(UnaryOp op, Dtype d);

}  // namespace lucid::cpu
