"""Op-table entries: the binary family beyond add/sub/mul/div (comparisons, logical and bitwise ops,
floor division and remainders, pow, atan2/hypot, maximum/minimum, logaddexp, copysign, xlogy,
heaviside, where, lerp, addcmul/addcdiv, float_power, complex/polar). See op_table.py for the fields
of an entry. New ops run on the CPU only (cuda=False)."""
import operator

import numpy as np

import lucid
from helpers import ALL_DTYPES, cast_ref
from op_table import OpInfo, Sample, binary_samples, unary_samples, wide, category  # noqa: F401

BOOL, F16, BF16, F32, F64 = lucid.bool_, lucid.float16, lucid.bfloat16, lucid.float32, lucid.float64
C64, C128 = lucid.complex64, lucid.complex128
INTS = [lucid.uint8, lucid.int8, lucid.int16, lucid.int32, lucid.int64]
FLOATS = [F16, BF16, F32, F64]
COMPLEX = [C64, C128]
REAL = [BOOL] + INTS + FLOATS
NUMERIC_REAL = INTS + FLOATS
NO_BOOL = INTS + FLOATS + COMPLEX


def _same(d, **_):
    return d


def _bool_out(d, **_):
    return BOOL


def _float_out(d, **_):
    return lucid.get_default_dtype() if category(d) <= 1 else d


def _calc(a, b, out):
    """Reference arrays in the wide type of the computation's dtype."""
    return wide(a, out), wide(b, out)


def _ref(fn):
    def ref(a, b, out, **_):
        A, B = _calc(a, b, out)
        with np.errstate(all="ignore"):
            return fn(A, B)
    return ref


def _logaddexp(A, B):
    """np.logaddexp, and PyTorch's complex form: max + log1p(exp(min - max)) ordered by real part."""
    if not np.iscomplexobj(A):
        return np.logaddexp(A, B)
    lt = A.real < B.real
    mn, mx = np.where(lt, A, B), np.where(lt, B, A)
    return mx + np.log1p(np.exp(mn - mx))


def _cmp_ref(fn):
    def ref(a, b, out, **_):
        # inputs are exact in their dtypes, so the comparison in complex128/float64 is the promoted one
        wide_t = np.complex128 if (np.iscomplexobj(a) or np.iscomplexobj(b)) else np.float64
        return fn(np.asarray(a).astype(wide_t), np.asarray(b).astype(wide_t))
    return ref


def _int_bits(out):
    return {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}[out.name]


def _floor_div(A, B):
    with np.errstate(all="ignore"):
        return np.floor_divide(A, B)


def _trunc_div_ref(a, b, out, **_):
    A, B = _calc(a, b, out)
    with np.errstate(all="ignore"):
        q = A / B
    if out in (F16, BF16):   # PyTorch rounds the quotient to the storage type before truncating
        q = cast_ref(q, out).astype(np.float64)
    return np.trunc(q)


def _pow_ref(a, b, out, **_):
    A, B = _calc(a, b, out)
    if category(out) == 1:
        B = B.astype(np.int64)
        pos = np.where(B >= 0, B, 0)
        r = np.power(A, pos)
        neg = np.where(A == 1, 1, np.where(A == -1, np.where(B % 2 == 0, 1, -1), 0))
        return np.where(B >= 0, r, neg)
    with np.errstate(all="ignore"):
        return np.power(A, B)


def _shl_ref(a, b, out, **_):
    A, B = _calc(a, b, out)
    bits = _int_bits(out)
    ok = (B >= 0) & (B < bits)
    sh = np.where(ok, B, 0).astype(np.uint64)
    r = (A.astype(np.int64).view(np.uint64) << sh).view(np.int64)
    return np.where(ok, r, 0)


def _shr_ref(a, b, out, **_):
    A, B = _calc(a, b, out)
    bits = _int_bits(out)
    ok = (B >= 0) & (B < bits)
    r = A >> np.where(ok, B, 0)
    return np.where(ok, r, np.where(A < 0, -1, 0))


def _maximum_ref(a, b, out, **_):
    if out is BOOL:
        return np.logical_or(a, b)
    A, B = _calc(a, b, out)
    return np.maximum(A, B)


