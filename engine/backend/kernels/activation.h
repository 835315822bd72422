#pragma once
// Kernels of the activation functions (ops/activation.h): one fused elementwise forward per
// activation, and its derivatives g * f^(order)(x) (order 1: the backward; order 2: the backward's
// own vjp, so second derivatives are exact). float32 and float64; any strides.
#include <cstdint>

#include "backend/kernels/stub.h"
#include "tensor/tensor_impl.h"

namespace lucid {

enum class ActOp : uint8_t {
  LeakyRelu,   // a: negative_slope
  Elu,         // a: alpha, b: scale, c: input_scale (elu, selu, celu)
  Gelu,        // erf form
  GeluTanh,    // tanh approximation
  Silu,
  Mish,
  Softplus,    // a: beta, b: threshold
  Softsign,
  Softshrink,  // a: lambd
  Hardshrink,  // a: lambd
  Tanhshrink,
  Hardtanh,    // a: min_val, b: max_val (relu6 = hardtanh(0, 6))
  Hardsigmoid,
  Hardswish,
  LogSigmoid,
  Threshold,   // a: threshold, b: value
};

struct ActParams {
  double a = 0, b = 0, c = 0;
};

// out = f(x); out and x have one shape (out may be x itself: in place).
LUCID_DECLARE_KERNEL(activation_kernel, void (*)(ActOp op, const ActParams& p, const TensorImpl& out,
                                                 const TensorImpl& x))
// out = g * f^(order)(x), order 1 or 2; out, g and x have one shape.
LUCID_DECLARE_KERNEL(activation_backward_kernel, void (*)(ActOp op, const ActParams& p, int order,
                                                          const TensorImpl& out, const TensorImpl& g,
                                                          const TensorImpl& x))
// rrelu in training: noise (uniform [lower, upper) draws, contiguous) becomes 1 where x > 0;
// out = x * noise. out, noise and x have one shape.
LUCID_DECLARE_KERNEL(rrelu_kernel, void (*)(const TensorImpl& out, const TensorImpl& noise, const TensorImpl& x))

}  // namespace lucid
