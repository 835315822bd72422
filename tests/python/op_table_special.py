"""Op-table entries: the special functions (lucid.special and the top-level i0 / igamma / igammac).
The engine ops are checked here against float64 references (power series on the samples' small
arguments); their gradients with respect to the first operand of igamma/igammac/zeta do not exist
(as in PyTorch), so those three are gradchecked in test_special.py for the second operand only."""
import math

import numpy as np

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


def _ref2(fn):
    def ref(a, b, out, **_):
        return fn(wide(a, out), wide(b, out))
    return ref


def _special(name):
    return lambda a, name=name: getattr(lucid.special, name)(a)


def _torch_special(name):
    return lambda torch, a, name=name: getattr(torch.special, name)(a)


_LOOSE = {"float32": (2e-5, 1e-6)}


def _sentry(name, ref, kind="default"):
    e = _uentry(name, ref, REAL_B, _fl, kind=kind, cuda=False, op=_special(name), variants={}, tol=_LOOSE)
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
]
