"""lucid.special: PyTorch's torch.special. The modified Bessel functions i0/i0e/i1/i1e, erfcx, ndtri,
log_ndtr, zeta and the regularized incomplete gamma functions are engine ops (ops/special.h, with
their gradients), and so are Airy Ai, the Bessel functions J0/J1/Y0/Y1/K0/K1 (and scaled K0/K1), the
spherical j0 and the orthogonal polynomials of (input, n) (Chebyshev, shifted Chebyshev, Hermite,
Laguerre, Legendre), without gradients as in PyTorch (their backward raises); the rest are the op
library's functions under their torch.special names or thin compositions of them (ndtr, entr,
xlog1py, multigammaln)."""
import math

import lucid
from lucid import _C
from lucid._C import Tensor

_ENGINE = ("i0e", "i1", "i1e", "erfcx", "ndtri", "log_ndtr", "zeta", "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0",
           "bessel_y1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "spherical_bessel_j0", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
           "chebyshev_polynomial_v", "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
           "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")

__all__ = sorted(["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc",
                  "gammaln", "i0", "log1p", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
                  "modified_bessel_i1", "multigammaln", "ndtr", "polygamma", "psi", "round", "sinc", "softmax",
                  "xlog1py", "xlogy", *_ENGINE])

i0 = _C.i0
igamma, igammac = _C.igamma, _C.igammac


# engine ops bound as _C.special_<name> (their docstrings are in bindings/special.cpp)
for _name in _ENGINE:
    globals()[_name] = getattr(_C, "special_" + _name)


def gammainc(input, other):
    """Regularized lower incomplete gamma function P(input, other) (= lucid.igamma)."""
    return _C.igamma(input, other)


def gammaincc(input, other):
    """Regularized upper incomplete gamma function Q(input, other) (= lucid.igammac)."""
    return _C.igammac(input, other)


def _as_tensor(x):
    # a Python number as a 0-d tensor: it promotes with a tensor exactly as the number would
    return x if isinstance(x, Tensor) else lucid.tensor(x)


def ndtr(input):
    """Standard normal CDF: (1 + erf(x / sqrt(2))) / 2, as erfc(-x / sqrt(2)) / 2."""
    return lucid.erfc(input * -0.7071067811865476) * 0.5


def entr(input):
    """Elementwise entropy: -x log(x) for x > 0, 0 at 0, -inf for x < 0."""
    return lucid.where(input < 0, -math.inf, -lucid.xlogy(input, input))


def xlog1py(input, other):
    """x * log1p(y), 0 where x == 0 (unless y is NaN)."""
    x, y = _as_tensor(input), _as_tensor(other)
    if not (x.dtype.is_floating_point or y.dtype.is_floating_point):
        y = y.to(lucid.get_default_dtype())
    v = x * lucid.log1p(y)
    return lucid.where((x == 0) & ~lucid.isnan(y), 0.0, v)


def multigammaln(input, p):
    """Multivariate log-gamma of dimension p: p(p-1)/4 log(pi) + sum_j lgamma(x - j/2), j < p."""
    if not isinstance(p, int) or isinstance(p, bool) or p < 1:
        raise ValueError(f"special.multigammaln: p has to be a positive integer (got {p!r})")
    if not bool((input > (p - 1) / 2).all()):
        raise ValueError(f"special.multigammaln: all elements must be greater than (p-1)/2 = {(p - 1) / 2}")
    j = lucid.arange(p, dtype=input.dtype, device=input.device) * -0.5
    return lucid.lgamma(input.unsqueeze(-1) + j).sum(-1) + p * (p - 1) / 4 * math.log(math.pi)


def softmax(input, dim, *, dtype=None):
    """torch.special.softmax (= lucid.softmax)."""
    return lucid.nn.functional.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """torch.special.log_softmax (= lucid.log_softmax)."""
    return lucid.nn.functional.log_softmax(input, dim, dtype=dtype)


def logsumexp(input, dim, keepdim=False):
    """torch.special.logsumexp (= lucid.logsumexp)."""
    return lucid.logsumexp(input, dim, keepdim)


def polygamma(n, input):
    return lucid.polygamma(n, input)


def round(input, *, decimals=0):  # noqa: A001
    return lucid.round(input, decimals=decimals)


# the op library's functions under torch.special's names
for _name, _target in (("digamma", "digamma"), ("psi", "digamma"), ("erf", "erf"), ("erfc", "erfc"),
                       ("erfinv", "erfinv"), ("exp2", "exp2"), ("expit", "sigmoid"), ("expm1", "expm1"),
                       ("gammaln", "lgamma"), ("log1p", "log1p"), ("logit", "logit"), ("sinc", "sinc"),
                       ("xlogy", "xlogy")):
    globals()[_name] = getattr(lucid, _target)
modified_bessel_i0, modified_bessel_i1 = i0, i1

# out= on every function (PyTorch's semantics, lucid/_out.py)
from lucid import _out  # noqa: E402
_out.install(globals(), [n for n in __all__ if n not in ("softmax", "log_softmax")] + ["igamma", "igammac"],
             overlap=True)
