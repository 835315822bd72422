"""The op table: one entry per op (PyTorch's OpInfo, in small). test_op_table.py drives its generic
checks from here: forward against NumPy for every supported dtype, non-contiguous and broadcast
inputs, 0-d and empty tensors, the result dtype against PyTorch, and CUDA against the CPU.

An entry gives
  op         the lucid call, on tensors (and the sample's kwargs)
  variants   other spellings of the same call (method, operator, module function); must agree exactly
  ref        the NumPy reference: takes the reference arrays (float32 for bfloat16), computes in wide
             precision (int64 / float64 / complex128) and returns the exact result, which the test
             rounds to the expected dtype
  out_dtype  the expected result dtype from the input dtypes (PyTorch's rules, written out here)
  torch_op   the same call in PyTorch (optional oracle)
  dtypes     the dtypes the op supports
  samples    a function of the dtype giving Sample(shapes, kwargs, kind), kind one of
             basic / broadcast / zerodim / empty / large
  kinds      the value kind of each input for helpers.random_array (nonzero divisors, small factors)
  tol        per-dtype (rtol, atol) overrides of helpers.TOL
  promotes   a binary op on two tensors: also checked on every pair of dtypes
A Sample may carry `crash` (a reason): generic tests then mark it xfail without running it, for inputs
that kill the interpreter (check those in a child process, see helpers.run_isolated).
"""
import operator
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

import lucid
from helpers import ALL_DTYPES, cast_ref

BOOL, U8, I64, F32, F64 = lucid.bool_, lucid.uint8, lucid.int64, lucid.float32, lucid.float64


def category(d):
    if d is BOOL:
        return 0
    if d.is_complex:
        return 3
    if d.is_floating_point:
        return 2
    return 1


# ---------------------------------------------------------------------------------------------
# PyTorch's promotion rules, written out independently of lucid's implementation

_INT_ORDER = [lucid.int8, lucid.int16, lucid.int32, lucid.int64]


def expected_promote(a, b):
    """torch.promote_types for lucid's 12 dtypes."""
    if a is b:
        return a
    ca, cb = category(a), category(b)
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if hi is lucid.complex64 and lo is lucid.float64:
            return lucid.complex128
        return hi
    if ca == 1:
        if U8 in (a, b):
            other = b if a is U8 else a
            return lucid.int16 if other is lucid.int8 else other
        return a if _INT_ORDER.index(a) > _INT_ORDER.index(b) else b
    if ca == 2:
        if {a.name, b.name} == {"float16", "bfloat16"}:
            return F32
        return a if a.itemsize > b.itemsize else b
    return a if a.itemsize > b.itemsize else b


def _to_complex(d):
    return lucid.complex128 if d is F64 else lucid.complex64


def expected_scalar_result(d, scalar):
    """The dtype of (tensor of dtype d) op (Python scalar), as PyTorch (complex32 read as complex64)."""
    cs = {bool: 0, int: 1, float: 2, complex: 3}[type(scalar)]
    cd = category(d)
    if cs <= cd:
        return d
    if cs == 3:
        return _to_complex(d) if cd == 2 else _to_complex(lucid.get_default_dtype())
    if cs == 2:
        return lucid.get_default_dtype()
    return I64


def true_div_dtype(d):
    return lucid.get_default_dtype() if category(d) <= 1 else d


# ---------------------------------------------------------------------------------------------
# NumPy references in wide precision

def wide(x, out_dtype):
    c = category(out_dtype)
    if c == 3:
        return np.asarray(x).astype(np.complex128)
    if c == 2:
        return np.asarray(x).astype(np.float64)
    if c == 1:
        return np.asarray(x).astype(np.int64)
    return np.asarray(x).astype(bool)


def _binary_ref(fn, bool_fn=None):
    def ref(a, b, out_dtype, alpha=None):
        if out_dtype is BOOL:
            if alpha is not None:
                b = np.logical_and(b, bool(alpha))
            return bool_fn(a, b)
        A, B = wide(a, out_dtype), wide(b, out_dtype)
        if alpha is not None:
            B = B * alpha
        return fn(A, B)
    return ref


