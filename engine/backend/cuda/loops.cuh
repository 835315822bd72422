#pragma once
// Device-side building blocks of the CUDA kernels (mirrors cpu/loops.h): value conversion and
// binary arithmetic with the CPU's exact semantics, and the elementwise launcher. Host code
// builds an Iter (common/iter.h), turns it into an OffsetCalc (coalesced shape + byte strides,
// passed by value), and launches a contiguous (vectorised) or a strided grid-stride kernel.
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "backend/common/iter.h"
#include "backend/cuda/cuda_common.cuh"
#include "backend/kernels/elementwise.h"
#include "core/dtype.h"

namespace lucid::cuda {

// Arithmetic type of a storage type: half and bfloat16 compute in float.
template <typename T> struct OpMath { using type = T; };
template <> struct OpMath<Half> { using type = float; };
template <> struct OpMath<BFloat16> { using type = float; };

template <typename T>
constexpr bool is_complex_v = std::is_same_v<T, c64> || std::is_same_v<T, c128>;
template <typename T>
constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Floating -> integer the way x86 does it (and so the CPU backend): narrow integers go through
// int32 and wrap; NaN and values out of the int32/int64 range give the "integer indefinite"
// INT_MIN. The GPU's own conversion would saturate instead.
template <typename To, typename F>
LUCID_HD inline To float_to_int(F v) {
  if constexpr (sizeof(To) < 8) {
    const int32_t r = (v >= F(-2147483648.0) && v < F(2147483648.0)) ? int32_t(v) : INT32_MIN;
    return To(r);
  } else {
    const int64_t r = (v >= F(-9223372036854775808.0) && v < F(9223372036854775808.0)) ? int64_t(v) : INT64_MIN;
    return To(r);
  }
}

// Value conversion, identical to cpu::convert: complex -> real drops the imaginary part, anything
// -> bool tests for non-zero, floating -> integer as on x86 (float_to_int).
template <typename To, typename From>
LUCID_HD inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_complex_v<From>) return v.re != 0 || v.im != 0;
    else return typename OpMath<From>::type(v) != typename OpMath<From>::type(0);
  } else if constexpr (is_complex_v<From>) {
    if constexpr (is_complex_v<To>) return To(v);
    else return convert<To>(v.re);
  } else if constexpr (is_complex_v<To>) {
    using R = decltype(To().re);
    return To(R(typename OpMath<From>::type(v)), R(0));
  } else if constexpr (is_reduced_float_v<To>) {
    return To(float(typename OpMath<From>::type(v)));
  } else if constexpr (is_reduced_float_v<From>) {
    return convert<To>(float(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return float_to_int<To>(v);
  } else {
    return To(v);
  }
}

// Arithmetic rounded step by step: nvcc would otherwise contract a - alpha * b (and the complex
// products) into FMAs, which the CPU build does not do, and results would differ in the last bit.
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
// x * y + z rounded once (add/sub with alpha, as PyTorch's fmadd and lucid's CPU loops on FMA CPUs)
__device__ __forceinline__ float fma_rn(float x, float y, float z) { return __fmaf_rn(x, y, z); }
__device__ __forceinline__ double fma_rn(double x, double y, double z) { return __fma_rn(x, y, z); }
__device__ __forceinline__ float div_rn(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double div_rn(double a, double b) { return __ddiv_rn(a, b); }
template <typename R>
__device__ __forceinline__ Complex<R> add_rn(Complex<R> a, Complex<R> b) {
  return {add_rn(a.re, b.re), add_rn(a.im, b.im)};
}
template <typename R>
__device__ __forceinline__ Complex<R> sub_rn(Complex<R> a, Complex<R> b) {
  return {sub_rn(a.re, b.re), sub_rn(a.im, b.im)};
}
template <typename R>
__device__ __forceinline__ Complex<R> mul_rn(Complex<R> a, Complex<R> b) {
  return {sub_rn(mul_rn(a.re, b.re), mul_rn(a.im, b.im)), add_rn(mul_rn(a.re, b.im), mul_rn(a.im, b.re))};
}
// Smith's algorithm, step for step as Complex::operator/ in core/complex.h.
template <typename R>
__device__ __forceinline__ Complex<R> div_rn(Complex<R> a, Complex<R> b) {
  if (fabs(b.re) >= fabs(b.im)) {
    if (b.re == R(0) && b.im == R(0)) return {div_rn(a.re, fabs(b.re)), div_rn(a.im, fabs(b.im))};
    const R r = div_rn(b.im, b.re), d = add_rn(b.re, mul_rn(b.im, r));
    return {div_rn(add_rn(a.re, mul_rn(a.im, r)), d), div_rn(sub_rn(a.im, mul_rn(a.re, r)), d)};
  }
  const R r = div_rn(b.re, b.im), d = add_rn(b.im, mul_rn(b.re, r));
  return {div_rn(add_rn(mul_rn(a.re, r), a.im), d), div_rn(sub_rn(mul_rn(a.im, r), a.re), d)};
}

// Same semantics as cpu::apply_binary.
template <BinaryOp Op, typename T>
__device__ __forceinline__ T apply_binary(T a, T b, T alpha) {
  if constexpr (std::is_same_v<T, bool>) {
    if constexpr (Op == BinaryOp::Add) return a || (alpha && b);
    else if constexpr (Op == BinaryOp::Mul) return a && b;
    else return a;  // Sub/Div on bool are rejected by the op
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (Op == BinaryOp::Add) return a + alpha * b;
    else if constexpr (Op == BinaryOp::Sub) return a - alpha * b;
    else if constexpr (Op == BinaryOp::Mul) return a * b;
    else return b == 0 ? T(0) : T(a / b);
  } else {
    if constexpr (std::is_floating_point_v<T> && Op == BinaryOp::Add) return fma_rn(alpha, b, a);
    else if constexpr (std::is_floating_point_v<T> && Op == BinaryOp::Sub) return fma_rn(-alpha, b, a);
    else if constexpr (Op == BinaryOp::Add) return add_rn(a, mul_rn(alpha, b));
    else if constexpr (Op == BinaryOp::Sub) return sub_rn(a, mul_rn(alpha, b));
    else if constexpr (Op == BinaryOp::Mul) return mul_rn(a, b);
    else return div_rn(a, b);
  }
}

// Division by a loop-invariant divisor with a multiply and a shift (Granlund-Montgomery, as in
// PyTorch's IntDivider); valid for dividends and divisors below 2^31.
struct FastDivider {
  uint32_t divisor = 1, magic = 1, shift = 0;
  FastDivider() = default;
  explicit FastDivider(uint32_t d) : divisor(d) {
    for (shift = 0; shift < 32; ++shift)
      if ((uint64_t(1) << shift) >= d) break;
    const uint64_t one = 1;
    magic = uint32_t(((one << 32) * ((one << shift) - d)) / d + 1);
  }
  __device__ __forceinline__ uint32_t div(uint32_t n) const { return (__umulhi(n, magic) + n) >> shift; }
};

struct PlainDivider {
  uint64_t divisor = 1;
  PlainDivider() = default;
  explicit PlainDivider(uint64_t d) : divisor(d) {}
  __device__ __forceinline__ uint64_t div(uint64_t n) const { return n / divisor; }
};

// Linear index -> byte offsets of N operands over a coalesced shape (dim 0 innermost).
// Index = uint32_t when every count is below 2^31 (fast division), else uint64_t.
template <int N, typename Index>
struct OffsetCalc {
  using Divider = std::conditional_t<std::is_same_v<Index, uint32_t>, FastDivider, PlainDivider>;
  int ndim = 1;
  Divider size[kMaxIterDims];
  int64_t strides[kMaxIterDims][N];  // bytes

  OffsetCalc() = default;
  // shape/strides innermost first, as Iter stores them.
  OffsetCalc(int nd, const int64_t* shape, const int64_t (*st)[kMaxIterDims]) : ndim(nd) {
    for (int d = 0; d < nd; ++d) {
      size[d] = Divider(Index(shape[d] > 0 ? shape[d] : 1));
      for (int k = 0; k < N; ++k) strides[d][k] = st[k][d];
    }
  }

  __device__ __forceinline__ void get(Index linear, int64_t (&off)[N]) const {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = 0;
    if (ndim == 1) {
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] = int64_t(linear) * strides[0][k];
      return;
    }
#pragma unroll
    for (int d = 0; d < kMaxIterDims; ++d) {
      if (d == ndim) break;
      const Index q = Index(size[d].div(linear));
      const Index r = linear - q * Index(size[d].divisor);
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += int64_t(r) * strides[d][k];
      linear = q;
    }
  }
};

template <typename Index, int N>
OffsetCalc<N, Index> make_offset_calc(const Iter<N>& it) {
  return OffsetCalc<N, Index>(it.ndim, it.shape, it.strides);
}

// VEC consecutive values, loaded and stored as one aligned access.
template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Vec {
  T val[VEC];
};

template <typename T, typename... Ts>
constexpr size_t max_size_of() {
  if constexpr (sizeof...(Ts) == 0) return sizeof(T);
  else return sizeof(T) > max_size_of<Ts...>() ? sizeof(T) : max_size_of<Ts...>();
}

template <int VEC, typename F, typename Out, typename... In>
__device__ __forceinline__ void apply_vec(const F& f, Out* out, Vec<In, VEC>... in) {
  Vec<Out, VEC> r;
#pragma unroll
  for (int j = 0; j < VEC; ++j) r.val[j] = f(in.val[j]...);
  *reinterpret_cast<Vec<Out, VEC>*>(out) = r;
}

// All operands dense with one layout: VEC elements per thread and step, then a scalar tail.
template <int VEC, typename F, typename Out, typename... In>
__global__ void contiguous_kernel(int64_t n, F f, Out* __restrict__ out, const In* __restrict__... in) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t nvec = n / VEC;
  for (int64_t v = tid; v < nvec; v += step)
    apply_vec<VEC>(f, out + v * VEC, reinterpret_cast<const Vec<In, VEC>*>(in)[v]...);
  for (int64_t i = nvec * VEC + tid; i < n; i += step) out[i] = f(in[i]...);
}

