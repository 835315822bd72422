"""Op-table entries: the special functions (lucid.special and the top-level i0 / igamma / igammac).
The engine ops are checked here against float64 references (power series on the samples' small
arguments); their gradients with respect to the first operand of igamma/igammac/zeta do not exist
(as in PyTorch), so those three are gradchecked in test_special.py for the second operand only.
Airy Ai, the Bessel J/Y/K functions, the spherical j0 and the orthogonal polynomials have no
derivatives at all (as in PyTorch): their references are power series (exact to float64 on the
samples' arguments) and NumPy's orthogonal-polynomial series."""
import math

import numpy as np
import pytest

import lucid
from op_table import OpInfo, binary_samples, wide
from op_table_binary import _float_out, _torch2
from op_table_unary import _fl, _uentry, REAL_B


def _bessel_i(n, x, scaled=False):
    """I_n(x) (n = 0, 1) by its power series sum (x/2)^(2k+n) / (k! (k+n)!), exact to float64 for |x| <= 4."""
    x = np.asarray(x, dtype=np.float64)
    h = x / 2
    term = h ** n / math.factorial(n)
    s = term.copy()
    for k in range(1, 40):
        term = term * h * h / (k * (k + n))
        s = s + term
    return s * np.exp(-np.abs(x)) if scaled else s


def _erfc(x):
    return np.vectorize(math.erfc, otypes=[np.float64])(np.asarray(x, dtype=np.float64))


def _erfcx(x):
    x = np.asarray(x, dtype=np.float64)
    return np.exp(x * x) * _erfc(x)


def _ndtri(p):
    p = np.asarray(p, dtype=np.float64)
    inside = (p > 0) & (p < 1)
    q = np.where(inside, p, 0.5)
    x = np.zeros_like(q)
    for _ in range(60):   # Newton on ndtr(x) = p
        x = x - (0.5 * _erfc(-x / math.sqrt(2)) - q) / (np.exp(-x * x / 2) / math.sqrt(2 * math.pi))
    x = np.where(inside, x, np.nan)
    return np.where(p == 0, -np.inf, np.where(p == 1, np.inf, x))


def _log_ndtr(x):
    return np.log(0.5 * _erfc(-np.asarray(x, dtype=np.float64) / math.sqrt(2)))


def _igamma_p(a, x):
    """P(a, x) = x^a e^-x / Gamma(a + 1) sum_k x^k / ((a+1)...(a+k)) (a > 0 or x > 0)."""
    a, x = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    with np.errstate(all="ignore"):
        lg = np.vectorize(math.lgamma, otypes=[np.float64])(a + 1)
        pre = np.exp(a * np.log(np.where(x > 0, x, 1.0)) - x - lg)
        term = np.ones_like(a)
        s = term.copy()
        for k in range(1, 80):
            term = term * x / (a + k)
            s = s + term
        p = np.where(x > 0, pre * s, 0.0)
        p = np.where((a == 0) & (x > 0), 1.0, p)
        return np.where((a == 0) & (x == 0), np.nan, p)


def _zeta(x, q):
    """Hurwitz zeta by Euler-Maclaurin: 30 terms, the integral and three Bernoulli corrections."""
    x, q = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(q, dtype=np.float64))
    with np.errstate(all="ignore"):
        m = 30 + q
        s = sum((k + q) ** -x for k in range(30))
        s = s + m ** (1 - x) / (x - 1) + 0.5 * m ** -x + x / 12 * m ** (-x - 1)
        s = s - x * (x + 1) * (x + 2) / 720 * m ** (-x - 3)
        s = s + x * (x + 1) * (x + 2) * (x + 3) * (x + 4) / 30240 * m ** (-x - 5)
        return np.where(x == 1, np.inf, np.where(x < 1, np.nan, s))   # (Cephes: the pole, no continuation)


_EULER = 0.57721566490153286061


def _series(term0, ratio, kmax=60):
    """sum_k t_k with t_0 = term0 and t_k = t_(k-1) ratio(k), plus the terms' running index."""
    t = np.asarray(term0, dtype=np.float64)
    s = t.copy()
    for k in range(1, kmax):
        t = t * ratio(k)
        s = s + t
    return s


def _harmonic_series(x, n, sign):
    """sum_k (psi(k+1) + psi(k+n+1) + 2 gamma) sign^k (x/2)^(2k) / (k! (k+n)!) (DLMF 10.8.1, 10.31.1)."""
    q = (np.asarray(x, dtype=np.float64) / 2) ** 2
    t = np.full_like(q, 1.0 / math.factorial(n))
    hk, hkn = 0.0, sum(1.0 / j for j in range(1, n + 1))
    s = t * (hk + hkn)
    for k in range(1, 60):
        t = t * sign * q / (k * (k + n))
        hk, hkn = hk + 1.0 / k, hkn + 1.0 / (k + n)
        s = s + t * (hk + hkn)
    return s


