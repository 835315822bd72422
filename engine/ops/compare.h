#pragma once
// The binary family's bool-result ops (comparisons, logical ops, isclose/allclose/equal) and where.
// Operands broadcast and promote as in binary.h (a Python scalar is a weak type); results are bool.
#include <optional>

#include "backend/kernels/compare.h"
#include "ops/binary.h"

namespace lucid {

Tensor compare(CompareOp op, const Operand& a, const Operand& b);
const char* compare_name(CompareOp op);

inline Tensor eq(const Operand& a, const Operand& b) { return compare(CompareOp::Eq, a, b); }
inline Tensor ne(const Operand& a, const Operand& b) { return compare(CompareOp::Ne, a, b); }
inline Tensor lt(const Operand& a, const Operand& b) { return compare(CompareOp::Lt, a, b); }
inline Tensor le(const Operand& a, const Operand& b) { return compare(CompareOp::Le, a, b); }
inline Tensor gt(const Operand& a, const Operand& b) { return compare(CompareOp::Gt, a, b); }
inline Tensor ge(const Operand& a, const Operand& b) { return compare(CompareOp::Ge, a, b); }
inline Tensor logical_and(const Operand& a, const Operand& b) { return compare(CompareOp::LogicalAnd, a, b); }
inline Tensor logical_or(const Operand& a, const Operand& b) { return compare(CompareOp::LogicalOr, a, b); }
inline Tensor logical_xor(const Operand& a, const Operand& b) { return compare(CompareOp::LogicalXor, a, b); }

// The values of a and b where cond (a bool tensor) is true / false; a and b promote together.
// Gradients flow to both branches.
Tensor where(const Tensor& cond, const Operand& a, const Operand& b);

// Elementwise |a - b| <= atol + rtol * |b| (a and b of one dtype, as PyTorch).
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
// Same shape and equal values (dtypes may differ, as torch.equal).
bool equal(const Tensor& a, const Tensor& b);
// Whether any element of a bool tensor is true (synchronises with its device).
bool any_true(const Tensor& mask);

}  // namespace lucid