template <typename Out, typename... In, typename F, size_t... K>
__device__ __forceinline__ void apply_strided(const F& f, char* out, const char* const* in, const int64_t* off,
                                              std::index_sequence<K...>) {
  *reinterpret_cast<Out*>(out + off[0]) = f(*reinterpret_cast<const In*>(in[K] + off[K + 1])...);
}

template <typename Index, typename F, typename Out, typename... In>
__global__ void strided_kernel(OffsetCalc<1 + sizeof...(In), Index> oc, Index n, F f, char* out, const In*... in) {
  const char* ins[sizeof...(In) + 1] = {reinterpret_cast<const char*>(in)..., nullptr};
  const Index step = Index(gridDim.x) * blockDim.x;
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[1 + sizeof...(In)];
    oc.get(i, off);
    apply_strided<Out, In...>(f, out, ins, off, std::index_sequence_for<In...>{});
  }
}

inline bool aligned_to(const void* p, size_t a) { return reinterpret_cast<uintptr_t>(p) % a == 0; }

template <typename Out, typename... In, typename F, size_t... K>
void launch_elementwise_impl(const Iter<1 + sizeof...(In)>& it, const F& f, int dev, std::index_sequence<K...>) {
  const int64_t n = it.numel;
  cudaStream_t s = stream(dev);
  constexpr int kVec = int(16 / max_size_of<Out, In...>()) > 1 ? int(16 / max_size_of<Out, In...>()) : 1;
  if (it.contiguous) {
    Out* out = reinterpret_cast<Out*>(it.base[0]);
    bool vec_ok = kVec > 1 && aligned_to(out, sizeof(Out) * kVec);
    ((vec_ok = vec_ok && aligned_to(it.base[K + 1], sizeof(In) * kVec)), ...);
    if (vec_ok) {
      contiguous_kernel<kVec, F, Out, In...><<<blocks_for((n + kVec - 1) / kVec), kThreads, 0, s>>>(
          n, f, out, reinterpret_cast<const In*>(it.base[K + 1])...);
    } else {
      contiguous_kernel<1, F, Out, In...><<<blocks_for(n), kThreads, 0, s>>>(
          n, f, out, reinterpret_cast<const In*>(it.base[K + 1])...);
    }
  } else if (n < (int64_t(1) << 31)) {
    strided_kernel<uint32_t, F, Out, In...><<<blocks_for(n), kThreads, 0, s>>>(
        make_offset_calc<uint32_t>(it), uint32_t(n), f, it.base[0], reinterpret_cast<const In*>(it.base[K + 1])...);
  } else {
    strided_kernel<uint64_t, F, Out, In...><<<blocks_for(n), kThreads, 0, s>>>(
        make_offset_calc<uint64_t>(it), uint64_t(n), f, it.base[0], reinterpret_cast<const In*>(it.base[K + 1])...);
  }
  LUCID_CUDA_LAUNCH_CHECK();
}

// out[i] = f(in_0[i], ...) over the Iter's operands (ops[0] is Out). Runs on device `dev`'s
// stream; the caller holds a DeviceGuard for `dev`.
template <typename Out, typename... In, typename F>
void launch_elementwise(const Iter<1 + sizeof...(In)>& it, const F& f, int dev) {
  if (it.numel == 0) return;
  launch_elementwise_impl<Out, In...>(it, f, dev, std::index_sequence_for<In...>{});
}

}  // namespace lucid::cuda