def _minimum_ref(a, b, out, **_):
    if out is BOOL:
        return np.logical_and(a, b)
    A, B = _calc(a, b, out)
    return np.minimum(A, B)


def _heaviside_ref(a, b, out, **_):
    if out is BOOL:
        return np.where(a, a, b)
    A, B = _calc(a, b, out)
    return np.where(A == 0, B, (A > 0).astype(A.dtype))


def _bit_ref(np_fn, bool_fn):
    def ref(a, b, out, **_):
        if out is BOOL:
            return bool_fn(np.asarray(a, dtype=bool), np.asarray(b, dtype=bool))
        A, B = _calc(a, b, out)
        return np_fn(A, B)
    return ref


def _xlogy_ref(a, b, out, **_):
    A, B = _calc(a, b, out)
    with np.errstate(all="ignore"):
        r = A * np.log(B)
    return np.where(np.isnan(B), np.nan, np.where(A == 0, 0.0, r))


def _torch2(name):
    return lambda torch, a, b: getattr(torch, name)(a, b)


def _entry(name, ref, out_dtype, dtypes, kinds=("default", "default"), differentiable=True, promotes=True,
           method=True, operator_fn=None, alias=None, tol=None, torch_name=None, samples=binary_samples):
    variants = {}
    if method:
        variants["method"] = lambda a, b, name=name: getattr(a, name)(b)
    if operator_fn is not None:
        variants["operator"] = operator_fn
    if alias is not None:
        variants["alias"] = lambda a, b, alias=alias: getattr(lucid, alias)(a, b)
    return OpInfo(name, lambda a, b, name=name: getattr(lucid, name)(a, b), ref, out_dtype, dtypes, samples,
                  torch_op=_torch2(torch_name or name), variants=variants, kinds=kinds, promotes=promotes,
                  cuda=False, differentiable=differentiable, tol=tol or {})


# ---- comparisons and logical ops
_CMP = [
    ("eq", np.equal, operator.eq, None, ALL_DTYPES),
    ("ne", np.not_equal, operator.ne, "not_equal", ALL_DTYPES),
    ("lt", np.less, operator.lt, "less", REAL),
    ("le", np.less_equal, operator.le, "less_equal", REAL),
    ("gt", np.greater, operator.gt, "greater", REAL),
    ("ge", np.greater_equal, operator.ge, "greater_equal", REAL),
]
OPS = [_entry(n, _cmp_ref(f), _bool_out, dts, kinds=("small", "small"), differentiable=False, operator_fn=op,
              alias=al) for n, f, op, al, dts in _CMP]
OPS += [
    _entry("logical_and", _cmp_ref(lambda a, b: np.logical_and(a != 0, b != 0)), _bool_out, ALL_DTYPES,
           kinds=("small", "small"), differentiable=False),
    _entry("logical_or", _cmp_ref(lambda a, b: np.logical_or(a != 0, b != 0)), _bool_out, ALL_DTYPES,
           kinds=("small", "small"), differentiable=False),
    _entry("logical_xor", _cmp_ref(lambda a, b: np.logical_xor(a != 0, b != 0)), _bool_out, ALL_DTYPES,
           kinds=("small", "small"), differentiable=False),
]

# ---- bitwise
OPS += [
    _entry("bitwise_and", _bit_ref(np.bitwise_and, np.logical_and), _same, [BOOL] + INTS, differentiable=False,
           operator_fn=operator.and_),
    _entry("bitwise_or", _bit_ref(np.bitwise_or, np.logical_or), _same, [BOOL] + INTS, differentiable=False,
           operator_fn=operator.or_),
    _entry("bitwise_xor", _bit_ref(np.bitwise_xor, np.logical_xor), _same, [BOOL] + INTS, differentiable=False,
           operator_fn=operator.xor),
    _entry("bitwise_left_shift", _shl_ref, _same, INTS, differentiable=False, operator_fn=operator.lshift),
    _entry("bitwise_right_shift", _shr_ref, _same, INTS, differentiable=False, operator_fn=operator.rshift),
]

