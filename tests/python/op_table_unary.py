"""Op-table entries: the rest of the unary family (neg, sgn, logit, erfinv, lgamma, digamma, polygamma, round,
sinc, is*, nan_to_num, clamp, logical_not, bitwise_not, real/imag/angle/conj, complex unary). See
op_table.py for the fields of an entry."""
import math
import operator

import numpy as np

import lucid
from helpers import ALL_DTYPES, COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES
from op_table import OpInfo, Sample, expected_scalar_result, unary_samples, wide

BOOL = lucid.bool_
REAL = [d for d in ALL_DTYPES if d is not BOOL and not d.is_complex]   # numeric real dtypes
REAL_B = [d for d in ALL_DTYPES if not d.is_complex]                   # with bool
NO_BOOL = [d for d in ALL_DTYPES if d is not BOOL]


def _floating(d):
    return d if (d.is_floating_point or d.is_complex) else lucid.get_default_dtype()


def _same(d, **_):
    return d


def _to_bool(d, **_):
    return BOOL


def _vec(fn):
    def f(x):
        x = np.asarray(x, dtype=np.float64)
        return np.vectorize(fn, otypes=[np.float64])(x) if x.ndim else np.asarray(fn(float(x)))
    return f


# ---- references in float64

def _lgamma1(v):
    if math.isinf(v):
        return math.inf
    if v <= 0 and v == math.floor(v):
        return math.inf
    return math.lgamma(v)


_erf_vec = _vec(math.erf)


def _erfinv(y):
    y = np.asarray(y, dtype=np.float64)
    x = np.zeros_like(y)
    for _ in range(40):   # Newton from 0 converges monotonically (erf is concave on each side)
        x = x - (_erf_vec(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    with np.errstate(invalid="ignore"):
        x = np.where(np.abs(y) == 1, np.sign(y) * np.inf, x)
        return np.where(np.abs(y) > 1, np.nan, x)


_BERN = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510]   # B2, B4, ..., B16


def _digamma(x):
    x = np.asarray(x, dtype=np.float64).copy()
    x0 = x.copy()
    with np.errstate(all="ignore"):
        pole = (x <= 0) & (x == np.floor(x))
        neg = x < 0
        out = np.where(neg, -np.pi / np.tan(np.pi * x), 0.0)   # psi(x) = psi(1 - x) - pi / tan(pi x)
        x = np.where(neg, 1 - x, x)
        for _ in range(25):
            small = x < 25
            out = np.where(small, out - 1 / x, out)
            x = np.where(small, x + 1, x)
        series = np.log(x) - 0.5 / x
        for k, b in enumerate(_BERN, start=1):
            series -= b / (2 * k * x ** (2 * k))
        out = out + series
        out = np.where(pole, np.nan, out)
        return np.where(x0 == 0, np.copysign(np.inf, -x0), out)   # PyTorch: -inf at +0, +inf at -0


def _polygamma(n, x):
    """psi^(n)(x) for n >= 1, x > 0: recurrence up to 30, then the asymptotic series."""
    x = np.asarray(x, dtype=np.float64).copy()
    sign = (-1) ** (n + 1)
    acc = np.zeros_like(x)
    for _ in range(30):
        small = x < 30
        acc = np.where(small, acc + sign * math.factorial(n) / x ** (n + 1), acc)
        x = np.where(small, x + 1, x)
    s = math.factorial(n - 1) / x ** n + math.factorial(n) / (2 * x ** (n + 1))
    for k, b in enumerate(_BERN, start=1):
        s = s + b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * x ** (2 * k + n))
    return acc + sign * s


def _round_dec(x, decimals):
    p = 10.0 ** abs(decimals)
    return np.round(x / p) * p if decimals < 0 else np.round(x * p) / p


def _logit(x, eps=None):
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    with np.errstate(all="ignore"):
        return np.log(x / (1 - x))


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _sinc(x):
    return np.sinc(x)


# ---- entry builders

