#pragma once
// The special functions beyond the unary family's math (PyTorch's torch.special and the top-level
// i0 / igamma / igammac): modified Bessel functions i0, i0e, i1, i1e; erfcx; ndtri; log_ndtr; the
// regularized incomplete gamma functions igamma(a, x) = P(a, x) and igammac(a, x) = Q(a, x); the
// Hurwitz zeta(x, q); Airy Ai, the Bessel functions J0, J1, Y0, Y1, K0, K1 (and e^x K0, e^x K1), the
// spherical Bessel j0 and the orthogonal polynomials of (x, n) (Chebyshev T/U/V/W and their shifted
// forms, Hermite H/He, Laguerre L, Legendre P; n truncated toward zero, 0 for n < 0), these last
// without derivatives (as in PyTorch: their backward raises NotImplementedError). Real dtypes:
// bool/integers promote to the default float dtype, complex raises NotImplementedError. Binary ones
// broadcast, take Python scalars on either side, promote as PyTorch's result_type.
#include "backend/kernels/special.h"
#include "ops/binary.h"

namespace lucid {

Tensor special(SpecialOp op, const Tensor& x);
Tensor special_(SpecialOp op, const Tensor& self);  // in place (a floating self)

Tensor special_binary(SpecialBinaryOp op, const Operand& a, const Operand& b);
Tensor special_binary_(SpecialBinaryOp op, const Tensor& self, const Operand& other);  // in place

}  // namespace lucid