# ---- division family, pow
OPS += [
    _entry("floor_divide", _ref(_floor_div), _same, NUMERIC_REAL, kinds=("default", "nonzero"),
           differentiable=False, operator_fn=operator.floordiv),
    _entry("remainder", _ref(np.remainder), _same, NUMERIC_REAL, kinds=("default", "nonzero"),
           operator_fn=operator.mod),
    _entry("fmod", _ref(np.fmod), _same, NUMERIC_REAL, kinds=("default", "nonzero")),
    OpInfo("div_trunc", lambda a, b: lucid.div(a, b, rounding_mode="trunc"), _trunc_div_ref,
           _same, NUMERIC_REAL, binary_samples, torch_op=lambda torch, a, b: torch.div(a, b, rounding_mode="trunc"),
           variants={"method": lambda a, b: a.div(b, rounding_mode="trunc"),
                     "divide": lambda a, b: lucid.divide(a, b, rounding_mode="trunc")},
           kinds=("default", "nonzero"), promotes=True, cuda=False, differentiable=False),
    OpInfo("div_floor", lambda a, b: lucid.div(a, b, rounding_mode="floor"), _ref(_floor_div),
           _same, NUMERIC_REAL, binary_samples, torch_op=lambda torch, a, b: torch.div(a, b, rounding_mode="floor"),
           variants={"method": lambda a, b: a.div(b, rounding_mode="floor")},
           kinds=("default", "nonzero"), promotes=True, cuda=False, differentiable=False),
    _entry("pow", _pow_ref, _same, NO_BOOL, kinds=("positive", "small"), operator_fn=operator.pow,
           tol={"float16": (4e-3, 4e-3), "bfloat16": (3e-2, 3e-2), "float32": (2e-5, 1e-5)}),
    _entry("float_power", _ref(np.power), lambda d, **_: C128 if d.is_complex else F64, ALL_DTYPES,
           kinds=("positive", "small")),
]

# ---- floating functions of two arguments
OPS += [
    _entry("atan2", _ref(np.arctan2), _float_out, REAL, alias="arctan2"),
    _entry("hypot", _ref(np.hypot), _same, FLOATS),
    _entry("logaddexp", _ref(_logaddexp), _same, FLOATS + COMPLEX),
    _entry("logaddexp2", _ref(np.logaddexp2), _same, FLOATS),
    _entry("copysign", _ref(np.copysign), _float_out, REAL),
    _entry("xlogy", _xlogy_ref, _float_out, REAL, kinds=("default", "positive")),
    _entry("maximum", _maximum_ref, _same, REAL),
    _entry("minimum", _minimum_ref, _same, REAL),
    _entry("fmax", _maximum_ref, _same, REAL),
    _entry("fmin", _minimum_ref, _same, REAL),
    _entry("heaviside", _heaviside_ref, _same, REAL, differentiable=False),
    # the audit's additions (lucid/_more_ops.py)
    _entry("gcd", _ref(np.gcd), _same, INTS, differentiable=False),
    _entry("lcm", _ref(lambda a, b: np.abs(np.lcm(a, b))), _same, INTS, differentiable=False),
    _entry("nextafter", _ref(np.nextafter), _same, [F32, F64], differentiable=False),
    _entry("ldexp", _ref(lambda a, b: a * np.exp2(b)), _same, [F32, F64], kinds=("default", "small"), promotes=False),
]


# ---- where, lerp, addcmul, addcdiv (three inputs)

def ternary_samples(d):
    return [
        Sample(((3, 4), (3, 4), (3, 4))),
        Sample(((2, 3, 4), (2, 3, 4), (2, 3, 4))),
        Sample(((3, 4), (4,), (3, 1)), kind="broadcast"),
        Sample(((4,), (3, 4), ()), kind="broadcast"),
        Sample(((), (2, 3), (3,)), kind="broadcast"),
        Sample(((), (), ()), kind="zerodim"),
        Sample(((0, 3), (3,), (0, 3)), kind="empty"),
        Sample(((67, 129), (129,), (67, 1)), kind="large"),
    ]


def _cond(c):
    return c != 0 if c.dtype.is_complex else c > 0


