"""Focused tests of the unary family beyond the op table: special values (NaN, inf, -0.0, poles)
against PyTorch, dtype rules of clamp, in-place variants, errors, the complex views and parts, and
complex gradients against torch.autograd.grad (the op table's gradcheck is real float64 only)."""
import math

import numpy as np
import pytest

import lucid
from helpers import ALL_DTYPES, to_numpy

NAN, INF = float("nan"), float("inf")
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, NAN, -NAN, INF, -INF, 1e30, -1e-30]


def _lt(torch, t):
    """A lucid tensor with the values and dtype of a torch tensor."""
    if t.dtype is torch.bfloat16:
        return lucid.tensor(t.float().numpy()).to(lucid.bfloat16)
    return lucid.tensor(t.numpy())


def _same(got, want, rtol=1e-6, atol=1e-6):
    import torch
    name = str(want.dtype).replace("torch.", "")
    assert got.dtype.name == name, (got.dtype, want.dtype)
    w = want.float() if want.dtype is torch.bfloat16 else want
    w = w.resolve_conj().numpy()
    np.testing.assert_allclose(to_numpy(got), w, rtol=rtol, atol=atol, equal_nan=True)


# ---------------------------------------------------------------------------------------------
# neg / positive / bitwise_not / logical_not

def test_neg_values_and_errors():
    x = lucid.tensor([1.0, -2.0, 0.0])
    assert lucid.neg(x).tolist() == [-1.0, 2.0, -0.0]
    assert (-x).tolist() == [-1.0, 2.0, -0.0]
    assert lucid.negative(x).tolist() == x.negative().tolist() == [-1.0, 2.0, -0.0]
    assert (-lucid.tensor([3], dtype=lucid.uint8)).tolist() == [253]
    assert (-lucid.tensor([-128], dtype=lucid.int8)).tolist() == [-128]
    assert (-lucid.tensor([1 + 2j])).tolist() == [-1 - 2j]
    for f in (lambda b: -b, lucid.neg, lambda b: b.neg(), lambda b: b.neg_()):
        with pytest.raises(RuntimeError, match="bool"):
            f(lucid.tensor([True, False]))


def test_positive():
    x = lucid.tensor([1.0, -2.0])
    assert lucid.positive(x) is x and x.positive() is x and (+x) is x
    with pytest.raises((TypeError, RuntimeError)):
        lucid.positive(lucid.tensor([True]))


def test_bitwise_not_and_invert():
    assert (~lucid.tensor([True, False])).tolist() == [False, True]
    assert lucid.bitwise_not(lucid.tensor([0, 5, -1])).tolist() == [-1, -6, 0]
    assert (~lucid.tensor([0, 255], dtype=lucid.uint8)).tolist() == [255, 0]
    for d in (lucid.float32, lucid.float64, lucid.complex64):
        with pytest.raises(TypeError, match="bitwise_not"):
            ~lucid.ones(2, dtype=d)


@pytest.mark.parametrize("d", ALL_DTYPES, ids=lambda d: d.name)
def test_logical_not_every_dtype(torch, d):
    t = torch.tensor([0, 1, 0, 3], dtype=getattr(torch, d.name))
    x = _lt(torch, t)
    r = lucid.logical_not(x)
    assert r.dtype is lucid.bool_ and r.tolist() == torch.logical_not(t).tolist()
    if d.is_floating_point or d is lucid.int64:
        y = x.clone()
        assert y.logical_not_() is y and y.dtype is d
        assert y.tolist() == t.clone().logical_not_().tolist()


def test_logical_not_complex_and_nan():
    assert lucid.logical_not(lucid.tensor([0j, 1j, 0 + 0j])).tolist() == [True, False, True]
    assert lucid.logical_not(lucid.tensor([NAN, -0.0])).tolist() == [False, True]


# ---------------------------------------------------------------------------------------------
# predicates on special values