def _uentry(name, np_fn, dtypes, out_dtype, kind="default", cuda=True, differentiable=True, torch_name=None,
            variants=None, samples=unary_samples, tol=None, op=None):
    call = op or (lambda a, name=name, **kw: getattr(lucid, name)(a, **kw))
    tname = torch_name or name

    def ref(a, out, **kw):
        with np.errstate(all="ignore"):
            if out is BOOL:
                return np_fn(a, **kw)
            # complex -> real ops (abs, angle, imag) see the complex values
            return np_fn(a.astype(np.complex128) if np.iscomplexobj(a) else wide(a, out), **kw)

    if variants is None:
        variants = {"method": lambda a, name=name, **kw: getattr(a, name)(**kw)}
    return OpInfo(name, call, ref, out_dtype, dtypes, samples,
                  torch_op=lambda torch, a, tname=tname, **kw: getattr(torch, tname)(a, **kw),
                  variants=variants, kinds=(kind,), cuda=cuda, differentiable=differentiable, tol=tol or {})


def _fl(d, **_):
    return _floating(d)


def _samples_with(kwargs_list):
    def samples(d):
        out = []
        for kw in kwargs_list:
            out += [Sample(s.shapes, dict(kw), s.kind) for s in unary_samples(d)]
        return out
    return samples


_LOOSE_F32 = {"float32": (1e-4, 1e-5)}

OPS = [
    # UnaryOp math (CUDA from the shared definition in unary_math.h)
    _uentry("neg", np.negative, NO_BOOL, _same,
            variants={"method": lambda a: a.neg(), "negative": lambda a: lucid.negative(a), "operator": operator.neg,
                      "method_negative": lambda a: a.negative()}),
    _uentry("erfinv", _erfinv, REAL_B, _fl, kind="unit", tol=_LOOSE_F32),
    _uentry("lgamma", _vec(_lgamma1), REAL_B, _fl, tol=_LOOSE_F32),
    _uentry("digamma", _digamma, REAL_B, _fl, kind="positive", tol=_LOOSE_F32),
    _uentry("sinc", _sinc, REAL_B, _fl, tol=_LOOSE_F32),
    _uentry("deg2rad", np.deg2rad, REAL_B, _fl),
    _uentry("rad2deg", np.rad2deg, REAL_B, _fl),
    _uentry("round", np.round, REAL, _same),
    _uentry("bitwise_not", lambda x: np.invert(x), [BOOL] + INT_DTYPES, _same, differentiable=False,
            variants={"method": lambda a: a.bitwise_not(), "operator": operator.invert}),
    _uentry("sgn", lambda x: x if x.dtype == bool else np.sign(x), REAL_B, _same,
            variants={"method": lambda a: a.sgn()}),
    # parameterised / CPU-only ops
    _uentry("round_decimals", lambda x, decimals: _round_dec(x, decimals), FLOAT_DTYPES, _same, cuda=False,
            samples=_samples_with([{"decimals": 2}, {"decimals": -1}]),
            op=lambda a, **kw: lucid.round(a, **kw), torch_name="round",
            variants={"method": lambda a, **kw: a.round(**kw)}),
    _uentry("logit", _logit, REAL_B, _fl, kind="prob", cuda=False, tol=_LOOSE_F32),
    _uentry("logit_eps", lambda x, eps: _logit(x, eps), REAL_B, _fl, kind="unit", cuda=False,
            samples=_samples_with([{"eps": 0.2}]), op=lambda a, **kw: lucid.logit(a, **kw), torch_name="logit",
            variants={"method": lambda a, **kw: a.logit(**kw)}, tol=_LOOSE_F32),
    OpInfo("polygamma", lambda a, n: lucid.polygamma(n, a), lambda a, out, n: _polygamma(n, wide(a, out)), _fl,
           REAL_B, _samples_with([{"n": 1}, {"n": 2}, {"n": 3}]),
           torch_op=lambda torch, a, n: torch.polygamma(n, a), variants={"method": lambda a, n: a.polygamma(n)},
           kinds=("positive",), cuda=False, tol={"float32": (1e-4, 1e-5), "float64": (1e-8, 1e-10)}),
    _uentry("logical_not", lambda x: np.logical_not(x), ALL_DTYPES, _to_bool, cuda=False, differentiable=False),
    _uentry("isnan", np.isnan, ALL_DTYPES, _to_bool, cuda=False, differentiable=False),
    _uentry("isinf", np.isinf, ALL_DTYPES, _to_bool, cuda=False, differentiable=False),
    _uentry("isfinite", np.isfinite, ALL_DTYPES, _to_bool, cuda=False, differentiable=False),
    _uentry("isneginf", np.isneginf, REAL_B, _to_bool, cuda=False, differentiable=False),
    _uentry("isposinf", np.isposinf, REAL_B, _to_bool, cuda=False, differentiable=False),
    _uentry("signbit", np.signbit, REAL_B, _to_bool, cuda=False, differentiable=False),
    _uentry("isreal", np.isreal, ALL_DTYPES, _to_bool, cuda=False, differentiable=False),
    _uentry("nan_to_num", lambda x: x, ALL_DTYPES, _same, cuda=False),
    _uentry("angle", lambda x: np.angle(x) if np.iscomplexobj(x) else np.where(x < 0, np.pi, 0.0), ALL_DTYPES,
            lambda d, **_: _floating(d) if not d.is_complex else (lucid.float32 if d is lucid.complex64
                                                                   else lucid.float64), cuda=False),
    _uentry("conj", np.conj, REAL_B, _same, cuda=False, torch_name="conj_physical",
            variants={"method": lambda a: a.conj(), "conj_physical": lambda a: lucid.conj_physical(a)}),
]


