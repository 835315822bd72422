// Compiled once per ISA (CMake sets LUCID_ISA to baseline/avx2/avx512 and the matching -m flags).
// Fills that ISA's slot of the loop tables declared in loops.h.
#include "backend/cpu/arith_loops.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/loops.h"
#include "backend/cpu/vmath_binary.h"
#include "backend/cpu/vmath_unary.h"

#include <utility>

#ifndef LUCID_ISA
#error "LUCID_ISA must be defined"
#endif

namespace lucid::cpu {
namespace LUCID_ISA {

// vmath's loop after arith_simd.h's fast paths (pow's special scalar exponents: PyTorch's bits).
template <BinaryOp Op, typename T, typename M>
void vmath_binary_loop(char** ptrs, const int64_t* strides, int64_t n, const Scalar& alpha) {
  if constexpr (arith::has_fast_binary<Op, T>()) {
    if (arith::fast_binary<Op, T>(ptrs, strides, n)) return;
  }
  vmath::binary_loop<Op, T, M>(ptrs, strides, n, alpha);
}

template <BinaryOp Op, typename T>
constexpr BinaryLoop binary_entry() {
  using M = typename OpMath<T>::type;
  if constexpr (!binary_supported<Op, M>()) return nullptr;
  else if constexpr (vmath::has_vec_binary<Op, M>()) return &vmath_binary_loop<Op, T, M>;  // vmath_binary.h
  else return &binary_loop<Op, T>;
}

template <typename T, size_t... I>
BinaryLoop pick_binary_ext(BinaryOp op, std::index_sequence<I...>) {
  static constexpr BinaryLoop table[] = {binary_entry<BinaryOp(I), T>()...};
  return table[int(op)];
}

template <typename T>
BinaryLoop pick_binary(BinaryOp op) {
  return pick_binary_ext<T>(op, std::make_index_sequence<kNumBinaryOps>{});
}

BinaryLoop binary(BinaryOp op, Dtype d) {
  if (d == Dtype::C64 || d == Dtype::C128) return generic_complex_binary_loop(op, d);  // (loops.h)
  return dispatch_dtype(d, [&]<typename T>() { return pick_binary<T>(op); });
}
CastLoop cast(Dtype to, Dtype from) {
  return dispatch_dtype(to, [&]<typename To>() {
    return dispatch_dtype(from, [&]<typename From>() -> CastLoop { return &cast_loop<To, From>; });
  });
}
UnaryLoop unary(UnaryOp op, Dtype d) {
  return dispatch_dtype(d, [&]<typename T>() -> UnaryLoop {
    if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128>) return nullptr;
    else if constexpr (std::is_same_v<T, bool>) {  // sign and bitwise_not only
      if (op == UnaryOp::Sign) return &unary_loop<UnaryOp::Sign, bool>;
      if (op == UnaryOp::BitwiseNot) return &unary_loop<UnaryOp::BitwiseNot, bool>;
      return nullptr;
    } else return dispatch_unary(op, [&]<UnaryOp Op>() -> UnaryLoop {
      using M = typename OpMath<T>::type;
      if constexpr ((std::is_same_v<M, float> || std::is_same_v<M, double>) && vmath::has_vec<Op, M>())
        return &vmath::unary_loop<Op, T, M>;  // vectorisable float/double math (vmath_unary.h)
      else return &unary_loop<Op, T>;
    });
  });
}

SumLoop sum(Dtype d) {
  return dispatch_dtype(d, [&]<typename T>() -> SumLoop { return &sum_loop<T>; });
}

template <typename T>
void clamp_loop(char** p, const int64_t* s, int64_t n, bool has_lo, bool has_hi) {
  if (has_lo && has_hi) arith::clamp_run<T, true, true>(p, s, n);
  else if (has_lo) arith::clamp_run<T, true, false>(p, s, n);
  else arith::clamp_run<T, false, true>(p, s, n);
}
ClampLoop clamp(Dtype d) {
  return dispatch_dtype(d, [&]<typename T>() -> ClampLoop {
    if constexpr (std::is_same_v<T, c64> || std::is_same_v<T, c128> || std::is_same_v<T, bool>) return nullptr;
    else return &clamp_loop<T>;
  });
}

}  // namespace LUCID_ISA


namespace {
#define LUCID_STR2(x) #x
#define LUCID_ISA_ENUM_baseline Isa::Baseline
#define LUCID_ISA_ENUM_avx2 Isa::AVX2
#define LUCID_ISA_ENUM_avx512 Isa::AVX512
#define LUCID_CAT(a, b) a##b
#define LUCID_ISA_ENUM(x) LUCID_CAT(LUCID_ISA_ENUM_, x)
const bool registered = (register_isa_loops(LUCID_ISA_ENUM(LUCID_ISA), {&LUCID_ISA::binary, &LUCID_ISA::cast, &LUCID_ISA::sum, &LUCID_ISA::unary}),
                         register_clamp_loops(LUCID_ISA_ENUM(LUCID_ISA), &LUCID_ISA::clamp), true);
}  // namespace

}  // namespace lucid::cpu