def _where_ref(c, a, b, out, **_):
    c = np.asarray(c)
    return np.where(c != 0 if np.iscomplexobj(c) else c > 0, wide(a, out), wide(b, out))


def _lerp_ref(s, e, w, out, **_):
    S, E, W = wide(s, out), wide(e, out), wide(w, out)
    if out.is_complex:
        return S + W * (E - S)
    return np.where(np.abs(W) < 0.5, S + W * (E - S), E - (E - S) * (1 - W))


def _value(d):
    return 2 if category(d) <= 1 else 0.5


def _addcmul_ref(s, a, b, out, **_):
    return wide(s, out) + _value(out) * wide(a, out) * wide(b, out)


def _addcdiv_ref(s, a, b, out, **_):
    return wide(s, out) + _value(out) * wide(a, out) / wide(b, out)


OPS += [
    OpInfo("where", lambda c, a, b: lucid.where(_cond(c), a, b), _where_ref, _same, ALL_DTYPES, ternary_samples,
           torch_op=lambda torch, c, a, b: torch.where(c != 0 if c.is_complex() else c > 0, a, b),
           variants={"method": lambda c, a, b: a.where(_cond(c), b)}, kinds=("small", "default", "default"),
           cuda=False),
    OpInfo("lerp", lambda s, e, w: lucid.lerp(s, e, w), _lerp_ref, _same, FLOATS + COMPLEX, ternary_samples,
           torch_op=lambda torch, s, e, w: torch.lerp(s, e, w), variants={"method": lambda s, e, w: s.lerp(e, w)},
           cuda=False, tol={"bfloat16": (3e-2, 3e-2), "float16": (4e-3, 4e-3)}),
    OpInfo("addcmul", lambda s, a, b: lucid.addcmul(s, a, b, value=_value(s.dtype)), _addcmul_ref, _same, NO_BOOL,
           ternary_samples, torch_op=lambda torch, s, a, b: torch.addcmul(s, a, b, value=_value_t(s.dtype)),
           variants={"method": lambda s, a, b: s.addcmul(a, b, value=_value(s.dtype))},
           kinds=("default", "small", "small"), cuda=False,
           tol={"bfloat16": (3e-2, 3e-2), "float16": (4e-3, 4e-3)}),
    OpInfo("addcdiv", lambda s, a, b: lucid.addcdiv(s, a, b, value=_value(s.dtype)), _addcdiv_ref, _same,
           FLOATS + COMPLEX, ternary_samples,
           torch_op=lambda torch, s, a, b: torch.addcdiv(s, a, b, value=_value_t(s.dtype)),
           variants={"method": lambda s, a, b: s.addcdiv(a, b, value=_value(s.dtype))},
           kinds=("default", "default", "nonzero"), cuda=False,
           tol={"bfloat16": (3e-2, 3e-2), "float16": (4e-3, 4e-3)}),
]


def _value_t(td):
    return _value(getattr(lucid, str(td).replace("torch.", "")))


def _lerp_scalar_samples(d):
    return [Sample(s.shapes[:2], dict(weight=w), s.kind) for s in binary_samples(d) for w in (0.25, 0.75)][:12]


OPS += [
    OpInfo("lerp_scalar", lambda s, e, weight: lucid.lerp(s, e, weight),
           lambda s, e, out, weight: _lerp_ref(s, e, np.asarray(weight), out), _same, FLOATS + COMPLEX,
           _lerp_scalar_samples, torch_op=lambda torch, s, e, weight: torch.lerp(s, e, weight),
           variants={"method": lambda s, e, weight: s.lerp(e, weight)}, cuda=False,
           tol={"bfloat16": (3e-2, 3e-2), "float16": (4e-3, 4e-3)}),
]


# ---- complex numbers from parts

def _complex_out(d, **_):
    return C128 if d is F64 else C64


