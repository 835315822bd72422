#pragma once
// The activation functions of lucid.nn.functional (leaky_relu, elu/selu/celu, gelu, silu, mish,
// softplus, softsign, the shrinks, hardtanh/relu6, hardsigmoid, hardswish, logsigmoid, threshold)
// as one family of fused elementwise engine ops; rrelu, prelu and glu.
//
// Each forward's vjp is activation_backward (g * f'(x), an engine op); its own vjp is
// activation_backward at the next order, so second derivatives are exact. float16/bfloat16 compute
// in float32; integer and bool inputs raise NotImplementedError naming the op.
#include "backend/kernels/activation.h"
#include "tensor/tensor_impl.h"

namespace lucid {

const char* activation_name(ActOp op);

Tensor activation(ActOp op, const Tensor& x, const ActParams& p, const char* name = nullptr);
// In place: self = f(self). Returns self (version bumped; history rewritten under autograd).
Tensor activation_(ActOp op, const Tensor& self, const ActParams& p, const char* name = nullptr);
// g * f^(order)(x), order >= 1 (kernels for orders 1 and 2).
Tensor activation_backward(ActOp op, const Tensor& g, const Tensor& x, const ActParams& p, int order);

// Randomized leaky ReLU: training draws a slope per non-positive element uniformly from
// [lower, upper) (the default generator); eval uses (lower + upper) / 2.
Tensor rrelu(const Tensor& x, double lower, double upper, bool training);
Tensor rrelu_(const Tensor& self, double lower, double upper, bool training);
// x > 0 ? x : weight * x, weight a scalar or one value per channel (dim 1; dim 0 of a 1-d input).
Tensor prelu(const Tensor& x, const Tensor& weight);
// a * sigmoid(b) of the two halves of x along dim.
Tensor glu(const Tensor& x, int64_t dim);

}  // namespace lucid
