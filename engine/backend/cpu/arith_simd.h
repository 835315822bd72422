#pragma once
// Vectorised fast paths of the arithmetic elementwise ops, compiled once per ISA through loops.h
// (isa_loops.cpp): pow with the scalar exponents PyTorch special-cases (x*x, x*x*x, 1/(x*x),
// sqrt, 1/sqrt, 1/x, copy, 1), fmod / remainder / floor and trunc division, hypot, the clamp
// loops, and the float32 <-> float16 / bfloat16 casts. Each gives the same bits as the scalar
// reference of binary_math.h / half.h (lanes a fast formula cannot do exactly are recomputed by
// that reference); PyTorch's results are the same (its pow special cases are the ones here).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "backend/common/binary_math.h"
#include "backend/cpu/isa_ns.h"
#include "backend/kernels/elementwise.h"
#include "core/dtype.h"

namespace lucid::cpu {
LUCID_ISA_NS_BEGIN
namespace arith {

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512DQ__) && \
    defined(__FMA__) && defined(__F16C__)
#define LUCID_ARITH_VB 64
#define LUCID_ARITH_FULL 1  // vector trunc/floor/fma and the F16C conversions
#elif defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define LUCID_ARITH_VB 32
#define LUCID_ARITH_FULL 1
#elif defined(__SSE2__)
#define LUCID_ARITH_VB 16
#define LUCID_ARITH_FULL 0
#endif

#ifdef LUCID_ARITH_VB
constexpr bool kVec = true;
constexpr bool kFull = LUCID_ARITH_FULL;
constexpr int VB = LUCID_ARITH_VB;
typedef float vf __attribute__((vector_size(VB)));
typedef double vd __attribute__((vector_size(VB)));
typedef int32_t vi __attribute__((vector_size(VB)));
typedef int64_t vl __attribute__((vector_size(VB)));
typedef float vfh __attribute__((vector_size(VB / 2)));

template <typename M> struct VT;
template <> struct VT<float> { using V = vf; using I = vi; static constexpr int W = VB / 4; };
template <> struct VT<double> { using V = vd; using I = vl; static constexpr int W = VB / 8; };

template <typename V> inline V load(const void* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename V> inline void store(void* p, V v) { std::memcpy(p, &v, sizeof v); }
// (a lane loop, not V{} + s: that turns -0.0 into +0.0)
template <typename M> inline typename VT<M>::V splat(M s) {
  typename VT<M>::V v;
  for (int j = 0; j < VT<M>::W; ++j) v[j] = s;
  return v;
}

inline vf vsqrt(vf x) {
#if LUCID_ARITH_VB == 64
  return (vf)_mm512_mask_sqrt_ps((__m512)x, __mmask16(0xffff), (__m512)x);  // (mask forms: no -Wmaybe-uninitialized)
#elif LUCID_ARITH_VB == 32
  return (vf)_mm256_sqrt_ps((__m256)x);
#else
  return (vf)_mm_sqrt_ps((__m128)x);
#endif
}
inline vd vsqrt(vd x) {
#if LUCID_ARITH_VB == 64
  return (vd)_mm512_mask_sqrt_pd((__m512d)x, __mmask8(0xff), (__m512d)x);
#elif LUCID_ARITH_VB == 32
  return (vd)_mm256_sqrt_pd((__m256d)x);
#else
  return (vd)_mm_sqrt_pd((__m128d)x);
#endif
}

// Any lane of a comparison mask (all-ones / zero lanes) set.
template <typename I> inline bool any(I m) {
#if LUCID_ARITH_VB == 64
  return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) != 0;
#elif LUCID_ARITH_VB == 32
  return !_mm256_testz_si256((__m256i)m, (__m256i)m);
#else
  return _mm_movemask_epi8((__m128i)m) != 0;
#endif
}

template <typename M> inline typename VT<M>::I sign_mask() {
  using I = typename VT<M>::I;
  using S = std::conditional_t<std::is_same_v<M, float>, int32_t, int64_t>;
  I m;
  for (int j = 0; j < VT<M>::W; ++j) m[j] = std::numeric_limits<S>::min();
  return m;
}
template <typename M, typename V> inline V vabs(V x) {
  using I = typename VT<M>::I;
  return (V)((I)x & ~sign_mask<M>());
}
// |mag| with the sign bit of sgn.
template <typename M, typename V> inline V vcopysign(V mag, V sgn) {
  using I = typename VT<M>::I;
  const I sm = sign_mask<M>();
  return (V)(((I)mag & ~sm) | ((I)sgn & sm));
}

#if LUCID_ARITH_FULL
#if LUCID_ARITH_VB == 64
inline vf vtrunc(vf x) { return (vf)_mm512_mask_roundscale_ps((__m512)x, __mmask16(0xffff), (__m512)x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline vd vtrunc(vd x) { return (vd)_mm512_mask_roundscale_pd((__m512d)x, __mmask8(0xff), (__m512d)x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline vf vfloor(vf x) { return (vf)_mm512_mask_roundscale_ps((__m512)x, __mmask16(0xffff), (__m512)x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
inline vd vfloor(vd x) { return (vd)_mm512_mask_roundscale_pd((__m512d)x, __mmask8(0xff), (__m512d)x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
inline vf vfnmadd(vf a, vf b, vf c) { return (vf)_mm512_fnmadd_ps((__m512)a, (__m512)b, (__m512)c); }
inline vd vfnmadd(vd a, vd b, vd c) { return (vd)_mm512_fnmadd_pd((__m512d)a, (__m512d)b, (__m512d)c); }
#else
inline vf vtrunc(vf x) { return (vf)_mm256_round_ps((__m256)x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline vd vtrunc(vd x) { return (vd)_mm256_round_pd((__m256d)x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
inline vf vfloor(vf x) { return (vf)_mm256_round_ps((__m256)x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
inline vd vfloor(vd x) { return (vd)_mm256_round_pd((__m256d)x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
inline vf vfnmadd(vf a, vf b, vf c) { return (vf)_mm256_fnmadd_ps((__m256)a, (__m256)b, (__m256)c); }
inline vd vfnmadd(vd a, vd b, vd c) { return (vd)_mm256_fnmadd_pd((__m256d)a, (__m256d)b, (__m256d)c); }
#endif
#endif  // LUCID_ARITH_FULL

// o[i] = f(x[i]) (o may equal x); the tail runs through the same vector code.
template <typename M, typename F>
inline void map1(M* o, const M* x, int64_t n, F f) {
  using V = typename VT<M>::V;
  constexpr int W = VT<M>::W;
  int64_t i = 0;
  for (; i + W <= n; i += W) store(o + i, f(load<V>(x + i)));
  if (i < n) {
    M buf[W];
    for (int j = 0; j < W; ++j) buf[j] = j < n - i ? x[i + j] : M(1);
    store(buf, f(load<V>(buf)));
    for (int64_t j = 0; j < n - i; ++j) o[i + j] = buf[j];
  }
}

// o[i] = op(a[i], b[i]) for a run with a (Mode 2) or b (Mode 1) a broadcast scalar, or neither
// (Mode 0). vf(va, vb, bad) computes a vector and sets `bad` lanes it could not do exactly; such
// vectors and the tail go through the scalar reference sf. o may equal a or b.
template <int Mode, typename M, typename VF, typename SF>
inline void map2(M* o, const M* a, const M* b, int64_t n, VF vfn, SF sf) {
  using V = typename VT<M>::V;
  using I = typename VT<M>::I;
  constexpr int W = VT<M>::W;
  const V as = Mode == 2 ? splat<M>(a[0]) : V{};
  const V bs = Mode == 1 ? splat<M>(b[0]) : V{};
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const V va = Mode == 2 ? as : load<V>(a + i);
    const V vb = Mode == 1 ? bs : load<V>(b + i);
    I bad = I{};
    V r = vfn(va, vb, bad);
    if (__builtin_expect(any(bad), 0)) {
      M buf[W];
      for (int j = 0; j < W; ++j) buf[j] = sf(va[j], vb[j]);
      r = load<V>(buf);
    }
    store(o + i, r);
  }
  for (; i < n; ++i) o[i] = sf(a[Mode == 2 ? 0 : i], b[Mode == 1 ? 0 : i]);
}

#if LUCID_ARITH_FULL
// fmod by a = q b + r with q = trunc(|a| / |b|) (one too large at most while the quotient is below
// 2^(mantissa bits)): r = |a| - q |b| is exact in one FMA, then corrected by |b|. Other lanes
// (zero or non-finite divisor, infinite or NaN dividend, larger quotients) are flagged.
template <typename M, typename V, typename I>
inline V fmod_v(V a, V b, I& bad) {
  constexpr M lim = std::is_same_v<M, float> ? M(1 << 22) : M(int64_t(1) << 51);
  const V A = vabs<M>(a), B = vabs<M>(b);
  const V q = vtrunc(A / B);
  V r = vfnmadd(q, B, A);
  r = r < V{} ? r + B : r;
  bad |= ~(q < splat<M>(lim)) | (r != r);
  return vcopysign<M>(r, a);
}
template <typename M, typename V, typename I>
inline V remainder_v(V a, V b, I& bad) {
  V r = fmod_v<M>(a, b, bad);
  return ((r != V{}) & ((b < V{}) ^ (r < V{}))) ? r + b : r;
}
// bm::floor_div step by step.
template <typename M, typename V, typename I>
inline V floor_div_v(V a, V b, I& bad) {
  bad |= (b == V{});
  const V mod = fmod_v<M>(a, b, bad);
  V div = (a - mod) / b;
  div = ((mod != V{}) & ((b < V{}) ^ (mod < V{}))) ? div - M(1) : div;
  V fl = vfloor(div);
  fl = (div - fl > splat<M>(M(0.5))) ? fl + M(1) : fl;
  return div == V{} ? vcopysign<M>(V{}, a / b) : fl;
}

inline vf hypot_v(vf a, vf b, vi&) {
  vfh ah[2], bh[2], rh[2];
  std::memcpy(ah, &a, sizeof a);
  std::memcpy(bh, &b, sizeof b);
  for (int k = 0; k < 2; ++k) {
    const vd x = __builtin_convertvector(ah[k], vd), y = __builtin_convertvector(bh[k], vd);
    rh[k] = __builtin_convertvector(vsqrt(x * x + y * y), vfh);
  }
  vf r;
  std::memcpy(&r, rh, sizeof r);
  const vf inf = splat<float>(std::numeric_limits<float>::infinity());
  return ((vabs<float>(a) == inf) | (vabs<float>(b) == inf)) ? inf : r;
}
#endif  // LUCID_ARITH_FULL
#else
constexpr bool kVec = false;
constexpr bool kFull = false;
#endif  // LUCID_ARITH_VB

// hypot in float32 as sqrt of the exact double sum of squares, rounded once to float (glibc's
// hypotf); infinities win over NaN.
inline float hypot_s(float a, float b) {
  if (std::isinf(a) || std::isinf(b)) return std::numeric_limits<float>::infinity();
  const double x = a, y = b;
  return float(std::sqrt(x * x + y * y));
}

template <typename T>
constexpr bool is_f32_f64 = std::is_same_v<T, float> || std::is_same_v<T, double>;
template <typename T>
constexpr bool is_int_t = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// ---- pow with a broadcast scalar exponent: the cases of PyTorch's pow_tensor_scalar kernels
// (float32 / float64: x*x, x*x*x, 1/(x*x), sqrt, 1/sqrt, 1/x; bfloat16: the same with each step
// rounded to bfloat16; integers: wrapping products), on contiguous and strided runs alike.

inline float ssqrt(float v) { return std::sqrt(v); }
inline double ssqrt(double v) { return std::sqrt(v); }
#ifdef LUCID_ARITH_VB
inline vf ssqrt(vf v) { return vsqrt(v); }
inline vd ssqrt(vd v) { return vsqrt(v); }
#endif

// bfloat16 arithmetic as PyTorch's: each product / quotient rounded to bfloat16.
inline float rb(float v) { return float(BFloat16(v)); }

// o = f(x, one) over a run; f takes scalars of the arithmetic type (and vectors for float/double).
template <typename T, typename F>
inline void pow_run(char* o, int64_t so, const char* x, int64_t sx, int64_t n, F f) {
  using M = std::conditional_t<std::is_same_v<T, BFloat16>, float, T>;
#ifdef LUCID_ARITH_VB
  if constexpr (is_f32_f64<T>) {
    if (so == int64_t(sizeof(T)) && sx == int64_t(sizeof(T))) {
      const auto one = splat<T>(T(1));
      map1(reinterpret_cast<T*>(o), reinterpret_cast<const T*>(x), n, [&](auto v) { return f(v, one); });
      return;
    }
  }
#endif
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<T*>(o + i * so) = T(f(M(*reinterpret_cast<const T*>(x + i * sx)), M(1)));
}

template <typename T>
inline bool pow_scalar_exp(char* o, int64_t so, const char* x, int64_t sx, int64_t n, T e_t) {
  auto copy = [&] {
    if (so == int64_t(sizeof(T)) && sx == int64_t(sizeof(T))) {
      if (o != x) std::memmove(o, x, size_t(n) * sizeof(T));
    } else {
      for (int64_t i = 0; i < n; ++i) std::memcpy(o + i * so, x + i * sx, sizeof(T));
    }
  };
  auto ones = [&] {
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(o + i * so) = T(1);
  };
  if constexpr (is_f32_f64<T>) {
    const T e = e_t;
    if (e == T(2)) pow_run<T>(o, so, x, sx, n, [](auto v, auto) { return v * v; });
    else if (e == T(3)) pow_run<T>(o, so, x, sx, n, [](auto v, auto) { return v * v * v; });
    else if (e == T(-2)) pow_run<T>(o, so, x, sx, n, [](auto v, auto one) { return one / (v * v); });
    else if (e == T(0.5)) pow_run<T>(o, so, x, sx, n, [](auto v, auto) { return ssqrt(v); });
    else if (e == T(-0.5)) pow_run<T>(o, so, x, sx, n, [](auto v, auto one) { return one / ssqrt(v); });
    else if (e == T(-1)) pow_run<T>(o, so, x, sx, n, [](auto v, auto one) { return one / v; });
    else if (e == T(1)) copy();
    else if (e == T(0)) ones();
    else return false;
    return true;
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    const float e = float(e_t);
    if (e == 2.f) pow_run<T>(o, so, x, sx, n, [](float v, float) { return v * v; });
    else if (e == 3.f) pow_run<T>(o, so, x, sx, n, [](float v, float) { return rb(v * v) * v; });
    else if (e == -2.f) pow_run<T>(o, so, x, sx, n, [](float v, float) { return 1.f / rb(v * v); });
    else if (e == 0.5f) pow_run<T>(o, so, x, sx, n, [](float v, float) { return std::sqrt(v); });
    else if (e == -0.5f) pow_run<T>(o, so, x, sx, n, [](float v, float) { return 1.f / std::sqrt(v); });
    else if (e == -1.f) pow_run<T>(o, so, x, sx, n, [](float v, float) { return 1.f / v; });
    else if (e == 1.f) copy();
    else if (e == 0.f) ones();
    else return false;
    return true;
  } else if constexpr (is_int_t<T>) {
    // wrapping products, as repeated squaring gives
    auto u = [](T v) { return uint64_t(int64_t(v)); };
    if (e_t == T(2)) pow_run<T>(o, so, x, sx, n, [u](T v, T) { return T(u(v) * u(v)); });
    else if (e_t == T(3)) pow_run<T>(o, so, x, sx, n, [u](T v, T) { return T(u(v) * u(v) * u(v)); });
    else if (e_t == T(1)) copy();
    else if (e_t == T(0)) ones();
    else return false;
    return true;
  } else {
    return false;
  }
}

// ---- binary_loop's fast paths (contiguous runs, either operand possibly a broadcast scalar).

template <BinaryOp Op, typename T>
constexpr bool has_fast_binary() {
  using B = BinaryOp;
  if constexpr (Op == B::Pow) return is_f32_f64<T> || std::is_same_v<T, BFloat16> || is_int_t<T>;
  else if constexpr (Op == B::Fmod || Op == B::Remainder || Op == B::FloorDiv || Op == B::TruncDiv)
    return kFull && is_f32_f64<T>;
  else if constexpr (Op == B::Hypot) return std::is_same_v<T, float>;
  else return false;
}

// Returns false when the run is not one the fast paths take (the caller's loop runs it).
template <BinaryOp Op, typename T>
inline bool fast_binary(char** ptrs, const int64_t* strides, int64_t n) {
  using B = BinaryOp;
  constexpr int64_t sz = sizeof(T);
  if constexpr (Op == B::Pow) {
    if (strides[2] != 0) return false;
    return pow_scalar_exp<T>(ptrs[0], strides[0], ptrs[1], strides[1], n, *reinterpret_cast<const T*>(ptrs[2]));
  } else {
    const int mode = strides[0] != sz                      ? -1
                     : strides[1] == sz && strides[2] == sz ? 0
                     : strides[1] == sz && strides[2] == 0  ? 1
                     : strides[1] == 0 && strides[2] == sz  ? 2
                                                            : -1;
    if constexpr (Op == B::Hypot) {  // every run through hypot_s's formula (the vectors give the same bits)
      if (mode < 0 || !kFull) {
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<T*>(ptrs[0] + i * strides[0]) = hypot_s(
              *reinterpret_cast<const T*>(ptrs[1] + i * strides[1]), *reinterpret_cast<const T*>(ptrs[2] + i * strides[2]));
        return true;
      }
    }
    if (mode < 0) return false;  // the caller's element loop (the same scalar reference)
#if defined(LUCID_ARITH_VB) && LUCID_ARITH_FULL
    T* o = reinterpret_cast<T*>(ptrs[0]);
    const T* a = reinterpret_cast<const T*>(ptrs[1]);
    const T* b = reinterpret_cast<const T*>(ptrs[2]);
    auto go = [&](auto vfn, auto sf) {
      if (mode == 0) map2<0, T>(o, a, b, n, vfn, sf);
      else if (mode == 1) map2<1, T>(o, a, b, n, vfn, sf);
      else map2<2, T>(o, a, b, n, vfn, sf);
    };
    using V = typename VT<T>::V;
    using I = typename VT<T>::I;
    if constexpr (Op == B::Fmod)
      go([](V x, V y, I& bad) { return fmod_v<T>(x, y, bad); }, [](T x, T y) { return bm::fmod_(x, y); });
    else if constexpr (Op == B::Remainder)
      go([](V x, V y, I& bad) { return remainder_v<T>(x, y, bad); }, [](T x, T y) { return bm::remainder(x, y); });
    else if constexpr (Op == B::FloorDiv)
      go([](V x, V y, I& bad) { return floor_div_v<T>(x, y, bad); }, [](T x, T y) { return bm::floor_div(x, y); });
    else if constexpr (Op == B::TruncDiv)
      go([](V x, V y, I&) { return vtrunc(x / y); }, [](T x, T y) { return bm::trunc_div(x, y); });
    else if constexpr (Op == B::Hypot)
      go([](V x, V y, I& bad) { return hypot_v(x, y, bad); }, [](T x, T y) { return hypot_s(x, y); });
    return true;
#else
    return false;
#endif
  }
}

// ---- casts between float32 and float16 / bfloat16 (contiguous runs), bit-exact with half.h.

typedef uint32_t u32a __attribute__((may_alias));
typedef uint16_t u16a __attribute__((may_alias));

template <typename To, typename From>
constexpr bool has_fast_cast() {
  if constexpr (std::is_same_v<From, float> && std::is_same_v<To, BFloat16>) return true;
  else if constexpr (std::is_same_v<From, BFloat16> && std::is_same_v<To, float>) return true;
  else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Half>) return kFull;
  else if constexpr (std::is_same_v<From, Half> && std::is_same_v<To, float>) return kFull;
  else return false;
}

template <typename To, typename From>
inline void fast_cast(char* dst, const char* src, int64_t n) {
  if constexpr (std::is_same_v<From, float> && std::is_same_v<To, BFloat16>) {
    // round to nearest even; NaN keeps its top bits and is made quiet (detail::float_to_bf16)
    const u32a* __restrict__ s = reinterpret_cast<const u32a*>(src);
    u16a* __restrict__ o = reinterpret_cast<u16a*>(dst);
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t x = s[i];
      const uint32_t r = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
      const uint32_t q = (x >> 16) | 0x40u;
      o[i] = uint16_t((x & 0x7fffffffu) > 0x7f800000u ? q : r);
    }
  } else if constexpr (std::is_same_v<From, BFloat16> && std::is_same_v<To, float>) {
    const u16a* __restrict__ s = reinterpret_cast<const u16a*>(src);
    u32a* __restrict__ o = reinterpret_cast<u32a*>(dst);
    for (int64_t i = 0; i < n; ++i) o[i] = uint32_t(s[i]) << 16;
  } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Half>) {
#if defined(LUCID_ARITH_VB) && LUCID_ARITH_FULL
    const float* s = reinterpret_cast<const float*>(src);
    Half* o = reinterpret_cast<Half*>(dst);
    int64_t i = 0;
#if LUCID_ARITH_VB == 64
    for (; i + 16 <= n; i += 16) {
      const __m512 v = _mm512_loadu_ps(s + i);
      __m256i h = _mm512_mask_cvtps_ph(_mm256_setzero_si256(), __mmask16(0xffff), v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      if (__builtin_expect(nan != 0, 0))  // NaN: sign | 0x7e00 (detail::float_to_half)
        h = _mm256_mask_blend_epi16(nan, h, _mm256_or_si256(_mm256_and_si256(h, _mm256_set1_epi16(int16_t(0x8000))),
                                                             _mm256_set1_epi16(0x7e00)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), h);
    }
#else
    for (; i + 8 <= n; i += 8) {
      const __m256 v = _mm256_loadu_ps(s + i);
      const __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i), h);
      if (__builtin_expect(_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) != 0, 0))
        for (int j = 0; j < 8; ++j) o[i + j] = Half(s[i + j]);
    }
#endif
    for (; i < n; ++i) o[i] = Half(s[i]);
#endif
  } else if constexpr (std::is_same_v<From, Half> && std::is_same_v<To, float>) {
#if defined(LUCID_ARITH_VB) && LUCID_ARITH_FULL
    const Half* s = reinterpret_cast<const Half*>(src);
    float* o = reinterpret_cast<float*>(dst);
    int64_t i = 0;
    // NaN keeps its payload unquieted (detail::half_to_float): those blocks go through the reference
#if LUCID_ARITH_VB == 64
    for (; i + 16 <= n; i += 16) {
      const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
      _mm512_storeu_ps(o + i, _mm512_mask_cvtph_ps(_mm512_setzero_ps(), __mmask16(0xffff), h));
      const __mmask16 nan =
          _mm256_cmpgt_epi16_mask(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)), _mm256_set1_epi16(0x7c00));
      if (__builtin_expect(nan != 0, 0))
        for (int j = 0; j < 16; ++j) o[i + j] = float(s[i + j]);
    }
#else
    for (; i + 8 <= n; i += 8) {
      const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      _mm256_storeu_ps(o + i, _mm256_cvtph_ps(h));
      const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
      if (__builtin_expect(_mm_movemask_epi8(nan) != 0, 0))
        for (int j = 0; j < 8; ++j) o[i + j] = float(s[i + j]);
    }
#endif
    for (; i < n; ++i) o[i] = float(s[i]);
#endif
  }
}

// ---- clamp: o = min(max(x, lo), hi) with PyTorch's NaN rules (a NaN input or bound gives NaN;
// lo > hi gives hi). LO / HI: which bounds are present.
template <typename T, bool LO, bool HI>
void clamp_run(char** p, const int64_t* s, int64_t n) {
  using M = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;
  constexpr bool flt = !std::is_integral_v<M>;
  constexpr int64_t sz = sizeof(T);
  auto f = [](M v, M l, M h) -> M {
    M r = v;
    if constexpr (LO) r = r < l ? l : r;
    if constexpr (HI) r = r > h ? h : r;
    if constexpr (flt && HI) r = h != h ? h : r;
    if constexpr (flt && LO) r = l != l ? l : r;
    return r;
  };
  if (s[0] == sz && s[1] == sz && (!LO || s[2] == 0) && (!HI || s[3] == 0)) {  // scalar bounds
    T* __restrict__ o = reinterpret_cast<T*>(p[0]);
    const T* __restrict__ x = reinterpret_cast<const T*>(p[1]);
    const M l = M(*reinterpret_cast<const T*>(p[2])), h = M(*reinterpret_cast<const T*>(p[3]));
    if constexpr (flt) {
      if ((LO && l != l) || (HI && h != h)) {
        const T fillv = T(LO && l != l ? l : h);
        for (int64_t i = 0; i < n; ++i) o[i] = fillv;
        return;
      }
    }
    if constexpr (std::is_same_v<M, T>) {
      for (int64_t i = 0; i < n; ++i) {
        T r = x[i];
        if constexpr (LO) r = r < l ? l : r;
        if constexpr (HI) r = r > h ? h : r;
        o[i] = r;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = T(f(M(x[i]), l, h));
    }
  } else if (s[0] == sz && s[1] == sz && (!LO || s[2] == sz) && (!HI || s[3] == sz)) {
    T* __restrict__ o = reinterpret_cast<T*>(p[0]);
    const T* __restrict__ x = reinterpret_cast<const T*>(p[1]);
    const T* __restrict__ lo = reinterpret_cast<const T*>(p[2]);
    const T* __restrict__ hi = reinterpret_cast<const T*>(p[3]);
    for (int64_t i = 0; i < n; ++i) o[i] = T(f(M(x[i]), LO ? M(lo[i]) : M(0), HI ? M(hi[i]) : M(0)));
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<T*>(p[0] + i * s[0]) = T(f(M(*reinterpret_cast<const T*>(p[1] + i * s[1])),
                                                   M(*reinterpret_cast<const T*>(p[2] + i * s[2])),
                                                   M(*reinterpret_cast<const T*>(p[3] + i * s[3]))));
  }
}

}  // namespace arith
LUCID_ISA_NS_END
}  // namespace lucid::cpu