@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit"])
@pytest.mark.parametrize("dname", ["float16", "bfloat16", "float32", "float64"])
def test_predicates_special_values(torch, name, dname):
    t = torch.tensor(SPECIAL, dtype=getattr(torch, dname))
    x = _lt(torch, t)
    for r in (getattr(lucid, name)(x), getattr(x, name)()):
        assert r.dtype is lucid.bool_
        assert r.tolist() == getattr(torch, name)(t).tolist()


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "isreal"])
@pytest.mark.parametrize("d", [lucid.bool_, lucid.uint8, lucid.int8, lucid.int64], ids=lambda d: d.name)
def test_predicates_integers(torch, name, d):
    t = torch.tensor([0, 1, -1, 5], dtype=getattr(torch, d.name)) if d is not lucid.bool_ else torch.tensor([True, False])
    assert getattr(lucid, name)(_lt(torch, t)).tolist() == getattr(torch, name)(t).tolist()


def test_predicates_complex(torch):
    vals = [complex(0, NAN), complex(NAN, 0), complex(INF, 0), complex(0, -INF), 1 + 2j, 3 + 0j]
    t = torch.tensor(vals)
    x = lucid.tensor(vals)
    for name in ("isnan", "isinf", "isfinite", "isreal"):
        assert getattr(lucid, name)(x).tolist() == getattr(torch, name)(t).tolist(), name
    for name in ("isneginf", "isposinf", "signbit"):
        with pytest.raises((ValueError, RuntimeError)):
            getattr(lucid, name)(x)


# ---------------------------------------------------------------------------------------------
# nan_to_num

@pytest.mark.parametrize("dname", ["float16", "bfloat16", "float32", "float64"])
def test_nan_to_num_defaults_and_values(torch, dname):
    t = torch.tensor([NAN, INF, -INF, 1.5, -0.0], dtype=getattr(torch, dname))
    x = _lt(torch, t)
    _same(lucid.nan_to_num(x), torch.nan_to_num(t), rtol=0, atol=0)
    _same(x.nan_to_num(nan=2.0, posinf=7.0, neginf=-9.0), t.nan_to_num(nan=2.0, posinf=7.0, neginf=-9.0),
          rtol=0, atol=0)
    _same(lucid.nan_to_num(x, 1.0, None, -3.0), torch.nan_to_num(t, 1.0, None, -3.0), rtol=0, atol=0)
    y = x.clone()
    assert y.nan_to_num_(nan=0.5) is y
    _same(y, t.clone().nan_to_num_(nan=0.5), rtol=0, atol=0)


def test_nan_to_num_complex_and_int(torch):
    vals = [complex(INF, NAN), complex(-INF, 2), 1 + 1j]
    _same(lucid.nan_to_num(lucid.tensor(vals)), torch.nan_to_num(torch.tensor(vals)), rtol=0, atol=0)
    i = lucid.tensor([1, 2, 3])
    r = lucid.nan_to_num(i)
    assert r is not i and r.tolist() == [1, 2, 3] and r.dtype is lucid.int64


def test_nan_to_num_gradient():
    x = lucid.tensor([1.0, NAN, INF, -2.0], dtype=lucid.float64, requires_grad=True)
    lucid.nan_to_num(x).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0, 1.0]


# ---------------------------------------------------------------------------------------------
# clamp / clip

def test_clamp_dtype_rules_match_torch(torch):
    cases = [
        (lambda m: m.tensor([1, 2, 3]), dict(min=0.5)),
        (lambda m: m.tensor([1, 2, 3]), dict(min=2, max=1)),
        (lambda m: m.tensor([1, 2, 3], dtype=m.int8), dict(min=-1, max=2)),
        (lambda m: m.tensor([1.0, 2.0], dtype=m.float16), dict(min=1.5)),
        (lambda m: m.tensor([0, 3, 5, 9, 200], dtype=m.uint8), dict(min=-3, max=4)),
        (lambda m: m.tensor([True, False]), dict(min=0, max=1)),
    ]
    for make, kw in cases:
        want = torch.clamp(make(torch), **kw)
        _same(lucid.clamp(make(lucid), **kw), want)