def _bessel_j(n, x):
    h = np.asarray(x, dtype=np.float64) / 2
    return _series(h ** n / math.factorial(n), lambda k: -h * h / (k * (k + n)))


def _bessel_y(n, x):
    """Y0 = 2/pi ((ln(x/2) + gamma) J0 - S/2), Y1 = 2/pi ln(x/2) J1 - 2 / (pi x) - x / (2 pi) (S - 2 gamma sum);
    -inf at 0, NaN below."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        h = np.where(x > 0, x / 2, 1.0)
        if n == 0:
            v = 2 / math.pi * ((np.log(h) + _EULER) * _bessel_j(0, 2 * h) - _harmonic_series(2 * h, 0, -1.0) / 2)
        else:
            v = (2 / math.pi * np.log(h) * _bessel_j(1, 2 * h) - 1 / (math.pi * h)
                 - h / math.pi * (_harmonic_series(2 * h, 1, -1.0) - 2 * _EULER * _bessel_j(1, 2 * h) / h))
        return np.where(x > 0, v, np.where(x == 0, -np.inf, np.nan))


def _bessel_k(n, x, scaled=False):
    """K0 = -(ln(x/2) + gamma) I0 + S/2, K1 = 1/x + ln(x/2) I1 - x/4 (S - 2 gamma sum); inf at 0, NaN below."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        h = np.where(x > 0, x / 2, 1.0)
        if n == 0:
            v = -(np.log(h) + _EULER) * _bessel_i(0, 2 * h) + _harmonic_series(2 * h, 0, 1.0) / 2
        else:
            v = (1 / (2 * h) + np.log(h) * _bessel_i(1, 2 * h)
                 - h / 2 * (_harmonic_series(2 * h, 1, 1.0) - 2 * _EULER * _bessel_i(1, 2 * h) / h))
        if scaled:
            v = v * np.exp(2 * h)
        return np.where(x > 0, v, np.where(x == 0, np.inf, np.nan))


def _airy_ai(x):
    """Ai(0) f - |Ai'(0)| g, f and g the Maclaurin series of the Airy equation's even/odd solutions, on
    |x| <= 2.5; beyond (the integer samples), where the series cancel, mpmath on the distinct values."""
    x = np.asarray(x, dtype=np.float64)
    c = x ** 3
    f = _series(np.ones_like(x), lambda k: c / ((3 * k - 1) * 3 * k), 80)
    g = _series(x, lambda k: c / (3 * k * (3 * k + 1)), 80)
    v = np.array(0.355028053887817239260 * f - 0.258819403792806798405 * g)
    far = np.abs(x) > 2.5
    if far.any():
        mpmath = pytest.importorskip("mpmath")  # installed with torch (sympy's dependency)
        vals = {u: float(mpmath.airyai(u)) for u in np.unique(x[far])}
        v[far] = [vals[u] for u in x[far]]
    return v


def _sinc_j0(x):
    x = np.asarray(x, dtype=np.float64)
    return np.where(x == 0, 1.0, np.sin(x) / np.where(x == 0, 1.0, x))


def _poly_ref(kind, shifted=False):
    """P_n(x) for the truncated order n (0 for n < 0) by NumPy's series of the basis function e_n;
    Chebyshev U_n = 2 (T_n + T_(n-2) + ...) (T_0 once), V_n = U_n - U_(n-1), W_n = U_n + U_(n-1)."""
    P = np.polynomial
    val = {"t": P.chebyshev.chebval, "h": P.hermite.hermval, "he": P.hermite_e.hermeval,
           "l": P.laguerre.lagval, "p": P.legendre.legval}

    def basis(m):
        return np.eye(m + 1)[m]

    def one(x, m):
        if m < 0:
            return np.zeros_like(x)
        if kind in val:
            return val[kind](x, basis(m))

        def u(j):
            if j < 0:
                return np.zeros_like(x)
            c = np.zeros(j + 1)
            c[j % 2::2] = 2.0
            if j % 2 == 0:
                c[0] = 1.0
            return P.chebyshev.chebval(x, c)
        return {"u": u(m), "v": u(m) - u(m - 1), "w": u(m) + u(m - 1)}[kind]

    def ref(x, n, out, **_):
        x, n = np.broadcast_arrays(wide(x, out), np.trunc(wide(n, out)))
        if shifted:
            x = 2 * x - 1
        r = np.zeros(x.shape)
        for m in np.unique(n):
            sel = n == m
            r[sel] = one(x[sel], int(m))
        return r
    return ref


def _ref2(fn):
    def ref(a, b, out, **_):
        return fn(wide(a, out), wide(b, out))
    return ref


def _special(name):
    return lambda a, name=name: getattr(lucid.special, name)(a)


def _torch_special(name):
    return lambda torch, a, name=name: getattr(torch.special, name)(a)


_LOOSE = {"float32": (2e-5, 1e-6)}


