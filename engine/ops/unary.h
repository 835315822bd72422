#pragma once
// The unary family: math (exp, log, sin, tanh, sigmoid, abs, floor, erfinv, lgamma, ...) on real and
// complex dtypes, predicates (isnan, ..., logical_not), clamp, nan_to_num, logit, round, the complex
// views and parts (real, imag, angle, conj).
#include <optional>

#include "backend/kernels/elementwise.h"
#include "backend/kernels/unary_ext.h"
#include "ops/binary.h"
#include "tensor/tensor_impl.h"

namespace lucid {

// Floating-valued ops promote bool/integer inputs to the default float dtype (as PyTorch);
// abs, sign, square, relu, floor, ceil, trunc, frac, neg, round and bitwise_not keep integer dtypes.
// Complex inputs: the holomorphic ops (exp, log, sqrt, trig, ...) stay complex; abs gives the real
// dtype; the rest raise NotImplementedError (sign: use sgn).
Tensor unary(UnaryOp op, const Tensor& x);
const char* unary_name(UnaryOp op);

Tensor neg(const Tensor& x);          // bool: TypeError-free RuntimeError as PyTorch's `-` on bool
Tensor positive(const Tensor& x);     // x itself (bool refused)
Tensor sgn(const Tensor& x);          // sign for real dtypes, z / |z| for complex
Tensor bitwise_not(const Tensor& x);  // integers and bool
Tensor round(const Tensor& x, int64_t decimals = 0);
Tensor logit(const Tensor& x, std::optional<double> eps);
Tensor polygamma(int64_t n, const Tensor& x);

// Predicates: bool results, any dtype (isneginf/isposinf/signbit: real dtypes).
Tensor pred(PredOp op, const Tensor& x);
inline Tensor logical_not(const Tensor& x) { return pred(PredOp::LogicalNot, x); }
inline Tensor isnan(const Tensor& x) { return pred(PredOp::IsNan, x); }
inline Tensor isinf(const Tensor& x) { return pred(PredOp::IsInf, x); }
inline Tensor isfinite(const Tensor& x) { return pred(PredOp::IsFinite, x); }

// clamp(x, min, max): at least one bound; tensor bounds broadcast with x; the result dtype is
// result_type(x, min, max) (Python scalars are weak), bool results and complex refused.
Tensor clamp(const Tensor& x, std::optional<Operand> min, std::optional<Operand> max);
// nan/posinf/neginf: defaults 0, the dtype's largest and lowest finite values. Integers: a copy.
Tensor nan_to_num(const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf);

// Complex parts. real(x) of a real tensor is x; imag(x) of a real tensor raises. Both are views.
Tensor real(const Tensor& x);
Tensor imag(const Tensor& x);
Tensor angle(const Tensor& x);  // atan2(im, re); real inputs: 0 or pi (NaN kept), integers -> float

}  // namespace lucid