def test_clamp_tensor_bounds_promote_like_torch(torch):
    for xd, bd, bshape in [("int64", "float32", (3,)), ("int64", "int8", (3,)), ("int8", "int64", ()),
                           ("int8", "int64", (1,)), ("float32", "float64", ()), ("float16", "float32", (3,)),
                           ("int32", "float64", ())]:
        tx = torch.tensor([1, 2, 3], dtype=getattr(torch, xd))
        tb = torch.full(bshape, 2, dtype=getattr(torch, bd))
        want = torch.clamp(tx, min=tb)
        _same(lucid.clamp(_lt(torch, tx), min=_lt(torch, tb)), want)
        want = torch.clamp(tx, max=tb)
        _same(lucid.clamp(_lt(torch, tx), max=_lt(torch, tb)), want)


def test_clamp_nan_semantics(torch):
    t = torch.tensor([1.0, NAN, -3.0, 5.0])
    x = _lt(torch, t)
    for kw in [dict(min=NAN), dict(max=NAN), dict(min=0.0, max=NAN), dict(min=-1.0, max=2.0), dict(min=3.0, max=1.0)]:
        _same(lucid.clamp(x, **kw), torch.clamp(t, **kw))
    _same(lucid.clamp(x, lucid.tensor(NAN)), torch.clamp(t, torch.tensor(NAN)))
    _same(lucid.clamp(x, lucid.tensor([0.0, 0.0, NAN, 0.0])), torch.clamp(t, torch.tensor([0.0, 0.0, NAN, 0.0])))


def test_clamp_broadcasts_bounds():
    x = lucid.tensor([1.0, 2.0])
    r = lucid.clamp(x, min=lucid.tensor([[0.0], [3.0]]))
    assert r.tolist() == [[1.0, 2.0], [3.0, 3.0]]
    r = x.clip(lucid.tensor([1.5]), lucid.tensor([[1.0], [4.0]]))
    assert r.tolist() == [[1.0, 1.0], [1.5, 2.0]]


def test_clamp_errors():
    x = lucid.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="min.*max"):
        lucid.clamp(x)
    with pytest.raises(NotImplementedError, match="complex"):
        lucid.clamp(lucid.tensor([1j]), 0)
    with pytest.raises(NotImplementedError, match="bool"):
        lucid.clamp(lucid.tensor([True]), min=True)
    with pytest.raises(lucid.ShapeMismatch):
        lucid.clamp(lucid.ones(3), min=lucid.ones(2))
    i = lucid.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.clamp_(0.5)
    with pytest.raises(RuntimeError, match="shape"):
        x.clamp_(min=lucid.ones(3, 2))


def test_clamp_inplace_variants():
    x = lucid.tensor([-2.0, 0.5, 3.0])
    for name, args, want in [("clamp_", (-1.0, 1.0), [-1.0, 0.5, 1.0]), ("clip_", (0.0,), [0.0, 0.5, 3.0]),
                             ("clamp_min_", (0.0,), [0.0, 0.5, 3.0]), ("clamp_max_", (0.0,), [-2.0, 0.0, 0.0])]:
        y = x.clone()
        v = y._version
        assert getattr(y, name)(*args) is y
        assert y.tolist() == want and y._version > v
    y = lucid.tensor([1, 5, 9])
    y.clamp_(lucid.tensor(2), 6)
    assert y.tolist() == [2, 5, 6] and y.dtype is lucid.int64


# ---------------------------------------------------------------------------------------------
# round, logit, special functions

def test_round_decimals_match_torch(torch):
    t = torch.tensor([1234.5678, 2.5, 0.125, -3.14159, 25.0, 35.0, -0.5])
    for dec in (0, 1, 2, 3, -1, -2):
        _same(lucid.round(_lt(torch, t), decimals=dec), torch.round(t, decimals=dec), rtol=0, atol=0)
    _same(_lt(torch, t).round(decimals=2), t.round(decimals=2), rtol=0, atol=0)
    assert lucid.round(lucid.tensor([0.5, 1.5, 2.5, -0.5])).tolist() == [0.0, 2.0, 2.0, -0.0]
    assert lucid.round(lucid.tensor([3, -4])).tolist() == [3, -4]
    with pytest.raises(NotImplementedError):
        lucid.round(lucid.tensor([3, 4]), decimals=1)
    y = lucid.tensor([1.26, 2.5])
    assert y.round_(decimals=1) is y and np.allclose(y.tolist(), [1.3, 2.5])