def _sentry(name, ref, kind="default", differentiable=True):
    e = _uentry(name, ref, REAL_B, _fl, kind=kind, cuda=False, differentiable=differentiable, op=_special(name),
                variants={}, tol=_LOOSE)
    e.torch_op = _torch_special(name)
    return e


OPS = [
    _uentry("i0", lambda x: _bessel_i(0, x), REAL_B, _fl, cuda=False, tol=_LOOSE),
    _sentry("i0e", lambda x: _bessel_i(0, x, scaled=True)),
    _sentry("i1", lambda x: _bessel_i(1, x)),
    _sentry("i1e", lambda x: _bessel_i(1, x, scaled=True)),
    _sentry("erfcx", _erfcx),
    _sentry("ndtri", _ndtri, kind="prob"),
    _sentry("log_ndtr", _log_ndtr),
    OpInfo("igamma", lambda a, b: lucid.igamma(a, b), _ref2(_igamma_p), _float_out, REAL_B, binary_samples,
           torch_op=_torch2("igamma"), variants={"method": lambda a, b: a.igamma(b),
                                                  "gammainc": lambda a, b: lucid.special.gammainc(a, b)},
           kinds=("positive", "positive"), promotes=True, cuda=False, differentiable=False, tol=_LOOSE),
    OpInfo("igammac", lambda a, b: lucid.igammac(a, b), _ref2(lambda a, x: 1 - _igamma_p(a, x)), _float_out, REAL_B,
           binary_samples, torch_op=_torch2("igammac"),
           variants={"method": lambda a, b: a.igammac(b), "gammaincc": lambda a, b: lucid.special.gammaincc(a, b)},
           kinds=("positive", "positive"), promotes=True, cuda=False, differentiable=False, tol=_LOOSE),
    OpInfo("zeta", lambda a, b: lucid.special.zeta(a, b), _ref2(_zeta), _float_out, REAL_B, binary_samples,
           torch_op=lambda torch, a, b: torch.special.zeta(a, b), kinds=("ge1", "positive"), promotes=True,
           cuda=False, differentiable=False, tol=_LOOSE),
    _sentry("airy_ai", _airy_ai, differentiable=False),
    _sentry("bessel_j0", lambda x: _bessel_j(0, x), differentiable=False),
    _sentry("bessel_j1", lambda x: _bessel_j(1, x), differentiable=False),
    _sentry("bessel_y0", lambda x: _bessel_y(0, x), kind="positive", differentiable=False),
    _sentry("bessel_y1", lambda x: _bessel_y(1, x), kind="positive", differentiable=False),
    _sentry("modified_bessel_k0", lambda x: _bessel_k(0, x), kind="positive", differentiable=False),
    _sentry("modified_bessel_k1", lambda x: _bessel_k(1, x), kind="positive", differentiable=False),
    _sentry("scaled_modified_bessel_k0", lambda x: _bessel_k(0, x, True), kind="positive", differentiable=False),
    _sentry("scaled_modified_bessel_k1", lambda x: _bessel_k(1, x, True), kind="positive", differentiable=False),
    _sentry("spherical_bessel_j0", _sinc_j0, differentiable=False),
]


def _poly_entry(name, ref):
    """x from [-2, 2] (integers from [-9, 9]), n from [1.25, 3.25] (integers from [1, 9]): truncated orders
    1..9 on both sides of |x| = 1 (the trigonometric forms above order 4 to 8 for integer n)."""
    return OpInfo(name, lambda a, b, name=name: getattr(lucid.special, name)(a, b), ref, _float_out, REAL_B,
                  binary_samples, torch_op=lambda torch, a, b, name=name: getattr(torch.special, name)(a, b),
                  kinds=("default", "ge1"), promotes=True, cuda=False, differentiable=False, tol=_LOOSE)


OPS += [
    _poly_entry("chebyshev_polynomial_t", _poly_ref("t")),
    _poly_entry("chebyshev_polynomial_u", _poly_ref("u")),
    _poly_entry("chebyshev_polynomial_v", _poly_ref("v")),
    _poly_entry("chebyshev_polynomial_w", _poly_ref("w")),
    _poly_entry("shifted_chebyshev_polynomial_t", _poly_ref("t", shifted=True)),
    _poly_entry("shifted_chebyshev_polynomial_u", _poly_ref("u", shifted=True)),
    _poly_entry("shifted_chebyshev_polynomial_v", _poly_ref("v", shifted=True)),
    _poly_entry("shifted_chebyshev_polynomial_w", _poly_ref("w", shifted=True)),
    _poly_entry("hermite_polynomial_h", _poly_ref("h")),
    _poly_entry("hermite_polynomial_he", _poly_ref("he")),
    _poly_entry("laguerre_polynomial_l", _poly_ref("l")),
    _poly_entry("legendre_polynomial_p", _poly_ref("p")),
]
