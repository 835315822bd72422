#pragma once
// Elementwise binary arithmetic with broadcasting and PyTorch's type promotion. A Python scalar
// operand is a weak type: it never widens a tensor's dtype within its category.
#include <variant>

#include "backend/kernels/elementwise.h"
#include "core/scalar.h"
#include "tensor/tensor_impl.h"

namespace lucid {

using Operand = std::variant<Tensor, Scalar>;

// Result dtype of a binary op over the two operands (before Div's int -> float rule).
Dtype result_type(const Operand& a, const Operand& b);

Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha = Scalar::from_int(1));
// In place: self op= other. Returns self (version bumped).
Tensor binary_(BinaryOp op, const Tensor& self, const Operand& other, const Scalar& alpha = Scalar::from_int(1));

inline Tensor add(const Operand& a, const Operand& b, const Scalar& alpha = Scalar::from_int(1)) { return binary(BinaryOp::Add, a, b, alpha); }
inline Tensor sub(const Operand& a, const Operand& b, const Scalar& alpha = Scalar::from_int(1)) { return binary(BinaryOp::Sub, a, b, alpha); }
inline Tensor mul(const Operand& a, const Operand& b) { return binary(BinaryOp::Mul, a, b); }
inline Tensor div(const Operand& a, const Operand& b) { return binary(BinaryOp::Div, a, b); }

void fill_(const Tensor& t, const Scalar& value);

}  // namespace lucid