def test_logit_matches_torch(torch):
    t = torch.tensor([0.0, 1.0, 0.5, -1.0, 2.0, 0.25, NAN])
    for eps in (None, 0.1, -1.0, 0.0):
        _same(lucid.logit(_lt(torch, t), eps), torch.logit(t, eps))
    _same(lucid.logit(lucid.tensor([0, 1]), eps=0.1), torch.logit(torch.tensor([0, 1]), eps=0.1))


@pytest.mark.parametrize("dname", ["float32", "float64"])
def test_special_functions_special_values(torch, dname):
    dt = getattr(torch, dname)
    t = torch.tensor([0.0, -0.0, -1.0, -2.0, 1.0, 2.0, 0.5, -0.5, -2.5, 10.0, 1e-8, 150.0, INF, -INF, NAN], dtype=dt)
    x = _lt(torch, t)
    for name in ("lgamma", "digamma", "sinc", "deg2rad", "rad2deg"):
        _same(getattr(lucid, name)(x), getattr(torch, name)(t), rtol=2e-6, atol=1e-6)
    u = torch.tensor([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.7, 0.71, 0.999999, -0.9999, NAN], dtype=dt)
    _same(lucid.erfinv(_lt(torch, u)), torch.erfinv(u), rtol=1e-5, atol=1e-6)   # steep near +-1
    p = torch.tensor([0.0, 1.0, 2.0, 0.5, 0.01, 30.0, -0.5], dtype=dt)   # (at -1, a pole, both give rounding garbage)
    for n in (1, 2, 3, 4):
        _same(lucid.polygamma(n, _lt(torch, p)), torch.polygamma(n, p), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="negative n"):
        lucid.polygamma(-1, _lt(torch, p))
    _same(lucid.polygamma(0, _lt(torch, p)), torch.polygamma(0, p))


def test_integer_inputs_promote(torch):
    t = torch.tensor([1, 2, 3])
    for name in ("deg2rad", "rad2deg", "erfinv", "lgamma", "digamma", "sinc", "logit", "angle"):
        _same(getattr(lucid, name)(_lt(torch, t)), getattr(torch, name)(t))
    assert lucid.square(lucid.tensor([True, False])).dtype is lucid.int64
    assert lucid.sign(lucid.tensor([True, False])).tolist() == [True, False]
    assert lucid.sgn(lucid.tensor([True, False])).dtype is lucid.bool_
    assert lucid.exp(lucid.tensor([True])).dtype is lucid.float32


@pytest.mark.parametrize("name,kind", [("neg", None), ("sgn", None), ("erfinv", "unit"), ("lgamma", "pos"),
                                       ("digamma", "pos"), ("sinc", None), ("deg2rad", None), ("rad2deg", None),
                                       ("logit", "unit01"), ("round", None), ("abs", None), ("square", None),
                                       ("exp", None), ("sigmoid", None), ("fix", None), ("absolute", None)])
def test_inplace_matches_out_of_place(name, kind):
    rng = np.random.default_rng(7)
    v = rng.uniform(-2, 2, size=(3, 4))
    if kind == "unit":
        v = v * 0.45
    elif kind == "pos":
        v = np.abs(v) + 0.25
    elif kind == "unit01":
        v = np.abs(v) * 0.4 + 0.05
    x = lucid.tensor(v)
    want = getattr(x, name)()
    y = x.clone()
    ver = y._version
    assert getattr(y, name + "_")() is y
    assert y._version > ver
    np.testing.assert_array_equal(to_numpy(y), to_numpy(want))


def test_inplace_dtype_refused():
    with pytest.raises(RuntimeError, match="can't be cast"):
        lucid.tensor([1, 2]).erfinv_()
    x = lucid.tensor([1.0, -2.0])
    assert x.polygamma_(1) is x
    y = lucid.tensor([1, 2], dtype=lucid.int32)
    assert y.bitwise_not_().tolist() == [-2, -3]


# ---------------------------------------------------------------------------------------------
# complex parts: real, imag, angle, conj

