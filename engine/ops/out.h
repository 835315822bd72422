#pragma once
// out= fast paths (lucid/_out.py): an elementwise op written straight into a fitting `out`, no
// temporary. Each returns false (writing nothing) unless out is contiguous, non-empty, of the
// result's shape, dtype and device, shares no memory with an input, and no tensor requires grad
// under grad mode; the caller then runs PyTorch's checks (raising its errors for grad and overlap)
// and computes out of place and copies. The checks the fast path makes are what lets the caller
// skip its own (Python) checks before it: a call with out= costs about what one without does.
#include <initializer_list>

#include "ops/binary.h"
#include "ops/unary.h"

namespace lucid {

// Whether an out= call must go through autograd's checks: grad mode on and a tensor requiring grad.
bool out_needs_grad(std::initializer_list<const Tensor*> tensors);

// Floating inputs only (other dtypes promote or take the complex path: fall back).
bool unary_into(UnaryOp op, const Tensor& x, const Tensor& out);
// The same dtype checks and errors as binary(op, a, b, alpha).
bool binary_into(BinaryOp op, const Operand& a, const Operand& b, const Scalar& alpha, const Tensor& out);

// self <- result, an op computed out of place for the in-place form `name` (x.div_(), x.igamma_(), ...):
// PyTorch's rules (the broadcast shape must be self's, the result type castable to self's dtype).
Tensor write_result_(const Tensor& self, const Tensor& result, const char* name);

}  // namespace lucid