def _true_div_ref(a, b, out_dtype):
    A, B = wide(a, out_dtype), wide(b, out_dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return A / B


@dataclass
class Sample:
    shapes: tuple
    kwargs: dict = field(default_factory=dict)
    kind: str = "basic"
    crash: Optional[str] = None   # known to crash the interpreter (run in a subprocess elsewhere)

    @property
    def id(self):
        shp = "x".join("(" + ",".join(map(str, s)) + ")" for s in self.shapes)
        kw = ",".join(f"{k}={_kwid(v)}" for k, v in self.kwargs.items())
        return f"{self.kind}:{shp}" + (f"[{kw}]" if kw else "")


def _kwid(v):
    if isinstance(v, lucid.dtype):
        return v.name
    if isinstance(v, tuple):
        return "(" + ",".join(map(str, v)) + ")"
    return str(v)


@dataclass
class OpInfo:
    name: str
    op: Callable
    ref: Callable
    out_dtype: Callable          # (input dtype, **kwargs) -> lucid dtype
    dtypes: list
    samples: Callable            # dtype -> list[Sample]
    torch_op: Optional[Callable] = None
    variants: dict = field(default_factory=dict)
    kinds: tuple = ("default", "default")
    tol: dict = field(default_factory=dict)
    promotes: bool = False       # a binary op on two tensors: also tested on every pair of dtypes
    cuda: bool = True            # has CUDA kernels: checked against the CPU on a GPU machine
    view: bool = False           # returns a view of an input (test_forward checks it aliases one)
    differentiable: bool = True  # gradcheck/gradgradcheck in float64 (False: integer/bool results)

    @property
    def arity(self):
        return len(self.samples(F32)[0].shapes)


# ---------------------------------------------------------------------------------------------
# samples

def binary_samples(d):
    return [
        Sample(((3, 4), (3, 4))),
        Sample(((2, 3, 4), (2, 3, 4))),
        Sample(((7,), (7,))),
        Sample(((3, 4), (4,)), kind="broadcast"),
        Sample(((3, 1), (1, 4)), kind="broadcast"),
        Sample(((2, 1, 4), (3, 1)), kind="broadcast"),
        Sample(((4,), (3, 4)), kind="broadcast"),
        Sample(((2, 3, 4), ()), kind="broadcast"),
        Sample(((), (2, 3)), kind="broadcast"),
        Sample(((), ()), kind="zerodim"),
        Sample(((0,), (0,)), kind="empty"),
        Sample(((0, 3), (3,)), kind="empty"),
        Sample(((2, 0, 3), (1, 3)), kind="empty"),
        Sample(((3, 0), (3, 1)), kind="empty"),
        Sample(((1031,), (1031,)), kind="large"),
        Sample(((67, 129), (129,)), kind="large"),
        Sample(((64, 1), (1, 257)), kind="large"),
    ]


def unary_samples(d):
    return [
        Sample(((3, 4),)),
        Sample(((2, 3, 4),)),
        Sample(((),), kind="zerodim"),
        Sample(((0, 3),), kind="empty"),
        Sample(((1031,),), kind="large"),
        Sample(((67, 129),), kind="large"),
    ]


def sum_samples(d):
    out = []
    for dim, keep in [(None, False), (0, False), (1, False), (-1, True), ((0, 1), False), ((1, 0), True),
                      ((), False)]:
        out.append(Sample(((3, 4),), dict(dim=dim, keepdim=keep)))
    for dim in [(0, 2), (1,), -2, (-1, 0, 1)]:
        out.append(Sample(((2, 3, 4),), dict(dim=dim, keepdim=False)))
        out.append(Sample(((2, 3, 4),), dict(dim=dim, keepdim=True)))
    out.append(Sample(((5, 1, 3),), dict(dim=1, keepdim=False)))
    acc = lucid.complex128 if d.is_complex else F64
    out.append(Sample(((3, 4),), dict(dim=None, keepdim=False, dtype=acc)))
    out.append(Sample(((3, 4),), dict(dim=1, keepdim=True, dtype=acc)))
    if not d.is_complex:
        out.append(Sample(((3, 4),), dict(dim=0, keepdim=False, dtype=F32)))
        out.append(Sample(((3, 4),), dict(dim=None, keepdim=False, dtype=I64)))
    out += [
        Sample(((),), dict(dim=None, keepdim=False), kind="zerodim"),
        Sample(((),), dict(dim=0, keepdim=False), kind="zerodim"),
        Sample(((),), dict(dim=-1, keepdim=True), kind="zerodim"),
        Sample(((0, 3),), dict(dim=1, keepdim=False), kind="empty"),
        Sample(((3, 0),), dict(dim=1, keepdim=False), kind="empty"),
        Sample(((0, 3),), dict(dim=0, keepdim=True), kind="empty"),
        Sample(((0,),), dict(dim=None, keepdim=False), kind="empty"),
        Sample(((100003,),), dict(dim=None, keepdim=False), kind="large"),
        Sample(((301, 257),), dict(dim=0, keepdim=False), kind="large"),
        Sample(((301, 257),), dict(dim=1, keepdim=False), kind="large"),
        Sample(((301, 257),), dict(dim=None, keepdim=False), kind="large"),
    ]
    return out


def matmul_samples(d):
    return [
        Sample(((4,), (4,))),
        Sample(((3,), (3, 5))),
        Sample(((4, 3), (3,))),
        Sample(((2, 3), (3, 4))),
        Sample(((1, 1), (1, 1))),
        Sample(((5, 2, 3), (5, 3, 4))),
        Sample(((5, 2, 3), (3, 4)), kind="broadcast"),
        Sample(((2, 3), (5, 3, 4)), kind="broadcast"),
        Sample(((2, 1, 2, 3), (4, 3, 2)), kind="broadcast"),
        Sample(((3,), (2, 3, 4)), kind="broadcast"),
        Sample(((2, 4, 3), (3,)), kind="broadcast"),
        Sample(((0, 3), (3, 4)), kind="empty"),
        Sample(((2, 0), (0, 3)), kind="empty"),
        Sample(((0, 2, 3), (3, 4)), kind="empty"),
        Sample(((0,), (0,)), kind="empty"),
        Sample(((33, 65), (65, 17)), kind="large"),
        Sample(((3, 40, 64), (64, 24)), kind="large"),
    ]


# ---------------------------------------------------------------------------------------------
# references for sum and matmul

def _sum_out_dtype(d, dtype=None, **_):
    if dtype is not None:
        return dtype
    return I64 if category(d) <= 1 else d


def _sum_ref(a, out_dtype, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        a = cast_ref(a, dtype)          # sum(dtype=) casts the input first, as PyTorch
    A = wide(a, out_dtype) if category(out_dtype) >= 1 else wide(a, I64)
    if a.ndim == 0:
        return A.copy()
    axis = None if dim is None or dim == () else dim
    return np.sum(A, axis=axis, keepdims=keepdim)


def _matmul_ref(a, b, out_dtype):
    if out_dtype is BOOL:
        return np.matmul(a.astype(np.int64), b.astype(np.int64)) != 0
    return np.matmul(wide(a, out_dtype), wide(b, out_dtype))


def _torch_sum(torch, t, dim=None, keepdim=False, dtype=None):
    kw = {}
    if dtype is not None:
        kw["dtype"] = getattr(torch, dtype.name)
    if dim is None:
        return t.sum(**kw) if not keepdim else t.sum(dim=tuple(range(t.dim())), keepdim=True, **kw)
    return t.sum(dim=dim, keepdim=keepdim, **kw)


# ---------------------------------------------------------------------------------------------
# the table

NO_BOOL = [d for d in ALL_DTYPES if d is not BOOL]

_add_ref = _binary_ref(np.add, np.logical_or)
_sub_ref = _binary_ref(np.subtract)
_mul_ref = _binary_ref(np.multiply, np.logical_and)


def _promote2(d, **_):
    return d


OPS = [
    OpInfo("add", lambda a, b: lucid.add(a, b), lambda a, b, out: _add_ref(a, b, out), _promote2, ALL_DTYPES,
           binary_samples, torch_op=lambda torch, a, b: torch.add(a, b),
           variants={"operator": operator.add, "method": lambda a, b: a.add(b)}, promotes=True),
    OpInfo("add_alpha", lambda a, b: lucid.add(a, b, alpha=_alpha_for(a.dtype)),
           lambda a, b, out: _add_ref(a, b, out, alpha=_alpha_for_name(out)), _promote2, ALL_DTYPES,
           binary_samples, torch_op=lambda torch, a, b: torch.add(a, b, alpha=_alpha_torch(a.dtype)),
           variants={"method": lambda a, b: a.add(b, alpha=_alpha_for(a.dtype))}),
    OpInfo("sub", lambda a, b: lucid.sub(a, b), lambda a, b, out: _sub_ref(a, b, out), _promote2, NO_BOOL,
           binary_samples, torch_op=lambda torch, a, b: torch.sub(a, b),
           variants={"operator": operator.sub, "method": lambda a, b: a.sub(b)}, promotes=True),
    OpInfo("sub_alpha", lambda a, b: lucid.sub(a, b, alpha=_alpha_for(a.dtype)),
           lambda a, b, out: _sub_ref(a, b, out, alpha=_alpha_for_name(out)), _promote2, NO_BOOL,
           binary_samples, torch_op=lambda torch, a, b: torch.sub(a, b, alpha=_alpha_torch(a.dtype)),
           variants={"method": lambda a, b: a.sub(b, alpha=_alpha_for(a.dtype))}),
    OpInfo("mul", lambda a, b: lucid.mul(a, b), lambda a, b, out: _mul_ref(a, b, out), _promote2, ALL_DTYPES,
           binary_samples, torch_op=lambda torch, a, b: torch.mul(a, b),
           variants={"operator": operator.mul, "method": lambda a, b: a.mul(b)}, kinds=("small", "small"),
           promotes=True),
    OpInfo("div", lambda a, b: lucid.div(a, b), lambda a, b, out: _true_div_ref(a, b, out),
           lambda d, **_: true_div_dtype(d), ALL_DTYPES, binary_samples,
           torch_op=lambda torch, a, b: torch.div(a, b),
           variants={"operator": operator.truediv, "method": lambda a, b: a.div(b)}, kinds=("default", "nonzero"),
           promotes=True),
    OpInfo("sum", lambda a, **kw: lucid.sum(a, **kw),
           lambda a, out, **kw: _sum_ref(a, out, **kw), _sum_out_dtype, ALL_DTYPES, sum_samples,
           torch_op=_torch_sum,
           variants={"method": lambda a, **kw: a.sum(**kw),
                     "numpy_names": lambda a, dim=None, keepdim=False, **kw: a.sum(axis=dim, keepdims=keepdim, **kw)},
           kinds=("default",), tol={"float32": (1e-5, 1e-4), "complex64": (1e-5, 1e-4)}),
    OpInfo("matmul", lambda a, b: lucid.matmul(a, b), lambda a, b, out: _matmul_ref(a, b, out), _promote2,
           ALL_DTYPES, matmul_samples, torch_op=lambda torch, a, b: torch.matmul(a, b),
           variants={"operator": operator.matmul, "method": lambda a, b: a.matmul(b)}, kinds=("small", "small"),
           tol={"float16": (4e-3, 4e-3), "bfloat16": (2e-2, 2e-2), "float32": (1e-4, 1e-4),
                "complex64": (1e-4, 1e-4), "float64": (1e-10, 1e-10), "complex128": (1e-10, 1e-10)}),
]


def _alpha_for(d):
    """alpha for add/sub: a float for float/complex tensors, an int for integers, True for bools."""
    if d is BOOL:
        return True
    return 2 if category(d) == 1 else 0.5


def _alpha_for_name(out_dtype):
    return True if out_dtype is BOOL else (2 if category(out_dtype) == 1 else 0.5)


def _alpha_torch(td):
    name = str(td).replace("torch.", "")
    return _alpha_for(getattr(lucid, name))


# ---- the Python-scalar forms: t + 2, 2 - t, t / 2.5, ... (one tensor input)

def _scalar_entry(name, fn, np_fn, scalar, dtypes, kinds=("default",), div=False, reflected=False, torch_fn=None):
    def out_dtype(d, **_):
        r = expected_scalar_result(d, scalar)
        return true_div_dtype(r) if div else r

    def ref(a, out):
        if out is BOOL:
            return np_fn(a.astype(bool), bool(scalar))
        A = wide(a, out)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np_fn(A, scalar) if not reflected else np_fn(scalar, A)

    return OpInfo(name, lambda a: fn(a, scalar), ref, out_dtype, dtypes, unary_samples,
                  torch_op=lambda torch, a: (torch_fn or fn)(a, scalar), kinds=kinds)


SCALAR_OPS = [
    _scalar_entry("add_scalar_int", lambda t, s: t + s, np.add, 2, ALL_DTYPES),
    _scalar_entry("radd_scalar_int", lambda t, s: s + t, lambda a, s: s + a, 3, ALL_DTYPES),
    _scalar_entry("add_scalar_float", lambda t, s: t + s, np.add, 1.5, ALL_DTYPES),
    _scalar_entry("add_scalar_bool", lambda t, s: t + s, lambda a, s: np.logical_or(a, s) if a.dtype == bool
                  else a + s, True, ALL_DTYPES),
    _scalar_entry("add_scalar_complex", lambda t, s: t + s, np.add, 1 - 2j, ALL_DTYPES),
    _scalar_entry("sub_scalar_int", lambda t, s: t - s, np.subtract, 2, NO_BOOL),
    _scalar_entry("rsub_scalar_int", lambda t, s: s - t, lambda s, a: s - a, 2, NO_BOOL, reflected=True),
    _scalar_entry("sub_scalar_float", lambda t, s: t - s, np.subtract, 1.5, NO_BOOL),
    _scalar_entry("rsub_scalar_float", lambda t, s: s - t, lambda s, a: s - a, 0.25, NO_BOOL, reflected=True),
    _scalar_entry("mul_scalar_int", lambda t, s: t * s, np.multiply, 3, ALL_DTYPES, kinds=("small",)),
    _scalar_entry("rmul_scalar_float", lambda t, s: s * t, lambda a, s: s * a, 2.5, ALL_DTYPES),
    _scalar_entry("mul_scalar_complex", lambda t, s: t * s, np.multiply, 0.5 + 1j, ALL_DTYPES),
    _scalar_entry("div_scalar_float", lambda t, s: t / s, np.true_divide, 2.5, ALL_DTYPES, div=True),
    _scalar_entry("div_scalar_int", lambda t, s: t / s, np.true_divide, 2, ALL_DTYPES, div=True),
    _scalar_entry("rdiv_scalar_int", lambda t, s: s / t, lambda s, a: s / a, 3, ALL_DTYPES, div=True,
                  kinds=("nonzero",), reflected=True),
    _scalar_entry("rdiv_scalar_float", lambda t, s: s / t, lambda s, a: s / a, 1.5, ALL_DTYPES, div=True,
                  kinds=("nonzero",), reflected=True),
    _scalar_entry("add_fn_scalar", lambda t, s: lucid.add(t, s), np.add, 4, ALL_DTYPES,
                  torch_fn=lambda t, s: t + s),
    _scalar_entry("mul_fn_rscalar", lambda t, s: lucid.mul(s, t), lambda a, s: s * a, 0.5, ALL_DTYPES,
                  torch_fn=lambda t, s: s * t),
    _scalar_entry("sub_fn_rscalar", lambda t, s: lucid.sub(s, t), lambda s, a: s - a, 7, NO_BOOL, reflected=True,
                  torch_fn=lambda t, s: s - t),
    _scalar_entry("div_fn_rscalar", lambda t, s: lucid.div(s, t), lambda s, a: s / a, 2, ALL_DTYPES, div=True,
                  kinds=("nonzero",), reflected=True, torch_fn=lambda t, s: s / t),
]

def _unary_entry(name, np_fn, kind="default", keeps_int=False):
    real = [d for d in ALL_DTYPES if d is not BOOL and not d.is_complex]

    def out_dtype(d, **_):
        if not keeps_int and not (d.is_floating_point or d.is_complex):
            return lucid.get_default_dtype()
        return d

    def ref(a, out, **_):
        with np.errstate(all="ignore"):
            return np_fn(wide(a, out))

    return OpInfo(name, lambda a, name=name: getattr(lucid, name)(a), ref, out_dtype, real, unary_samples,
                  torch_op=lambda torch, a, name=name: getattr(torch, name)(a),
                  variants={"method": lambda a, name=name: getattr(a, name)()}, kinds=(kind,))


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _erf(x):
    import math
    return np.vectorize(math.erf, otypes=[np.float64])(x) if x.ndim else np.asarray(math.erf(float(x)))


def _erfc(x):
    import math
    return np.vectorize(math.erfc, otypes=[np.float64])(x) if x.ndim else np.asarray(math.erfc(float(x)))


UNARY_OPS = [
    _unary_entry("abs", np.abs, keeps_int=True),
    _unary_entry("sign", np.sign, keeps_int=True),
    _unary_entry("square", np.square, kind="small", keeps_int=True),
    _unary_entry("relu", lambda x: np.maximum(x, 0), keeps_int=True),
    _unary_entry("floor", np.floor, keeps_int=True),
    _unary_entry("ceil", np.ceil, keeps_int=True),
    _unary_entry("trunc", np.trunc, keeps_int=True),
    _unary_entry("frac", lambda x: x - np.trunc(x), keeps_int=True),
    _unary_entry("exp", np.exp), _unary_entry("exp2", np.exp2), _unary_entry("expm1", np.expm1),
    _unary_entry("log", np.log, "positive"), _unary_entry("log2", np.log2, "positive"),
    _unary_entry("log10", np.log10, "positive"), _unary_entry("log1p", np.log1p, "positive"),
    _unary_entry("sqrt", np.sqrt, "positive"), _unary_entry("rsqrt", lambda x: 1 / np.sqrt(x), "positive"),
    _unary_entry("reciprocal", lambda x: 1 / x, "nonzero"),
    _unary_entry("sin", np.sin), _unary_entry("cos", np.cos), _unary_entry("tan", np.tan, "unit"),
    _unary_entry("asin", np.arcsin, "unit"), _unary_entry("acos", np.arccos, "unit"), _unary_entry("atan", np.arctan),
    _unary_entry("sinh", np.sinh), _unary_entry("cosh", np.cosh), _unary_entry("tanh", np.tanh),
    _unary_entry("asinh", np.arcsinh), _unary_entry("acosh", np.arccosh, "ge1"),
    _unary_entry("atanh", np.arctanh, "unit"),
    _unary_entry("sigmoid", _sigmoid), _unary_entry("erf", _erf), _unary_entry("erfc", _erfc),
]

# Each op family keeps its entries in its own file (op_table_<family>.py, OPS = [...]).
from op_table_unary import OPS as _UNARY_EXTRA  # noqa: E402
from op_table_binary import OPS as _BINARY  # noqa: E402
from op_table_reduce import OPS as _REDUCE  # noqa: E402
from op_table_shape import OPS as _SHAPE  # noqa: E402
from op_table_indexing import OPS as _INDEXING  # noqa: E402
from op_table_sorting import OPS as _SORTING  # noqa: E402
from op_table_products import OPS as _PRODUCTS  # noqa: E402
from op_table_special import OPS as _SPECIAL  # noqa: E402

ALL_OPS = OPS + SCALAR_OPS + UNARY_OPS + _UNARY_EXTRA + _BINARY + _REDUCE + _SHAPE + _INDEXING + _SORTING + _PRODUCTS + _SPECIAL
OPS_BY_NAME = {o.name: o for o in ALL_OPS}