def test_real_imag_are_views():
    x = lucid.tensor([1 + 2j, 3 - 4j])
    r, i = x.real, x.imag
    assert r.dtype is lucid.float32 and i.dtype is lucid.float32
    assert r.tolist() == [1.0, 3.0] and i.tolist() == [2.0, -4.0]
    assert r._is_view_of(x) and i._is_view_of(x)
    r[0] = 10.0
    assert x.tolist()[0] == 10 + 2j
    x.imag = lucid.tensor([0.5, 0.25])
    assert x.tolist() == [10 + 0.5j, 3 + 0.25j]
    assert lucid.real(x).tolist() == [10.0, 3.0] and lucid.imag(x).tolist() == [0.5, 0.25]
    # strided input
    y = lucid.tensor([[1 + 1j, 2 + 2j], [3 + 3j, 4 + 4j]]).T
    assert y.real.tolist() == [[1.0, 3.0], [2.0, 4.0]] and y.imag.tolist() == [[1.0, 3.0], [2.0, 4.0]]


def test_real_of_real_is_self_and_imag_raises():
    x = lucid.tensor([1.0, 2.0])
    assert lucid.real(x) is x and x.real is x
    with pytest.raises(RuntimeError, match="imag"):
        x.imag
    with pytest.raises(RuntimeError, match="imag"):
        lucid.imag(x)


def test_angle_special_values(torch):
    t = torch.tensor([-1.0, 0.0, -0.0, 1.0, NAN, -INF])
    _same(lucid.angle(_lt(torch, t)), torch.angle(t))
    c = torch.tensor([1 + 1j, -1 + 0j, 0j, -1 - 1j, complex(0, -2)])
    _same(lucid.angle(lucid.tensor(c.numpy())), torch.angle(c))
    _same(lucid.angle(lucid.tensor([-1, 0, 2])), torch.angle(torch.tensor([-1, 0, 2])))


def test_conj():
    x = lucid.tensor([1 + 2j])
    assert lucid.conj(x).tolist() == [1 - 2j] and x.conj().tolist() == [1 - 2j]
    assert lucid.conj_physical(x).tolist() == [1 - 2j]
    assert not x.is_conj() and not lucid.is_conj(x.conj()) and not x.is_neg()
    assert lucid.resolve_conj(x) is x and x.resolve_neg() is x
    r = lucid.tensor([1.0])
    assert lucid.conj(r) is r
    y = x.clone()
    assert y.conj_physical_() is y and y.tolist() == [1 - 2j]


def test_complex_unsupported_ops_raise():
    z = lucid.tensor([1 + 1j])
    with pytest.raises(NotImplementedError, match="sgn"):
        lucid.sign(z)
    for name in ("relu", "erf", "floor", "erfinv", "lgamma", "digamma", "deg2rad", "round", "logit"):
        with pytest.raises(NotImplementedError):
            getattr(lucid, name)(z)


def test_abs_dunder():
    assert abs(lucid.tensor([-1.5, 2.0])).tolist() == [1.5, 2.0]
    r = abs(lucid.tensor([3 + 4j]))
    assert r.dtype is lucid.float32 and r.tolist() == [5.0]


# ---------------------------------------------------------------------------------------------
# complex gradients against torch (conjugate Wirtinger convention)

COMPLEX_GRAD_OPS = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "sin",
                    "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
                    "sigmoid", "square", "neg", "sinc", "sgn", "abs", "angle", "real", "imag", "conj"]


