#pragma once
// Elementwise binary arithmetic with broadcasting and PyTorch's type promotion. A Python scalar
// operand is a weak type: it never widens a tensor's dtype within its category.
#include <optional>
#include <string>
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

// The binary family beyond add/sub/mul/div (ops/binary_math.cpp). Operands are tensors or Python
// scalars (weak types); results follow PyTorch's promotion for each op.
inline Tensor floor_divide(const Operand& a, const Operand& b) { return binary(BinaryOp::FloorDiv, a, b); }
// rounding_mode: none (true division), "trunc" or "floor".
Tensor div(const Operand& a, const Operand& b, const std::optional<std::string>& rounding_mode);
inline Tensor remainder(const Operand& a, const Operand& b) { return binary(BinaryOp::Remainder, a, b); }
inline Tensor fmod(const Operand& a, const Operand& b) { return binary(BinaryOp::Fmod, a, b); }
inline Tensor pow(const Operand& a, const Operand& b) { return binary(BinaryOp::Pow, a, b); }
Tensor float_power(const Operand& a, const Operand& b);
inline Tensor atan2(const Operand& a, const Operand& b) { return binary(BinaryOp::Atan2, a, b); }
inline Tensor hypot(const Operand& a, const Operand& b) { return binary(BinaryOp::Hypot, a, b); }
inline Tensor maximum(const Operand& a, const Operand& b) { return binary(BinaryOp::Maximum, a, b); }
inline Tensor minimum(const Operand& a, const Operand& b) { return binary(BinaryOp::Minimum, a, b); }
inline Tensor fmax(const Operand& a, const Operand& b) { return binary(BinaryOp::Fmax, a, b); }
inline Tensor fmin(const Operand& a, const Operand& b) { return binary(BinaryOp::Fmin, a, b); }
inline Tensor logaddexp(const Operand& a, const Operand& b) { return binary(BinaryOp::LogAddExp, a, b); }
inline Tensor logaddexp2(const Operand& a, const Operand& b) { return binary(BinaryOp::LogAddExp2, a, b); }
inline Tensor copysign(const Operand& a, const Operand& b) { return binary(BinaryOp::Copysign, a, b); }
inline Tensor xlogy(const Operand& a, const Operand& b) { return binary(BinaryOp::Xlogy, a, b); }
inline Tensor heaviside(const Operand& a, const Operand& b) { return binary(BinaryOp::Heaviside, a, b); }
inline Tensor bitwise_and(const Operand& a, const Operand& b) { return binary(BinaryOp::BitAnd, a, b); }
inline Tensor bitwise_or(const Operand& a, const Operand& b) { return binary(BinaryOp::BitOr, a, b); }
inline Tensor bitwise_xor(const Operand& a, const Operand& b) { return binary(BinaryOp::BitXor, a, b); }
inline Tensor bitwise_left_shift(const Operand& a, const Operand& b) { return binary(BinaryOp::Shl, a, b); }
inline Tensor bitwise_right_shift(const Operand& a, const Operand& b) { return binary(BinaryOp::Shr, a, b); }
// start + weight * (end - start); weight a tensor or a scalar.
Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight);
// self + value * t1 * t2, self + value * t1 / t2.
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = Scalar::from_int(1));
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = Scalar::from_int(1));
// A complex tensor from real and imaginary parts / from magnitude and angle.
Tensor complex(const Tensor& real, const Tensor& imag);
Tensor polar(const Tensor& abs, const Tensor& angle);

namespace binary_detail {
// Shared by the binary ops (binary.cpp, binary_math.cpp, compare.cpp).
Device pick_device(const Operand& a, const Operand& b, const char* op);
Tensor materialize(const Operand& x, Dtype dt, Device dev, const Shape& shape);
const Shape& shape_of(const Operand& x);
// The ops after Div: name, computation dtype (checks included), backward.
const char* ext_name(BinaryOp op);
Dtype ext_dtype(BinaryOp op, const Operand& a, const Operand& b, Dtype result);
void record_ext(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out, const Scalar* sa, const Scalar* sb);
}  // namespace binary_detail

}  // namespace lucid