# ---- clamp / clip

def _clamp_kwargs(d):
    if d.is_floating_point:
        return [dict(min=-0.5, max=0.5), dict(min=0.25), dict(max=-0.25), dict(min=1.0, max=-1.0)]
    if d is lucid.uint8:   # (a negative bound wraps around in uint8, as PyTorch: see test_unary.py)
        return [dict(min=1, max=4), dict(min=2), dict(max=5), dict(min=1.5, max=2.5)]
    return [dict(min=-3, max=4), dict(min=2), dict(max=-1), dict(min=-1.5, max=2.5)]


def _clamp_scalar_samples(d):
    out = []
    for kw in _clamp_kwargs(d):
        out += [Sample(s.shapes, dict(kw), s.kind) for s in unary_samples(d)]
    return out


def _clamp_out(d, min=None, max=None):  # noqa: A002
    for s in (min, max):
        if s is not None:
            d = expected_scalar_result(d, s)
    return d


def _clamp_ref(a, out, min=None, max=None):  # noqa: A002
    x = wide(a, out)
    if min is not None:
        x = np.maximum(x, min)
    if max is not None:
        x = np.minimum(x, max)
    return x


def _clamp3_samples(d):
    return [
        Sample(((3, 4), (3, 4), (3, 4))),
        Sample(((2, 3, 4), (2, 3, 4), (2, 3, 4))),
        Sample(((3, 4), (4,), (3, 1)), kind="broadcast"),
        Sample(((4,), (3, 4), ()), kind="broadcast"),
        Sample(((3, 1), (1, 4), (3, 4)), kind="broadcast"),
        Sample(((), (), ()), kind="zerodim"),
        Sample(((0, 3), (3,), (0, 1)), kind="empty"),
        Sample(((67, 129), (129,), (67, 1)), kind="large"),
    ]


def _clamp3_ref(a, lo, hi, out):
    return np.minimum(np.maximum(wide(a, out), wide(lo, out)), wide(hi, out))


def _clamp2_samples(d):
    return [Sample(s.shapes[:2], kind=s.kind) for s in _clamp3_samples(d)]