@pytest.mark.parametrize("name", COMPLEX_GRAD_OPS)
def test_complex_gradient_matches_torch(torch, name):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    v = rng.uniform(-1.5, 1.5, size=6) + 1j * rng.uniform(-1.5, 1.5, size=6)
    tx = torch.tensor(v, dtype=torch.complex128, requires_grad=True)
    ty = getattr(torch, name if name != "conj" else "conj_physical")(tx)
    gv = rng.uniform(-1, 1, size=6) + (1j * rng.uniform(-1, 1, size=6) if ty.is_complex() else 0)
    tg = torch.tensor(gv, dtype=ty.dtype)
    (want,) = torch.autograd.grad(ty, tx, tg)

    lx = lucid.tensor(v).to(lucid.complex128).requires_grad_()
    ly = getattr(lucid, name)(lx)
    assert ly.dtype.name == str(ty.dtype).replace("torch.", "")
    (got,) = lucid.autograd.grad(ly, lx, lucid.tensor(gv).to(ly.dtype))
    np.testing.assert_allclose(to_numpy(ly), ty.detach().resolve_conj().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(got), want.resolve_conj().numpy(), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# gradients at the kinks and masks (clamp, logit with eps, sinc at 0) against torch

def _grads(torch, fn_l, fn_t, vals, extra=()):
    tx = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (vals,) + tuple(extra)]
    lx = [lucid.tensor(v, dtype=lucid.float64).requires_grad_() for v in (vals,) + tuple(extra)]
    ty = fn_t(*tx)
    ly = fn_l(*lx)
    tg = torch.autograd.grad(ty.sum(), tx, allow_unused=True)
    lg = lucid.autograd.grad(ly.sum(), lx, allow_unused=True)
    for a, b in zip(lg, tg):
        if b is None:
            assert a is None or np.all(to_numpy(a) == 0)
        else:
            np.testing.assert_allclose(to_numpy(a), b.numpy(), rtol=1e-10, atol=1e-12, equal_nan=True)


def test_clamp_gradients_match_torch(torch):
    v = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0]
    for kw in [dict(min=-1.0, max=1.0), dict(min=-0.5), dict(max=0.5), dict(min=1.0, max=-1.0)]:
        _grads(torch, lambda x: lucid.clamp(x, **kw), lambda x: torch.clamp(x, **kw), v)
    lo = [-1.0, -1.0, 0.0, 0.0, 1.0, 2.0, -3.0]
    hi = [1.0, -2.0, 0.0, 0.5, 0.0, 2.5, -1.0]
    _grads(torch, lambda x, a, b: lucid.clamp(x, a, b), lambda x, a, b: torch.clamp(x, a, b), v, (lo, hi))
    _grads(torch, lambda x, a: lucid.clamp(x, min=a), lambda x, a: torch.clamp(x, min=a), v, (lo,))
    _grads(torch, lambda x, b: lucid.clamp(x, max=b), lambda x, b: torch.clamp(x, max=b), v, (hi,))


def test_clamp_gradient_broadcast_bound():
    x = lucid.tensor([[0.0, 2.0], [3.0, -1.0]], dtype=lucid.float64, requires_grad=True)
    lo = lucid.tensor([1.0, 0.0], dtype=lucid.float64, requires_grad=True)
    lucid.clamp(x, min=lo).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert lo.grad.tolist() == [1.0, 1.0]


def test_logit_and_sinc_gradients_match_torch(torch):
    v = [0.0, 0.05, 0.1, 0.5, 0.9, 0.95, 1.0, -0.5, 1.5]
    for eps in (None, 0.1):
        _grads(torch, lambda x: lucid.logit(x, eps), lambda x: torch.logit(x, eps), v)
    w = [0.0, -0.0, 0.5, -1.5, 2.0]
    _grads(torch, lucid.sinc, torch.sinc, w)
    _grads(torch, lucid.angle, torch.angle, w)
    _grads(torch, lucid.round, torch.round, w)


def test_complex_gradients_at_zero(torch):
    v = [0j, 1 + 1j, -2 + 0.5j]
    for name in ("sgn", "angle", "abs", "sinc"):
        tx = torch.tensor(v, dtype=torch.complex128, requires_grad=True)
        ty = getattr(torch, name)(tx)
        g = torch.ones_like(ty)
        (want,) = torch.autograd.grad(ty, tx, g)
        lx = lucid.tensor(v).to(lucid.complex128).requires_grad_()
        (got,) = lucid.autograd.grad(getattr(lucid, name)(lx), lx, lucid.ones(3, dtype=lucid.float64 if name in
                                                                               ("angle", "abs") else lucid.complex128))
        np.testing.assert_allclose(to_numpy(got)[1:], want.numpy()[1:], rtol=1e-10, atol=1e-12)
        if name != "abs":   # abs at 0: PyTorch's subgradient is 0 too; sgn(0) = 0
            np.testing.assert_allclose(to_numpy(got)[0], want.numpy()[0], atol=1e-12)