OPS += [
    OpInfo("complex", lambda r, i: lucid.complex(r, i), lambda r, i, out: wide(r, F64) + 1j * wide(i, F64),
           _complex_out, [F16, F32, F64], binary_samples, torch_op=lambda torch, r, i: torch.complex(r, i),
           cuda=False),
    OpInfo("polar", lambda r, t: lucid.polar(r, t),
           lambda r, t, out: wide(r, F64) * np.cos(wide(t, F64)) + 1j * wide(r, F64) * np.sin(wide(t, F64)),
           _complex_out, [F32, F64], binary_samples, torch_op=lambda torch, r, t: torch.polar(r, t),
           kinds=("positive", "default"), cuda=False, tol={"complex64": (1e-5, 2e-5)}),
]


# ---- Python-scalar operands (weak types) through the operators

def _widen(a, out):
    """The reference input in the computation's wide type (bool results: float64 / complex128)."""
    if out is BOOL:
        return np.asarray(a).astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    return wide(a, out)


def _scalar_op(name, fn, ref, out_dtype, dtypes, kinds=("default",), differentiable=True):
    return OpInfo(name, fn, lambda a, out: ref(_widen(a, out), out), out_dtype, dtypes, unary_samples,
                  torch_op=lambda torch, a: fn(a), kinds=kinds, cuda=False, differentiable=differentiable)


def _scalar_out(scalar):
    from op_table import expected_scalar_result
    return lambda d, **_: expected_scalar_result(d, scalar)


OPS += [
    _scalar_op("pow_scalar_int", lambda t: t ** 2, lambda A, out: A ** 2, _scalar_out(2), NO_BOOL,
               kinds=("small",)),
    _scalar_op("pow_scalar_float", lambda t: t ** 0.5, lambda A, out: np.power(A, 0.5), _scalar_out(0.5),
               NO_BOOL, kinds=("positive",)),
    _scalar_op("rpow_scalar_int", lambda t: 2 ** t, lambda A, out: _pow_ref(np.asarray(2), A, out),
               _scalar_out(2), NO_BOOL, kinds=("small",)),
    _scalar_op("rpow_scalar_float", lambda t: 1.5 ** t, lambda A, out: np.power(1.5, A), _scalar_out(1.5),
               NO_BOOL),
    _scalar_op("floordiv_scalar", lambda t: t // 3, lambda A, out: np.floor_divide(A, 3), _scalar_out(3),
               NUMERIC_REAL, differentiable=False),
    _scalar_op("rfloordiv_scalar", lambda t: 7 // t, lambda A, out: np.floor_divide(7, A), _scalar_out(7),
               NUMERIC_REAL, kinds=("nonzero",), differentiable=False),
    _scalar_op("mod_scalar", lambda t: t % -2.5, lambda A, out: np.remainder(A, -2.5), _scalar_out(-2.5),
               NUMERIC_REAL),
    _scalar_op("rmod_scalar", lambda t: 5 % t, lambda A, out: np.remainder(5, A), _scalar_out(5),
               NUMERIC_REAL, kinds=("nonzero",)),
    _scalar_op("and_scalar", lambda t: t & 6, lambda A, out: np.bitwise_and(A, 6), _scalar_out(6), INTS,
               differentiable=False),
    _scalar_op("ror_scalar", lambda t: True | t, lambda A, out: np.logical_or(A, True) if out is BOOL
               else np.bitwise_or(A, 1), _scalar_out(True), [BOOL] + INTS, differentiable=False),
    _scalar_op("lt_scalar", lambda t: t < 0.5, lambda A, out: np.real(A) < 0.5, _bool_out, REAL,
               differentiable=False),
    _scalar_op("rge_scalar", lambda t: 1 >= t, lambda A, out: 1 >= np.real(A), _bool_out, REAL,
               differentiable=False),
    _scalar_op("eq_scalar", lambda t: t == 1, lambda A, out: A == 1, _bool_out, ALL_DTYPES, kinds=("small",),
               differentiable=False),
    _scalar_op("maximum_scalar", lambda t: lucid.maximum(t, 0.5), lambda A, out: np.maximum(A, 0.5),
               _scalar_out(0.5), REAL),
    _scalar_op("where_scalars", lambda t: lucid.where(t > 0, t, 0.0),
               lambda A, out: np.where(np.real(A) > 0, A, 0), _scalar_out(0.0), REAL),
]