OPS += [
    OpInfo("clamp", lambda a, **kw: lucid.clamp(a, **kw), _clamp_ref, _clamp_out, REAL, _clamp_scalar_samples,
           torch_op=lambda torch, a, **kw: torch.clamp(a, **kw),
           variants={"method": lambda a, **kw: a.clamp(**kw), "clip": lambda a, **kw: lucid.clip(a, **kw),
                     "method_clip": lambda a, **kw: a.clip(**kw)},
           kinds=("default",), cuda=False),
    OpInfo("clamp_tensor", lambda a, lo, hi: lucid.clamp(a, lo, hi), _clamp3_ref, _same, REAL, _clamp3_samples,
           torch_op=lambda torch, a, lo, hi: torch.clamp(a, lo, hi),
           variants={"method": lambda a, lo, hi: a.clamp(lo, hi), "kw": lambda a, lo, hi: lucid.clamp(a, min=lo, max=hi),
                     "clip": lambda a, lo, hi: lucid.clip(a, lo, hi)},
           kinds=("default", "default", "default"), cuda=False),
    OpInfo("clamp_min", lambda a, lo: lucid.clamp_min(a, lo),
           lambda a, lo, out: np.maximum(wide(a, out), wide(lo, out)), _same, REAL, _clamp2_samples,
           torch_op=lambda torch, a, lo: torch.clamp_min(a, lo),
           variants={"method": lambda a, lo: a.clamp_min(lo), "clamp": lambda a, lo: lucid.clamp(a, min=lo)},
           kinds=("default", "default"), cuda=False),
    OpInfo("clamp_max", lambda a, hi: lucid.clamp_max(a, hi),
           lambda a, hi, out: np.minimum(wide(a, out), wide(hi, out)), _same, REAL, _clamp2_samples,
           torch_op=lambda torch, a, hi: torch.clamp_max(a, hi),
           variants={"method": lambda a, hi: a.clamp_max(hi), "clamp": lambda a, hi: lucid.clamp(a, max=hi)},
           kinds=("default", "default"), cuda=False),
]


# ---- complex inputs (CPU only: the complex kernels have no CUDA twin yet). Gradients are checked
# against torch in test_unary.py (gradcheck here is real float64 only).

def _centry(name, np_fn, out_dtype=_same, tol=None, **kw):
    e = _uentry(name, np_fn, COMPLEX_DTYPES, out_dtype, cuda=False, tol=tol, **kw)
    e.name = name + "_complex"
    return e


def _real_of(d, **_):
    return lucid.float32 if d is lucid.complex64 else (lucid.float64 if d is lucid.complex128 else d)


_CTOL = {"complex64": (2e-5, 2e-5)}
OPS += [
    _centry("exp", np.exp), _centry("exp2", np.exp2), _centry("expm1", np.expm1, tol=_CTOL),
    _centry("log", np.log), _centry("log2", np.log2), _centry("log10", np.log10), _centry("log1p", np.log1p),
    _centry("sqrt", np.sqrt), _centry("rsqrt", lambda x: 1 / np.sqrt(x)), _centry("reciprocal", lambda x: 1 / x),
    _centry("sin", np.sin), _centry("cos", np.cos), _centry("tan", np.tan, tol=_CTOL),
    _centry("asin", np.arcsin), _centry("acos", np.arccos), _centry("atan", np.arctan),
    _centry("sinh", np.sinh), _centry("cosh", np.cosh), _centry("tanh", np.tanh, tol=_CTOL),
    _centry("asinh", np.arcsinh), _centry("acosh", np.arccosh), _centry("atanh", np.arctanh),
    _centry("sigmoid", _sigmoid, tol=_CTOL), _centry("square", np.square), _centry("neg", np.negative),
    _centry("sinc", np.sinc, tol=_CTOL), _centry("sgn", lambda x: x / np.abs(x)),
    _centry("conj", np.conj, torch_name="conj_physical",
            variants={"method": lambda a: a.conj(), "conj_physical": lambda a: lucid.conj_physical(a)}),
    _centry("abs", np.abs, out_dtype=_real_of, variants={"method": lambda a: a.abs(), "operator": abs}),
    _uentry("real", np.real, ALL_DTYPES, _real_of, cuda=False, variants={"prop": lambda a: a.real}),
    _uentry("imag", np.imag, COMPLEX_DTYPES, _real_of, cuda=False, variants={"prop": lambda a: a.imag}),
]
for _e in OPS:
    if _e.name in ("real", "imag", "conj"):   # conj of a real tensor is the tensor itself
        _e.view = True
