#pragma once
// The unary ops that the CPU loop (loops.h unary_loop) computes with the vectorisable float/double
// functions of vmath_*.h instead of the scalar libm calls of backend/common/unary_math.h (which the
// CUDA kernels keep using).
#include <cstring>
#include <type_traits>

#include "backend/cpu/vmath_exp.h"
#include "backend/cpu/vmath_gamma.h"
#include "backend/cpu/vmath_hyp.h"
#include "backend/cpu/vmath_special.h"
#include "backend/cpu/vmath_trig.h"
#include "backend/kernels/elementwise.h"

namespace lucid::cpu::vmath {

template <UnaryOp Op, typename M>
constexpr bool has_vec() {
  using U = UnaryOp;
  if constexpr (Op == U::Erf || Op == U::Erfc || Op == U::Erfinv || Op == U::Lgamma || Op == U::Digamma)
    return std::is_same_v<M, float>;  // float only
  else if constexpr (Op == U::Asinh || Op == U::Acosh) return std::is_same_v<M, float>;
#if defined(__FMA__)  // without FMA (baseline build) the roundings of exp2's Horner steps exceed 1 ulp: libm
  else if constexpr (Op == U::Exp2) return true;
#endif
  else return Op == U::Exp || Op == U::Expm1 || Op == U::Log || Op == U::Log2 || Op == U::Log10 ||
         Op == U::Log1p || Op == U::Sqrt || Op == U::Rsqrt || Op == U::Tanh || Op == U::Sinh || Op == U::Cosh ||
         Op == U::Atanh || Op == U::Sigmoid || Op == U::Floor || Op == U::Ceil || Op == U::Trunc ||
         Op == U::Round || Op == U::Frac || Op == U::Sin || Op == U::Cos || Op == U::Tan || Op == U::Asin ||
         Op == U::Acos || Op == U::Atan;
}

// M is float or double.
template <UnaryOp Op, typename M>
LUCID_VM M apply_vec(M x) {
  using U = UnaryOp;
  if constexpr (Op == U::Exp) return exp(x);
  else if constexpr (Op == U::Exp2) return exp2(x);
  else if constexpr (Op == U::Expm1) return expm1(x);
  else if constexpr (Op == U::Log) return log(x);
  else if constexpr (Op == U::Log2) return log2(x);
  else if constexpr (Op == U::Log10) return log10(x);
  else if constexpr (Op == U::Log1p) return log1p(x);
  else if constexpr (Op == U::Sqrt) return std::sqrt(x);  // the instruction (isa_loops: -fno-math-errno)
  else if constexpr (Op == U::Rsqrt) return M(1) / std::sqrt(x);
  else if constexpr (Op == U::Tanh) return tanh(x);
  else if constexpr (Op == U::Sinh) return sinh(x);
  else if constexpr (Op == U::Cosh) return cosh(x);
  else if constexpr (Op == U::Atanh) return atanh(x);
  else if constexpr (Op == U::Asinh) return asinh(x);
  else if constexpr (Op == U::Acosh) return acosh(x);
  else if constexpr (Op == U::Sigmoid) return sigmoid(x);
  else if constexpr (Op == U::Sin) return sin(x);
  else if constexpr (Op == U::Cos) return cos(x);
  else if constexpr (Op == U::Tan) return tan(x);
  else if constexpr (Op == U::Asin) return asin(x);
  else if constexpr (Op == U::Acos) return acos(x);
  else if constexpr (Op == U::Atan) return atan(x);
  else if constexpr (Op == U::Erf) return erf(x);
  else if constexpr (Op == U::Erfc) return erfc(x);
  else if constexpr (Op == U::Erfinv) return erfinv(x);
  else if constexpr (Op == U::Lgamma) return lgamma(x);
  else if constexpr (Op == U::Digamma) return digamma(x);
  else if constexpr (Op == U::Floor) return std::floor(x);
  else if constexpr (Op == U::Ceil) return std::ceil(x);
  else if constexpr (Op == U::Trunc) return std::trunc(x);
  else if constexpr (Op == U::Round) return std::nearbyint(x);
  else if constexpr (Op == U::Frac) return x - std::trunc(x);
  else return x;
}

// Ops with a fast version for blocks whose lanes are all in its range (vmath_exp.h, vmath_special.h).
template <UnaryOp Op>
constexpr bool has_fast() {
  return Op == UnaryOp::Exp || Op == UnaryOp::Log || Op == UnaryOp::Log2 || Op == UnaryOp::Log10 ||
         Op == UnaryOp::Sigmoid || Op == UnaryOp::Erfinv || Op == UnaryOp::Lgamma || Op == UnaryOp::Erfc ||
         Op == UnaryOp::Digamma;
}
template <UnaryOp Op, typename M>
LUCID_VM bool fast_ok(M x) {
  if constexpr (Op == UnaryOp::Exp) return exp_fast_ok(x);
  else if constexpr (Op == UnaryOp::Sigmoid) return exp_fast_ok(M(-x));
  else if constexpr (Op == UnaryOp::Erfinv) return erfinv_fast_ok(float(x));  // float only (has_vec)
  else if constexpr (Op == UnaryOp::Lgamma) return lgamma_fast_ok(float(x));  // x > 0: no reflection
  else if constexpr (Op == UnaryOp::Digamma) return digamma_fast_ok(float(x));
  else if constexpr (Op == UnaryOp::Erfc) return erfc_fast_ok(float(x));  // |x| < 4: no tail
  else return log_fast_ok(x);
}
template <UnaryOp Op, typename M>
LUCID_VM M apply_fast(M x) {
  if constexpr (Op == UnaryOp::Exp) return exp_fast(x);
  else if constexpr (Op == UnaryOp::Sigmoid) return sigmoid_fast(x);
  else if constexpr (Op == UnaryOp::Log2) return log2_fast(x);
  else if constexpr (Op == UnaryOp::Log10) return log10_fast(x);
  else if constexpr (Op == UnaryOp::Erfinv) return M(erfinv_fast(float(x)));
  else if constexpr (Op == UnaryOp::Lgamma) return M(lgamma_fast(float(x)));
  else if constexpr (Op == UnaryOp::Digamma) return M(digamma_fast(float(x)));
  else if constexpr (Op == UnaryOp::Erfc) return M(erfc_fast(float(x)));
  else return log_fast(x);
}

// sin/cos/tan reduce their argument exactly below a limit only: blocks with larger finite lanes take
// the float-in-double functions (sin_wide...) below kTrigMax and libm above, lane by lane. The FMA
// builds' native float functions have the limit kTrigMaxF, and a cheaper reduction for blocks with all
// lanes below kTrigSmallF (trig_small: the same bound, but its result may differ from the other
// path's in the last bit, as SLEEF's per-vector choice of reduction).
template <UnaryOp Op>
constexpr bool has_fallback() {
  return Op == UnaryOp::Sin || Op == UnaryOp::Cos || Op == UnaryOp::Tan;
}
template <UnaryOp Op, typename M>
constexpr M trig_limit() {
  if constexpr (std::is_same_v<M, float>) return kTrigMaxF;
  else return M(kTrigMax);
}
template <typename M>
LUCID_VM bool trig_big(M x) {
  const M ax = abs_(x);
  return ax >= M(kTrigMax) && ax != Lim<M>::inf;
}
template <UnaryOp Op, typename M>
M trig_libm(M x) {
  if constexpr (Op == UnaryOp::Sin) return std::sin(x);
  else if constexpr (Op == UnaryOp::Cos) return std::cos(x);
  else return std::tan(x);
}
template <UnaryOp Op, typename M>
LUCID_VM M trig_wide(M x) {
  if constexpr (std::is_same_v<M, double>) return apply_vec<Op, M>(x);
  else if constexpr (Op == UnaryOp::Sin) return sin_wide(x);
  else if constexpr (Op == UnaryOp::Cos) return cos_wide(x);
  else return tan_wide(x);
}
#if defined(__FMA__)
template <UnaryOp Op>
LUCID_VM float trig_small(float x) {
  if constexpr (Op == UnaryOp::Sin) return sin_nf<true>(x);
  else if constexpr (Op == UnaryOp::Cos) return cos_nf<true>(x);
  else return tan_nf<true>(x);
}
#endif

// The loop (a UnaryLoop of loops.h) for T = float/double and half/bfloat16 (computed in float).
// Contiguous float/double runs go straight through in blocks; strided runs and half/bfloat16 through
// a small buffer so the math loop stays contiguous. Unnamed namespace: only isa_loops.cpp includes
// this header, once per ISA, and each ISA's copy must stay its own.
namespace {
// erfinv's out-of-range lanes (|y| > 0.99) are rare but spread out: a uniform input on (-1, 1) has one
// in nearly every block of 1024, but in only 8% of the chunks of 8. A block holding one keeps
// apply_fast's results and redoes the chunks of 8 that hold one, gathered into a buffer so that the
// full version runs as one loop (the same results: erfinv_fast is erfinv in its range). The chunk
// tests are a vectorised pass of byte flags, then branch-free appends (a test and a branch per chunk
// cost as much as the math saved). Uniform input, 1M harness: 0.92 ns per element (chunks of 16: 1.00,
// of 4: 0.98; the whole block redone: 1.62; erfinv alone 1.04, erfinv_fast 0.58).
template <UnaryOp Op>
constexpr bool redo_by_chunk() {
  return Op == UnaryOp::Erfinv;
}
template <UnaryOp Op, typename M>
void redo_chunks(const M* x, M* o, int64_t m) {  // o != x holds apply_fast(x); m <= 1024
  constexpr int64_t C = 8;
  alignas(64) M in[1024], out[1024];
  alignas(64) uint8_t bad[1024 + C];
  int16_t at[1024 / C];
  for (int64_t i = 0; i < m; ++i) bad[i] = uint8_t(!fast_ok<Op, M>(x[i]));
  for (int64_t i = m; i < m + C; ++i) bad[i] = 0;
  int64_t nb = 0;
  for (int64_t c = 0; c < m; c += C) {  // every chunk is copied; nb moves past the bad ones
    uint64_t b;
    std::memcpy(&b, bad + c, C);
    if (m - c >= C)
      for (int64_t i = 0; i < C; ++i) in[nb * C + i] = x[c + i];
    else
      for (int64_t i = 0; i < C; ++i) in[nb * C + i] = c + i < m ? x[c + i] : M(0);
    at[nb] = int16_t(c);
    nb += b != 0;
  }
  for (int64_t i = 0; i < nb * C; ++i) out[i] = apply_vec<Op, M>(in[i]);
  for (int64_t k = 0; k < nb; ++k) {
    const int64_t c = at[k], n = m - c < C ? m - c : C;
    for (int64_t i = 0; i < n; ++i) o[c + i] = out[k * C + i];
  }
}

// The fast version over a block, o = apply_fast(x) lane by lane (o may be x), and, with `test`, whether
// every lane is in its range: the fused loop, or for AVX-512 erfc its table kernel (vmath_erfc_table.h:
// a hand-written vector kernel whose coefficients vpermt2ps picks; the same bits as apply_fast).
template <UnaryOp Op, typename M>
bool fast_block(const M* x, M* o, int64_t m, bool test) {
#if defined(__AVX512F__) && defined(__FMA__)
  if constexpr (Op == UnaryOp::Erfc && std::is_same_v<M, float>) return erfc_tab_block(x, o, m);
#endif
  int32_t all = 1;
  if (test) {
    for (int64_t i = 0; i < m; ++i) {
      all &= int32_t(fast_ok<Op, M>(x[i]));
      o[i] = apply_fast<Op, M>(x[i]);
    }
  } else {
    for (int64_t i = 0; i < m; ++i) o[i] = apply_fast<Op, M>(x[i]);
  }
  return all;
}
// erfc on the FMA builds: apply_fast is erfc itself below 4.5, so a block with lanes beyond keeps it and
// redoes those lanes alone with the tail (the double code and its division).
template <UnaryOp Op>
constexpr bool redo_by_lane() {
#if defined(__FMA__)
  return Op == UnaryOp::Erfc;
#else
  return false;
#endif
}
template <UnaryOp Op, typename M>
void redo_lanes(const M* x, M* o, int64_t m) {  // o != x holds apply_fast(x)
#if defined(__FMA__)
  if constexpr (Op == UnaryOp::Erfc && std::is_same_v<M, float>)
    for (int64_t i = 0; i < m; ++i) o[i] = erfc_fast_ok(x[i]) ? o[i] : erfc_tail(x[i]);
#endif
}

// Hand-written AVX-512 kernels that take whole blocks (o may be x): tanh (vmath_exp.h, with the table
// of vmath_tanh_table.h), asin and acos (vmath_trig.h), atanh (vmath_hyp.h).
template <UnaryOp Op, typename M>
constexpr bool has_block_kernel() {
#if defined(__AVX512F__) && defined(__FMA__)
  return std::is_same_v<M, float> && (Op == UnaryOp::Tanh || Op == UnaryOp::Asin || Op == UnaryOp::Acos ||
                                       Op == UnaryOp::Atanh);
#else
  return false;
#endif
}
template <UnaryOp Op>
void block_kernel(const float* x, float* o, int64_t m) {
#if defined(__AVX512F__) && defined(__FMA__)
  if constexpr (Op == UnaryOp::Tanh) tanh_run(x, o, m);
  else if constexpr (Op == UnaryOp::Asin || Op == UnaryOp::Acos) asin_acos_run<Op == UnaryOp::Acos>(x, o, m);
  else if constexpr (Op == UnaryOp::Atanh) atanh_run(x, o, m);
#endif
}

template <UnaryOp Op, typename M>
void run_block(const M* x, M* o, int64_t m) {  // o may be x (in place)
  if constexpr (has_block_kernel<Op, M>()) {
    block_kernel<Op>(x, o, m);
    return;
  }
  // The range tests are and/max-reductions (they vectorise). Out of place, they run in the same pass as
  // the cheap version (a separate pass costs 10-15% of a trig function), which is redone below when a
  // lane is out of its range; in place, x must stay intact until the choice is made: a pass first.
  if constexpr (has_fast<Op>()) {
    constexpr bool redo_part = redo_by_chunk<Op>() || redo_by_lane<Op>();
    auto redo = [&](const M* xs) {
      if constexpr (redo_by_chunk<Op>()) redo_chunks<Op, M>(xs, o, m);
      else redo_lanes<Op, M>(xs, o, m);
    };
    if (o != x) {
      if (fast_block<Op, M>(x, o, m, true)) return;
      if constexpr (redo_part) {
        redo(x);
        return;
      }
    } else {
      int32_t all = 1;
      for (int64_t i = 0; i < m; ++i) all &= int32_t(fast_ok<Op, M>(x[i]));
      if (all) {
        fast_block<Op, M>(x, o, m, false);
        return;
      }
      if constexpr (redo_part) {
        alignas(64) M t[1024];
        for (int64_t i = 0; i < m; ++i) t[i] = x[i];
        fast_block<Op, M>(t, o, m, false);
        redo(t);
        return;
      }
    }
  }
  if constexpr (has_fallback<Op>()) {
    using I = typename Lim<M>::I;
#if defined(__FMA__)
    if constexpr (std::is_same_v<M, float>) {
      if (o != x) {  // |x| < kTrigSmallF everywhere (NaN and inf fail the test)
        int32_t mx = 0;
        for (int64_t i = 0; i < m; ++i) {
          const int32_t a = f2i(x[i]) & 0x7fffffff;
          mx = a > mx ? a : mx;
          o[i] = trig_small<Op>(x[i]);
        }
        if (mx < f2i(kTrigSmallF)) return;
      }
    }
#endif
    I mx = 0;  // the largest finite |x| (on the bits: an integer max-reduction vectorises)
    for (int64_t i = 0; i < m; ++i) {
      const I a = to_bits(x[i]) & ~(I(1) << (sizeof(M) * 8 - 1));
      const I f = a < to_bits(Lim<M>::inf) ? a : I(0);
      mx = f > mx ? f : mx;
    }
#if defined(__FMA__)
    if constexpr (std::is_same_v<M, float>) {
      if (mx < to_bits(kTrigSmallF)) {
        for (int64_t i = 0; i < m; ++i) o[i] = trig_small<Op>(x[i]);
        return;
      }
    }
#endif
    if (mx >= to_bits(trig_limit<Op, M>())) {
      for (int64_t i = 0; i < m; ++i) {
        const M v = x[i];
        o[i] = trig_big(v) ? trig_libm<Op>(v)
               : abs_(v) < trig_limit<Op, M>() ? apply_vec<Op, M>(v) : trig_wide<Op, M>(v);  // per lane
      }
      return;
    }
  }
  for (int64_t i = 0; i < m; ++i) o[i] = apply_vec<Op, M>(x[i]);
}

template <UnaryOp Op, typename T, typename M>
void unary_loop(char** ptrs, const int64_t* strides, int64_t n) {
  constexpr int64_t kBlock = 1024;
  if constexpr (std::is_same_v<T, M>) {
    if (strides[0] == sizeof(T) && strides[1] == sizeof(T)) {
      T* o = reinterpret_cast<T*>(ptrs[0]);
      const T* x = reinterpret_cast<const T*>(ptrs[1]);
      for (int64_t b = 0; b < n; b += kBlock) run_block<Op, M>(x + b, o + b, n - b < kBlock ? n - b : kBlock);
      return;
    }
  }
  alignas(64) M buf[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = n - b < kBlock ? n - b : kBlock;
    const char* src = ptrs[1] + b * strides[1];
    char* dst = ptrs[0] + b * strides[0];
    for (int64_t i = 0; i < m; ++i) buf[i] = M(*reinterpret_cast<const T*>(src + i * strides[1]));
    run_block<Op, M>(buf, buf, m);
    for (int64_t i = 0; i < m; ++i) *reinterpret_cast<T*>(dst + i * strides[0]) = T(buf[i]);
  }
}
}  // namespace

}  // namespace lucid::cpu::vmath
